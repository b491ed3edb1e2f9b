#!/usr/bin/env bash
# Issue 39's acceptance interface: `blkperfd run --vary` on a page-cached
# file. A known effect (rate_iops 20000 vs 25000) is "faster" with the ratio
# 1.25; an A/A calibration (qd=32,32) gives faster or slower at most once in
# 5 tries; --fail_on=slower exits 4; --runtime and --ab with --vary are
# refused naming both flags; arms from a spec file (experiment.arms[]);
# live split arms (3), and --ab as their shorthand; blkperf compare;
# blkperf run --vary on a daemon, whose workloads' metrics carry the arm
# label and whose arms a CPU hog on the submitter CPU marks suspect
# (other_cpu, measured by the daemon).
set -euo pipefail
blkperfd=$1
blkperf=$2
dir=${TEST_TMPDIR:-$(mktemp -d)}
target=$dir/experiment.dat
fail() { echo "FAIL: $*" >&2; exit 1; }
json() {  # json FILE EXPR: evaluates EXPR with e = the parsed "experiment"
  python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["experiment"]; print(eval(sys.argv[2]))' "$1" "$2"
}

"$blkperfd" run --target="$target" --create_size=64m --allow_write \
  --io_count=1 --status_interval=0 > /dev/null
cat "$target" > /dev/null  # into the page cache

"$blkperfd" run --target="$target" --nodirect --vary=rate_iops=20000,25000 \
  --rounds=10 --round=500ms --json > "$dir/rate.json"
cat "$dir/rate.json"
[[ $(json "$dir/rate.json" 'len(e["arms"])') == 2 ]] || fail "two arms"
[[ $(json "$dir/rate.json" 'e["arms"][0]["baseline"] and e["arms"][0]["value"] == "20000"') == True ]] || fail "baseline first"
[[ $(json "$dir/rate.json" 'e["arms"][1]["verdict"]') == faster ]] || fail "verdict"
[[ $(json "$dir/rate.json" 'abs(e["arms"][1]["iops"]["ratio"] - 1.25) <= 0.01') == True ]] || fail "ratio"
[[ $(json "$dir/rate.json" 'len(e["arms"][1]["iops"]["ci"]) == 2 and all(isinstance(x, float) for x in e["arms"][1]["iops"]["ci"])') == True ]] || fail "ci"
[[ $(json "$dir/rate.json" 'e["arms"][1]["iops"]["ci"][0] <= e["arms"][1]["iops"]["ratio"] <= e["arms"][1]["iops"]["ci"][1]') == True ]] || fail "ci around ratio"
[[ $(json "$dir/rate.json" 'len(e["arms"][1]["samples"]) == 10 and len(e["arms"][0]["samples"]) == 10') == True ]] || fail "samples"
# Anyone can recompute the ratio from the samples: the median of the
# per-round ratios (on logs).
[[ $(json "$dir/rate.json" 'abs(__import__("math").exp(__import__("statistics").median(__import__("math").log(b / a) for a, b in zip(e["arms"][0]["samples"], e["arms"][1]["samples"]))) - e["arms"][1]["iops"]["ratio"]) < 1e-6') == True ]] || fail "ratio from samples"
[[ $(json "$dir/rate.json" 'len(e["order"]) == 10 and sorted(e["order"][0]) == ["A", "B"]') == True ]] || fail "order"
[[ $(json "$dir/rate.json" '(e["margin"], e["confidence"], e["total_seconds"])') == "(0.02, 0.95, 10)" ]] || fail "margin, confidence, total"

# A/A: identical arms.
false_verdicts=0
for try in 1 2 3 4 5; do
  "$blkperfd" run --target="$target" --nodirect --vary=qd=32,32 --rounds=10 \
    --round=200ms --experiment_seed=$try --json > "$dir/aa.json"
  verdict=$(json "$dir/aa.json" 'e["arms"][1]["verdict"]')
  echo "A/A try $try: $verdict $(json "$dir/aa.json" 'e["arms"][1]["iops"]["ci"]')"
  case $verdict in
    faster|slower) false_verdicts=$((false_verdicts + 1)) ;;
    equivalent|inconclusive) ;;
    *) fail "A/A verdict $verdict" ;;
  esac
done
(( false_verdicts <= 1 )) || fail "A/A: $false_verdicts faster/slower verdicts in 5"

# The text table, and --fail_on=slower on a slower arm.
rc=0
"$blkperfd" run --target="$target" --nodirect --vary=rate_iops=20000,10000 \
  --rounds=4 --round=200ms --fail_on=slower > "$dir/slower.txt" || rc=$?
