#!/usr/bin/env bash
# 1 MiB sequential reads with split strategies none, limits and fixed:128k on
# /dev/zram0 and on a loop device (max_sectors_kb lowered to 128), in
# alternating rounds: median throughput, CPU seconds per GiB (submitter +
# io_uring workers) and device requests per SQE for each.
#
#   bench/split_strategies.sh [--rounds N] [--runtime S] [--cpu C]
#
# Needs root: it configures /dev/zram0 only when its disksize is 0 (and
# resets it at exit) and sets up its own loop device over a temporary file.
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=${BLKPERF_RESULTS_DB:-none}
cd "$(dirname "$0")/.."
source bench/lib/zram.sh

rounds=3
runtime=3
cpu=$(( $(nproc) - 1 ))
strategies=(none limits fixed:128k)
while (($#)); do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    *) echo "usage: $0 [--rounds N] [--runtime S] [--cpu C]" >&2; exit 2 ;;
  esac
done
if [[ $(id -u) -ne 0 ]]; then echo "needs root (zram and loop set-up)" >&2; exit 1; fi

bazel build -c opt //daemon:blkperfd >&2
blkperfd=$(pwd)/bazel-bin/daemon/blkperfd
work=$(mktemp -d "$(pwd)/.bench.XXXXXX")
zram_configured=0
loop=""
loop_max_kb=""
cleanup() {
  # The loop device keeps a written max_sectors_kb across detach and the
  # next attach: put back what it had.
  if [[ -n $loop_max_kb ]]; then
    echo "$loop_max_kb" > "/sys/block/$(basename "$loop")/queue/max_sectors_kb" || true
  fi
  if [[ -n $loop ]]; then losetup -d "$loop" || true; fi
  if ((zram_configured)); then reset_zram zram0; fi
  rm -rf "$work"
}
trap cleanup EXIT

targets=()
if [[ -e /sys/block/zram0 && $(cat /sys/block/zram0/disksize) == 0 ]]; then
  echo 2G > /sys/block/zram0/disksize
  zram_configured=1
  targets+=(/dev/zram0)
else
  echo "/dev/zram0 missing or configured by someone else; skipping it" >&2
fi
truncate -s 1G "$work/loop.img"
loop=$(losetup -f --show "$work/loop.img")
loop_max_kb=$(cat "/sys/block/$(basename "$loop")/queue/max_sectors_kb")
echo 128 > "/sys/block/$(basename "$loop")/queue/max_sectors_kb"
targets+=("$loop")

echo "# $(date -u +%F) $(uname -r), 1 MiB sequential reads, qd 4, cpu $cpu, ${rounds} rounds x ${runtime}s"
echo "| target | max_sectors_kb | strategy | MiB/s (median) | CPU s per GiB | pieces per I/O | device requests per SQE |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for target in "${targets[@]}"; do
  dev=$(basename "$target")
  max_kb=$(cat "/sys/block/$dev/queue/max_sectors_kb")
  declare -A results=()
  for ((r = 0; r < rounds; r++)); do
    # Rotate the order each round so no strategy always goes first.
    for ((i = 0; i < ${#strategies[@]}; i++)); do
      s=${strategies[$(( (i + r) % ${#strategies[@]} ))]}
      "$blkperfd" run --target="$target" --op=read --bs=1m --qd=4 \
        --cpus="$cpu" --runtime="${runtime}s" --split="$s" \
        --status_interval=0 --json > "$work/out.json"
      results[$s]+="$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1])); t = r["total"]; d = r["device"] or {}
gib = t["bytes"] / 2**30
cpu = t["user_cpu_seconds"] + t["system_cpu_seconds"] + t["io_worker_cpu_seconds"]
bw = t["bytes_per_second"] / 2**20
pieces = t["sqes"] / max(t["ios"], 1)
print("%.1f,%.4f,%.2f,%.2f" % (bw, cpu / gib if gib else 0, pieces, d.get("requests_per_sqe", 0)))
' "$work/out.json") "
    done
  done
  for s in "${strategies[@]}"; do
    python3 - "$target" "$max_kb" "$s" ${results[$s]} <<'PY'
import statistics, sys
target, max_kb, s, *rows = sys.argv[1:]
cols = list(zip(*(map(float, r.split(",")) for r in rows)))
m = [statistics.median(c) for c in cols]
print(f"| {target} | {max_kb} | {s} | {m[0]:.0f} | {m[1]:.3f} | {m[2]:.2f} | {m[3]:.2f} |")
PY
  done
  unset results
done
