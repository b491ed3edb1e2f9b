#!/usr/bin/env bash
# What latency_mode=per_io (reap each completion as it arrives: exact
# per-I/O latency) costs next to latency_mode=batch (t/io_uring's loop), in
# interleaved rounds on a file held in the page cache (--nodirect), so the
# figures are the engine's own cost, not a device's. Per mode: median IOPS,
# I/Os per submit/wait call, submitter CPU per million I/Os, and the median
# (over rounds) of each run's p50 and p99 of lat, slat and clat.
#
#   bench/latency_mode.sh [--rounds N] [--runtime S] [--cpu C] [--qd Q] [--direct]
#
# --direct runs the same rounds with O_DIRECT instead, so completions come
# from the device under the file and the modes' difference in calls shows.
#
# Creates and removes its own 256 MiB file under the repository; writes to
# nothing else.
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=${BLKPERF_RESULTS_DB:-none}
cd "$(dirname "$0")/.."

rounds=5
runtime=3
cpu=$(( $(nproc) - 1 ))
qd=32
io=--nodirect
while (($#)); do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    --qd) qd=$2; shift 2 ;;
    --direct) io=--direct; shift ;;
    *) echo "usage: $0 [--rounds N] [--runtime S] [--cpu C] [--qd Q] [--direct]" >&2; exit 2 ;;
  esac
done

bazel build -c opt //daemon:blkperfd >&2
blkperfd=$(pwd)/bazel-bin/daemon/blkperfd
work=$(mktemp -d "$(pwd)/.bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
file="$work/cached.dat"
# Create (pre-filled) and then read once so every page is cached.
"$blkperfd" run --target="$file" --create_size=256m --allow_write --nodirect \
  --op=read --bs=1m --qd=4 --io_count=256 --cpus="$cpu" --status_interval=0 \
  > /dev/null

modes=(batch per_io)
declare -A results=()
for ((r = 0; r < rounds; r++)); do
  # Alternate which mode goes first.
  for ((i = 0; i < ${#modes[@]}; i++)); do
    m=${modes[$(( (i + r) % ${#modes[@]} ))]}
    "$blkperfd" run --target="$file" "$io" --op=randread --bs=4k \
      --qd="$qd" --cpus="$cpu" --runtime="${runtime}s" --latency_mode="$m" \
      --status_interval=0 --json > "$work/out.json"
    results[$m]+="$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["total"]
cpu = t["user_cpu_seconds"] + t["system_cpu_seconds"] + t["io_worker_cpu_seconds"]
# batch turns name the parts batch_wait and after_wait (docs/numbers.md)
l = t["latency"]
s = t.get("submit_latency") or t["batch_wait_latency"]
c = t.get("completion_latency") or t["after_wait_latency"]
print("%.0f,%.2f,%.3f,%d,%d,%d,%d,%d,%d" % (t["iops"], t["ios_per_call"],
      cpu / max(t["ios"], 1) * 1e6, l["p50_ns"], l["p99_ns"], s["p50_ns"],
      s["p99_ns"], c["p50_ns"], c["p99_ns"]))
' "$work/out.json") "
  done
done

where="page-cache file"
[[ $io == --direct ]] && where="file with O_DIRECT ($(df --output=source "$work" | tail -1))"
echo "# $(date -u +%F) $(uname -r), 4 KiB randread, $where, qd $qd, cpu $cpu, ${rounds} interleaved rounds x ${runtime}s"
echo "| latency_mode | IOPS (median) | I/Os per call | CPU s per 1M I/Os | lat p50 / p99 | slat (batch: batch_wait) p50 / p99 | clat (batch: after_wait) p50 / p99 |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for m in "${modes[@]}"; do
  python3 - "$m" ${results[$m]} <<'PY'
import statistics, sys
m, *rows = sys.argv[1:]
cols = list(zip(*(list(map(float, r.split(","))) for r in rows)))
v = [statistics.median(c) for c in cols]
us = lambda ns: f"{ns / 1000:.1f}us"
print(f"| {m} | {v[0]:.0f} | {v[1]:.2f} | {v[2]:.3f} | {us(v[3])} / {us(v[4])} "
      f"| {us(v[5])} / {us(v[6])} | {us(v[7])} / {us(v[8])} |")
PY
done