cat "$dir/slower.txt"
(( rc == 4 )) || fail "--fail_on=slower exited $rc"
grep -q "B rate_iops=10000 vs A rate_iops=20000: slower" "$dir/slower.txt" || fail "text verdict"
grep -q "95% interval" "$dir/slower.txt" || fail "text interval"
grep -q "SUSPECT: .*fewer than 9 samples per arm" "$dir/slower.txt" || fail "samples guardrail"

# Refusals name both flags and exit 2.
refused() {  # refused WORD... -- ARGS: exit 2 with every WORD on stderr
  local words=() rc=0
  while [[ $1 != -- ]]; do words+=("$1"); shift; done
  shift
  "$blkperfd" run --target="$target" --nodirect "$@" > /dev/null 2> "$dir/err" || rc=$?
  (( rc == 2 )) || fail "$* exited $rc"
  for w in "${words[@]}"; do grep -q -- "$w" "$dir/err" || fail "$*: stderr lacks $w"; done
}
refused --runtime --vary -- --vary=qd=16,32 --runtime=1s
refused --ab --vary -- --vary=qd=16,32 --ab=none,limits
refused --vary=nonsense -- --vary=nonsense=1,2
refused --vary=qd=x -- --vary=qd=16,x
refused "arm qd=0" queue_depth -- --vary=qd=32,0 --rounds=1
refused --margin -- --vary=qd=16,32 --margin=2
# Arms from a spec file: names, several fields per arm, a value with commas
# (two targets); --vary beside them is refused, and so is a bad override.
cp "$target" "$dir/second.dat"
cat > "$dir/arms.json" <<ARMS
{"experiment": {"arms": [
  {"name": "slow", "overrides": {"rate_iops": 20000}},
  {"name": "fast_qd16", "overrides": {"rate_iops": 25000, "qd": 16}},
  {"name": "two_targets", "overrides": {"rate_iops": 20000,
                                        "target": "$target,$dir/second.dat"}}]}}
ARMS
"$blkperfd" run --target="$target" --nodirect --spec_file="$dir/arms.json" \
  --rounds=10 --round=300ms --json > "$dir/arms_out.json"
[[ $(json "$dir/arms_out.json" '[a["name"] for a in e["arms"]]') == "['slow', 'fast_qd16', 'two_targets']" ]] || fail "file arms: names"
[[ $(json "$dir/arms_out.json" 'e["field"] is None and e["arms"][1]["value"] == "qd=16 rate_iops=25000"') == True ]] || fail "file arms: overrides"
[[ $(json "$dir/arms_out.json" 'e["arms"][1]["verdict"] == "faster" and abs(e["arms"][1]["iops"]["ratio"] - 1.25) <= 0.01') == True ]] || fail "file arms: known effect"
[[ $(json "$dir/arms_out.json" 'e["arms"][2]["value"].endswith("second.dat") and len(e["arms"][2]["samples"]) == 10 and len(e["order"][0]) == 3') == True ]] || fail "file arms: two targets"
refused --vary arms -- --vary=qd=1,2 --spec_file="$dir/arms.json"
echo '{"experiment": {"arms": [{"name": "a"}, {"name": "b", "overrides": {"qd": "x"}}]}}' > "$dir/bad_arms.json"
refused "experiment.arms\[1\] (b)" --qd=x -- --spec_file="$dir/bad_arms.json" --rounds=1
rc=0; "$blkperf" start --spec_file="$dir/arms.json" 2> "$dir/err" || rc=$?
(( rc == 2 )) && grep -q "experiment.arms" "$dir/err" || fail "start with arms not refused"

# The stopping rule: a clear effect stops at the first look.
"$blkperfd" run --target="$target" --nodirect --vary=rate_iops=20000,25000 \
  --rounds=4 --until=decided --max_rounds=12 --round=200ms --json > "$dir/until.json"
[[ $(json "$dir/until.json" 'e["stopping"]["looks"] == [4, 6, 10, 12] and e["stopping"]["rounds_run"] == 4 and e["rounds"] == 4') == True ]] || fail "until: looks"
[[ $(json "$dir/until.json" 'e["arms"][1]["verdict"] == "faster" and abs(e["confidence"] - 0.9875) < 1e-9') == True ]] || fail "until: verdict"
refused --max_rounds -- --vary=qd=16,32 --until=decided
refused --max_rounds --until -- --vary=qd=16,32 --max_rounds=20

