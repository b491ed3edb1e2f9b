#!/usr/bin/env bash
# The acceptance interface of workload shapes (issue 12), run exactly as the
# acceptance script runs it, on a file made with dd (so it is in the page
# cache): `blkperfd run --target=F --nodirect --rate_iops=20000 --runtime=3s
# --json` reports total.iops -- the JSON report's "total" object, completed
# I/Os over the measured seconds -- within 2% of 20000, and
# --distribution=zipf:1.2 and --bssplit=4k/70:64k/30 are accepted. Then
# the same flags in text, groups, a short SLO search and field-named errors.
set -euo pipefail
blkperfd=$1
dir=${TEST_TMPDIR:-$(mktemp -d)}
F=$dir/acceptance.dat
fail() { echo "FAIL: $*" >&2; exit 1; }
json() {  # json FILE EXPR: evaluates EXPR with r = the parsed report
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
dd if=/dev/urandom of="$F" bs=1M count=64 status=none

"$blkperfd" run --target="$F" --nodirect --rate_iops=20000 --runtime=3s --json \
  --data_dir="$dir/data" > "$dir/rate.json"
iops=$(json "$dir/rate.json" 'r["total"]["iops"]')
echo "rate_iops=20000: total.iops=$iops"
[[ $(json "$dir/rate.json" 'abs(r["total"]["iops"] - 20000) <= 0.02 * 20000') == True ]] ||
  fail "total.iops $iops is not within 2% of 20000"
# total.iops is what the field says: total.ios over elapsed_seconds.
[[ $(json "$dir/rate.json" 'abs(r["total"]["ios"] / r["elapsed_seconds"] - r["total"]["iops"]) < 1') == True ]] ||
  fail "total.iops is not ios / elapsed_seconds"
[[ $(json "$dir/rate.json" 'r["total"]["intended_latency"]["count"] == r["total"]["ios"]') == True ]] ||
  fail "open loop without an intended-time latency per I/O"

"$blkperfd" run --target="$F" --nodirect --distribution=zipf:1.2 --runtime=1s \
  --json --data_dir="$dir/data" > "$dir/zipf.json" || fail "--distribution=zipf:1.2 refused"
[[ $(json "$dir/zipf.json" 'r["state"]') == finished ]] || fail "zipf run state"
[[ $(json "$dir/zipf.json" '"distribution=zipf:1.2" in r["spec"]') == True ]] || fail "zipf not in the spec"

"$blkperfd" run --target="$F" --nodirect --bssplit=4k/70:64k/30 --io_count=20000 \
  --json --data_dir="$dir/data" > "$dir/bssplit.json" || fail "--bssplit=4k/70:64k/30 refused"
mean=$(json "$dir/bssplit.json" 'r["total"]["bytes"] / r["total"]["ios"]')
[[ $(json "$dir/bssplit.json" 'abs(r["total"]["bytes"] / r["total"]["ios"] - 22528) < 0.03 * 22528') == True ]] ||
  fail "bssplit mean block $mean is not 0.7 x 4k + 0.3 x 64k"

# All three together, as text: the open-loop lines are there.
"$blkperfd" run --target="$F" --nodirect --rate_iops=5000 --arrivals=poisson \
  --distribution=zipf:1.2 --bssplit=4k/70:64k/30 --runtime=1s \
  --status_interval=0 --data_dir="$dir/data" > "$dir/all.txt"
for word in "rate_iops=5000 (poisson)" "distribution=zipf:1.2" "bssplit=4k/70:64k/30" \
    "ilat percentiles: p50=" "open loop: late="; do
  grep -qF -- "$word" "$dir/all.txt" || fail "text report lacks $word"
done

# Groups: reported per group and in total.
"$blkperfd" run --target="$F" --nodirect --runtime=1s --json --data_dir="$dir/data" \
  --groups="hot: op=randread cpus=0 distribution=zipf:1.2; paced: op=randread cpus=1 rate_iops=2000" \
  > "$dir/groups.json"
[[ $(json "$dir/groups.json" '[g["name"] for g in r["groups"]]') == "['hot', 'paced']" ]] || fail "groups"
[[ $(json "$dir/groups.json" 'sum(g["total"]["ios"] for g in r["groups"]) == r["total"]["ios"]') == True ]] ||
  fail "groups do not add up to the total"
[[ $(json "$dir/groups.json" 'abs(r["groups"][1]["total"]["iops"] - 2000) < 100') == True ]] ||
  fail "the paced group's rate"

# A short SLO search: the closed loop, half of its IOPS, and the re-test of
# the answer (a step whose interval straddles the bound is repeated once).
"$blkperfd" run --target="$F" --nodirect --slo='p99<1s' --slo_precision=0.5 \
  --slo_step=300ms --slo_settle=100ms --json --data_dir="$dir/data" > "$dir/slo.json"
[[ $(json "$dir/slo.json" 'r["slo"]["done"] and 2 <= len(r["slo"]["steps"]) <= 5') == True ]] || fail "slo steps"
[[ $(json "$dir/slo.json" 'r["slo"]["best_iops"] > 0 and r["slo"]["objective"] == "p99<1s"') == True ]] ||
  fail "slo answer"

# Bad values are refused, exit 2, naming the field.
expect_refused() {  # expect_refused FIELD FLAGS...
  local field=$1; shift
  if "$blkperfd" run --target="$F" --nodirect --runtime=1s "$@" > "$dir/bad.txt" 2>&1; then
    fail "$* was accepted"
  fi
  grep -qF -- "$field" "$dir/bad.txt" || { cat "$dir/bad.txt"; fail "$* error lacks $field"; }
}
expect_refused "spec.distribution" --distribution=zipf:0
expect_refused "--bssplit" --bssplit=4k/70:64k/20
expect_refused "rate_bw" --rate_iops=100 --rate_bw=1m
expect_refused "spec.slo.objective" --slo='p99>1ms'
expect_refused "distribution zipf:1.2 needs a random op" --op=read --distribution=zipf:1.2
echo PASS
