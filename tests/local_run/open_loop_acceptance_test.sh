#!/usr/bin/env bash
# Issue 41's acceptance interface, run as the acceptance script runs it:
# the engine's test FUSE server (one read at a time, about 10k a second at
# most) read at twice that rate at QD 16,
#   blkperfd run --target=MOUNT/data --nodirect --qd=16 --rate_iops=20000
#                --runtime=3s --json
# reports total.late_ios above a quarter of total.ios (the queue is full in
# sustained overload: nearly every I/O is due while all 16 slots are taken),
# and total has an issue-lag histogram (a key with "lag" in its name holding
# a count above 0 and a p99) that, with the service latency, accounts for the
# intended-time latency; the text report says which carries the tail; and
# --distribution=normal:10 is refused naming the distribution. Needs root
# and /dev/fuse (CI runs as root): anything else fails, it does not skip.
set -euo pipefail
blkperfd=$1
server=$2
dir=${TEST_TMPDIR:-$(mktemp -d)}
mnt=$dir/fuse
fail() { echo "FAIL: $*" >&2; exit 1; }
json() {  # json FILE EXPR: evaluates EXPR with r = the parsed report
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
source "$(dirname "$0")/stall_fuse.sh"
mount_stall_fuse "$server" "$mnt" --service_us=100

"$blkperfd" run --target="$mnt/data" --nodirect --qd=16 --rate_iops=20000 \
  --runtime=3s --json --data_dir="$dir/data" > "$dir/over.json"
echo "late_ios=$(json "$dir/over.json" 'r["total"]["late_ios"]') of ios=$(json "$dir/over.json" 'r["total"]["ios"]')"
[[ $(json "$dir/over.json" 'r["total"]["ios"] > 1000') == True ]] ||
  fail "too few I/Os completed to judge"
[[ $(json "$dir/over.json" 'r["total"]["late_ios"] * 4 > r["total"]["ios"]') == True ]] ||
  fail "total.late_ios is not above a quarter of total.ios in sustained overload"
lag_keys=$(json "$dir/over.json" '[k for k in r["total"] if "lag" in k and isinstance(r["total"][k], dict) and r["total"][k].get("count", 0) > 0 and any(p.startswith("p99") for p in r["total"][k])]')
echo "issue lag keys: $lag_keys"
[[ $lag_keys != "[]" ]] || fail "total has no issue-lag histogram with a count and a p99"
# Each I/O's intended-time latency is its issue lag plus its service
# latency: the lag's count is the intended-time latency's, and its mean
# plus the service latency's mean is the intended-time mean (within the
# histograms' bucket resolution, 1/64).
[[ $(json "$dir/over.json" 'r["total"]["issue_lag"]["count"] == r["total"]["intended_latency"]["count"]') == True ]] ||
  fail "issue lag and intended latency count different I/Os"
[[ $(json "$dir/over.json" 'abs(r["total"]["issue_lag"]["mean_ns"] + r["total"]["latency"]["mean_ns"] - r["total"]["intended_latency"]["mean_ns"]) <= 0.03 * r["total"]["intended_latency"]["mean_ns"]') == True ]] ||
  fail "issue lag + latency is not the intended-time latency"
# In overload the tail is the wait for a slot.
[[ $(json "$dir/over.json" 'r["total"]["intended_tail"]') == issue_lag_queue_full ]] ||
  fail "the tail is not put on the full queue: $(json "$dir/over.json" 'r["total"]["intended_tail"]')"

# The text report names the part that carries the tail.
"$blkperfd" run --target="$mnt/data" --nodirect --qd=16 --rate_iops=20000 \
  --runtime=1s --data_dir="$dir/data" > "$dir/over.txt"
grep -q '^  lag percentiles: ' "$dir/over.txt" || fail "no lag line in the text report"
grep -q '^  tail: ilat p99=.* is carried by issue lag .*queue slot' "$dir/over.txt" ||
  fail "the text report does not say the full queue carries the tail"

# Below capacity nothing is late: at 1000 a second 16 slots fill only if
# some read takes 15 ms or more (the server starved of CPU on a loaded
# host; then late I/Os are real), so without one late_ios must be 0.
"$blkperfd" run --target="$mnt/data" --nodirect --qd=16 --rate_iops=1000 \
  --runtime=2s --json --data_dir="$dir/data" > "$dir/under.json"
echo "under capacity: late_ios=$(json "$dir/under.json" 'r["total"]["late_ios"]') of $(json "$dir/under.json" 'r["total"]["ios"]'), slowest read $(json "$dir/under.json" 'r["total"]["latency"]["max_ns"]') ns"
[[ $(json "$dir/under.json" 'r["total"]["latency"]["max_ns"] >= 15e6 or r["total"]["late_ios"] == 0') == True ]] ||
  fail "late_ios counted below capacity with no read slow enough to fill the queue"

set +e
"$blkperfd" run --target="$mnt/data" --nodirect --distribution=normal:10 \
  --runtime=1s --data_dir="$dir/data" > "$dir/normal.out" 2>&1
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "--distribution=normal:10 exited $rc, not 2"
grep -q 'distribution "normal:10"' "$dir/normal.out" ||
  fail "the refusal does not name the distribution: $(head -c 300 "$dir/normal.out")"
echo PASS