# Live-switched arms: split strategies, 3 arms alternating in slices of one
# workload.
"$blkperfd" run --target="$target" --nodirect --bs=64k \
  --vary=split=none,fixed:32k,fixed:16k --rounds=10 --round=200ms --json > "$dir/live.json"
[[ $(json "$dir/live.json" 'e["live"] and len(e["arms"]) == 3 and e["order"][0] == "ABC"') == True ]] || fail "live: 3 arms"
# Each arm's slices measured I/O (a slice of a loaded machine may see no
# completion: that arm then has no ratio, and says so with verdict null).
[[ $(json "$dir/live.json" 'all(len(a["samples"]) >= 9 and sum(s > 0 for s in a["samples"]) >= 5 for a in e["arms"])') == True ]] || fail "live: samples"
[[ $(json "$dir/live.json" 'all(a["verdict"] in ("faster", "slower", "equivalent", "inconclusive") or (a["verdict"] is None and 0 in a["samples"] + e["arms"][0]["samples"]) for a in e["arms"][1:])') == True ]] || fail "live: verdicts"
[[ $(json "$dir/live.json" 'e["total_seconds"]') == 6 ]] || fail "live: total time"
# --ab=A,B is --vary=split=A,B (--ab_slice: --round's old name).
"$blkperfd" run --target="$target" --nodirect --bs=64k --ab=none,fixed:32k \
  --rounds=3 --ab_slice=100ms --json > "$dir/ab.json"
[[ $(json "$dir/ab.json" 'e["live"] and e["field"] == "split" and [a["name"] for a in e["arms"]] == ["split=none", "split=fixed:32k"] and e["round_seconds"] == 0.1 and len(e["arms"][1]["samples"]) == 3') == True ]] || fail "--ab: the split experiment"
refused --ab_slice --round -- --ab=none,limits --ab_slice=100ms --round=200ms
refused --runtime --ab -- --ab=none,limits --runtime=1s
refused --ab_slice --ab --vary -- --ab_slice=100ms

# blkperf compare: two saved reports, the spec difference first, the
# warning always, an interval only from per-interval samples.
"$blkperfd" run --target="$target" --nodirect --runtime=300ms --series_interval=50ms --status_interval=0 --json > "$dir/a.json"
"$blkperfd" run --target="$target" --nodirect --runtime=300ms --series_interval=50ms --qd=8 --status_interval=0 --json > "$dir/b.json"
"$blkperf" compare "$dir/a.json" "$dir/b.json" > "$dir/compare.txt"
cat "$dir/compare.txt"
head -2 "$dir/compare.txt" | grep -q "spec differences: .*qd: 32 -> 8" || fail "compare: spec first"
grep -q "WARNING: A and B ran one after the other, not interleaved" "$dir/compare.txt" || fail "compare: warning"
# An interval needs at least 2 per-interval samples with I/O in each report.
if python3 -c 'import json,sys; sys.exit(0 if all(sum(1 for p in json.load(open(f)).get("series", []) if p.get("iops", p.get("read_iops", 0) + p.get("write_iops", 0)) > 0) >= 2 for f in sys.argv[1:]) else 1)' "$dir/a.json" "$dir/b.json"; then
  grep -q "intervals as samples, unpaired" "$dir/compare.txt" || fail "compare: series interval"
else
  grep -q "no interval and no verdict" "$dir/compare.txt" || fail "compare: no series"
fi
rc=0; "$blkperf" compare "$dir/a.json" "$dir/missing.json" 2> "$dir/err" || rc=$?
(( rc == 2 )) && grep -q missing.json "$dir/err" || fail "compare: unreadable file"
# The same experiment on a daemon: blkperf run --vary.
mport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$blkperfd" serve --listen=127.0.0.1:0 --port_file="$dir/port" \
  --metrics_listen=127.0.0.1:"$mport" \
  --data_dir="$dir/serve" --allow_read_paths="$dir/" > "$dir/serve.log" 2>&1 &
serve=$!
hog=
trap 'kill $serve ${hog:+$hog} 2>/dev/null || true' EXIT
for _ in $(seq 100); do [[ -s $dir/port ]] && break; sleep 0.1; done
[[ -s $dir/port ]] || fail "serve wrote no port"
"$blkperf" --server=127.0.0.1:$(cat "$dir/port") run --target="$target" --nodirect \
  --vary=rate_iops=20000,25000 --rounds=4 --round=300ms --json > "$dir/remote.json"
