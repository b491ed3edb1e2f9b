#!/usr/bin/env bash
# A/A calibration of `blkperfd run --vary`: N experiments whose two arms are
# identical (qd=32,32 on a page-cached ext4 file, --nodirect), each with its
# own --experiment_seed; counts the verdicts. With identical arms every
# "faster" or "slower" is false: at 95 % confidence and a 2 % margin, at
# most about 2.5 % of experiments each way (fewer: the margin adds room).
#
#   flock -x /tmp/blkperf-cpu.lock bench/experiment_aa.sh          # 20 x 10 rounds x 200ms
#   bench/experiment_aa.sh --experiments 40 --rounds 10 --round 500ms
#   BLKPERFD=bazel-out/k8-opt/bin/daemon/blkperfd bench/experiment_aa.sh
#
# Prints one line per experiment (verdict, ratio, interval, guardrails) and
# the counts; the raw JSON goes to $DIR (default /tmp/blkperf-aa).
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=${BLKPERF_RESULTS_DB:-none}
experiments=20 rounds=10 round=200ms vary=qd=32,32
while (( $# )); do
  case $1 in
    --experiments) experiments=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --round) round=$2; shift 2 ;;
    --vary) vary=$2; shift 2 ;;
    *) echo "usage: $0 [--experiments N] [--rounds N] [--round D] [--vary F=A,B]" >&2; exit 2 ;;
  esac
done
blkperfd=${BLKPERFD:-bazel-bin/daemon/blkperfd}
dir=${DIR:-/tmp/blkperf-aa}
mkdir -p "$dir"
target=$dir/aa.dat
"$blkperfd" run --target="$target" --create_size=256m --allow_write \
  --io_count=1 --status_interval=0 > /dev/null
cat "$target" > /dev/null
for i in $(seq 1 "$experiments"); do
  "$blkperfd" run --target="$target" --nodirect --vary="$vary" --rounds="$rounds" \
    --round="$round" --experiment_seed="$i" --status_interval=0 --json > "$dir/aa.$i.json"
done
python3 - "$dir" "$experiments" <<'PY'
import collections, json, sys
d, n = sys.argv[1], int(sys.argv[2])
counts, suspect = collections.Counter(), 0
for i in range(1, n + 1):
    e = json.load(open(f"{d}/aa.{i}.json"))["experiment"]
    b = e["arms"][1]
    counts[b["verdict"]] += 1
    suspect += b["suspect"]
    kinds = sorted({g["kind"] for g in e["guardrails"] if g["suspect"]})
    print(f"seed {i:3d}: {b['verdict']:12s} ratio {b['iops']['ratio']:.3f} "
          f"[{b['iops']['ci'][0]:.3f}, {b['iops']['ci'][1]:.3f}] "
          f"suspect: {','.join(kinds) or '-'}")
print(f"{n} A/A experiments: " + ", ".join(
    f"{v} {counts[v]}" for v in ("faster", "slower", "equivalent", "inconclusive"))
    + f"; suspect {suspect}")
PY
