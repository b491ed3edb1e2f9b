#!/usr/bin/env bash
# Scale: `blkperf fleet run` against FLEET_SCALE_HOSTS (default 1,000) fake
# hosts, each host's clock hours apart, served by fake_fleet_hosts
# processes of at most FLEET_SCALE_HOSTS_PER_PROCESS (2,000) hosts each
# (testing/fake_fleet_processes.sh). Every host arms, starts and
# completes, the merged total is the exact sum of the hosts' totals, the
# overlap window the hosts' common one, and
# the orchestrator arms, starts and collects in under FLEET_SCALE_MAX_WALL_S
# (default 10; wall time of the whole `blkperf fleet run`, a 1 s workload
# and the 1 s start margin included) with a peak RSS (VmHWM, GNU time's %M)
# under FLEET_SCALE_MAX_RSS_MIB (default 200). The wall time is a timing
# figure: the Bazel target is tagged exclusive, as fleet_e2e_test is for the
# start skew; bench/fleet_scale.sh runs this script over rounds and fleet
# sizes and bench/RESULTS.md holds the figures.
#
#   FLEET_SCALE_HOSTS=10000 FLEET_SCALE_MAX_WALL_S=20 FLEET_SCALE_MAX_RSS_MIB=500 \
#     fleet/scale_test.sh BLKPERF FAKE_FLEET_HOSTS
set -euo pipefail
blkperf=$1
fake=$2
hosts=${FLEET_SCALE_HOSTS:-1000}
per_process=${FLEET_SCALE_HOSTS_PER_PROCESS:-2000}
max_wall_s=${FLEET_SCALE_MAX_WALL_S:-10}
max_rss_mib=${FLEET_SCALE_MAX_RSS_MIB:-200}
dir=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/testing/fake_fleet_processes.sh"
trap stop_fake_fleet EXIT
start_fake_fleet "$fake" "$hosts" "$per_process" "$dir"

/usr/bin/time -f "%e %M" -o "$dir/time.txt" \
  "$blkperf" fleet run --hosts="@$dir/hosts.txt" --runtime=1s --quiet --api_json \
  > "$dir/run.json" 2> "$dir/run.err" || { rc=$?; cat "$dir/run.err" >&2; fail "fleet run exited $rc"; }
read -r wall_s rss_kb < "$dir/time.txt"
echo "$hosts-host fleet run: wall ${wall_s}s, peak RSS $((rss_kb / 1024)) MiB, load: $(cut -d' ' -f1-3 /proc/loadavg)"

# One pass over the JSON: every host completed, hosts[] complete, the
# merged total the exact sum of the hosts' totals, the overlap window the
# hosts' common one.
python3 - "$dir/run.json" "$hosts" <<'PY' || fail "report checks"
import json, sys
r = json.load(open(sys.argv[1]))
hosts = int(sys.argv[2])
print(f"steps: {r['steps_seconds']}, start margin {r['start_margin_seconds']}s")
errors = []
if r["outcome"] != "completed": errors.append(f"outcome {r['outcome']}")
if int(r["counts"]["completed"]) != hosts: errors.append("not every host completed")
if len(r["hosts"]) != hosts: errors.append(f"hosts[] has {len(r['hosts'])} entries")
merged = int(r["merged"]["snapshot"]["total"]["ios"])
total = sum(int(h["report"]["snapshot"]["total"]["ios"]) for h in r["hosts"])
if merged != total: errors.append(f"merged ios {merged} differ from the sum {total}")
if merged <= 0: errors.append("no I/O")
if len({h["address"] for h in r["hosts"]}) != hosts: errors.append("hosts[] repeats a host")
# The overlap window: from the latest host's start to the earliest's end.
begin = max(int(h["window"]["begin_ns"]) for h in r["hosts"])
end = min(int(h["window"]["end_ns"]) for h in r["hosts"])
if (int(r["window"]["begin_ns"]), int(r["window"]["end_ns"])) != (begin, end):
    errors.append(f"window {r['window']} is not [{begin}, {end}]")
for e in errors: print("FAIL:", e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
(( rss_kb < max_rss_mib * 1024 )) || fail "peak RSS ${rss_kb} KiB (>= ${max_rss_mib} MiB)"
python3 -c "import sys; sys.exit(0 if float('$wall_s') < float('$max_wall_s') else 1)" \
  || fail "took ${wall_s}s (>= ${max_wall_s}s)"
echo PASS