[[ $(json "$dir/remote.json" 'e["arms"][1]["verdict"]') == faster ]] || fail "remote verdict"
[[ $(json "$dir/remote.json" 'abs(e["arms"][1]["iops"]["ratio"] - 1.25) <= 0.03 and len(e["arms"][1]["samples"]) == 4') == True ]] || fail "remote ratio"
# Each round's workload told the daemon its arm: a real scrape shows the
# arm label on its series, one workload per arm and round.
python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
  "http://127.0.0.1:$mport/metrics" > "$dir/metrics.txt"
for arm in rate_iops=20000 rate_iops=25000; do
  n=$(grep -c "^blkperf_workload_info{workload=\"w[0-9]*\",arm=\"$arm\"," "$dir/metrics.txt" || true)
  (( n == 4 )) || fail "metrics: $n workloads labelled arm=\"$arm\", not 4"
  grep -q "^blkperf_ios_total{workload=\"w[0-9]*\",arm=\"$arm\",.*} [1-9]" "$dir/metrics.txt" \
    || fail "metrics: no I/O counted under arm=\"$arm\""
done
# An arm whose name is no label value (over 64 characters) is labelled by
# its letter, and stderr says so.
long=$dir/$(printf 'l%.0s' $(seq 70)).dat
ln -f "$target" "$long"
"$blkperf" --server=127.0.0.1:$(cat "$dir/port") run --nodirect \
  --vary=target="$target,$long" --rounds=1 --round=100ms --json > /dev/null 2> "$dir/long.err"
grep -q "arm B's name is not 1 to 64 characters" "$dir/long.err" || fail "long arm name: $(cat "$dir/long.err")"
python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
  "http://127.0.0.1:$mport/metrics" > "$dir/metrics.txt"
grep -q '^blkperf_workload_info{workload="w[0-9]*",arm="B",' "$dir/metrics.txt" || fail "long arm name: no arm=\"B\""
# A CPU hog on the submitter CPU: the daemon measures other processes' share
# of it (Snapshot.other_cpu_share, in the report JSON) and the client's
# analysis marks every arm suspect with reason other_cpu.
cpu=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
taskset -c "$cpu" sh -c 'while :; do :; done' &
hog=$!
"$blkperf" --server=127.0.0.1:$(cat "$dir/port") run --target="$target" --nodirect \
  --cpus="$cpu" --rate_iops=20000 --runtime=300ms --json > "$dir/hogged.json"
"$blkperf" --server=127.0.0.1:$(cat "$dir/port") run --target="$target" --nodirect \
  --cpus="$cpu" --vary=rate_iops=20000,25000 --rounds=2 --round=300ms --json > "$dir/hog.json"
kill "$hog"; wait "$hog" 2>/dev/null || true; hog=
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print("other_cpu_share", r["other_cpu_share"]); sys.exit(0 if r["other_cpu_share"] > 0.2 else 1)' \
  "$dir/hogged.json" || fail "a hogged run's other_cpu_share"
[[ $(json "$dir/hog.json" 'sorted(g["arm"] for g in e["guardrails"] if g["kind"] == "other_cpu" and g["suspect"]) == ["rate_iops=20000", "rate_iops=25000"] and all(a["suspect"] for a in e["arms"][1:])') == True ]] \
  || fail "hogged remote experiment: $(json "$dir/hog.json" 'e["guardrails"]')"
# The fleet runs experiments (tests/fleet:fleet_experiment_test) on `fleet
# run` only, and refuses what it cannot take with --vary, before any host.
rc=0; "$blkperf" fleet watch some-run --hosts=127.0.0.1:1 --vary=qd=1,2 2> "$dir/err" || rc=$?
(( rc == 2 )) && grep -q -- --vary "$dir/err" || fail "fleet watch --vary not refused"
rc=0; "$blkperf" fleet run --hosts=127.0.0.1:1 --target="$target" --vary=qd=1,2 --runtime=1s 2> "$dir/err" || rc=$?
(( rc == 2 )) && grep -q -- --runtime "$dir/err" || fail "fleet run --vary --runtime not refused"
rc=0; "$blkperf" fleet run --hosts=127.0.0.1:1 --target="$target" --vary=qd=1,2 --cohort_by=label:x 2> "$dir/err" || rc=$?
(( rc == 2 )) && grep -q -- --cohort_by "$dir/err" || fail "fleet run --vary --cohort_by not refused"
rc=0; "$blkperf" fleet run --hosts=127.0.0.1:1 --target="$target" --vary=qd=1,2 --run_id="$(printf 'r%.0s' $(seq 60))" 2> "$dir/err" || rc=$?
(( rc == 2 )) && grep -q "at most 56" "$dir/err" || fail "fleet run --vary with a 60-character run_id not refused"
echo PASS
