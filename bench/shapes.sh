#!/usr/bin/env bash
# Workload shapes side by side with fio's equivalent jobs, in interleaved
# rounds on a 256 MiB file in /dev/shm (tmpfs: buffered reads complete
# inline and never go to a disk, so the figures are each engine's own
# cost), one submitter pinned to one CPU, io_uring, queue depth 32, fixed
# buffers and registered files in both:
#
#   rate      open loop at --rate IOPS: blkperf --rate_iops (uniform and
#             poisson arrivals) vs fio --rate_iops (rate_process=linear and
#             poisson): the IOPS achieved, the CPU it costs, latency;
#   closed    blkperf closed loop at queue depth 32 (batches of 32, the
#             uniform baseline of zipf and bssplit) and at queue depth 1
#             (one I/O per enter, like a paced loop): what pacing costs per
#             I/O next to the same I/Os issued closed loop;
#   zipf      closed-loop random reads, random_distribution=zipf:1.2 in
#             fio, --distribution=zipf:1.2 in blkperf, and fio uniform;
#   bssplit   closed-loop random reads with bssplit=4k/70:64k/30 in both.
#
# Every job runs once per round; the order rotates between rounds. Medians
# over rounds of: IOPS, bandwidth, CPU per I/O and CPU utilization (the
# whole process's task-clock from `perf stat`, io-wq workers included: the
# scheduler's exact run time, where getrusage's tick-sampled times
# over-count a thread that wakes on a timer), and p50/p99 (blkperf: service
# latency `lat` and, open loop, intended-time `ilat`; fio: `lat`, from
# submission). Run it with `cpu-exclusive` for figures:
#
#   cpu-exclusive bench/shapes.sh [--rounds N] [--runtime S] [--rate R] [--cpu C]
#
# Creates and removes its own 256 MiB file in /dev/shm (and the data
# directory blkperfd run needs); writes to nothing else.
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=${BLKPERF_RESULTS_DB:-none}
cd "$(dirname "$0")/.."

rounds=5
runtime=3
rate=20000
cpu=$(( $(nproc) - 1 ))
qd=32
while (($#)); do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    *) echo "usage: $0 [--rounds N] [--runtime S] [--rate R] [--cpu C]" >&2; exit 2 ;;
  esac
done

command -v fio >/dev/null || tools/setup.sh
command -v perf >/dev/null || { echo "needs perf (linux-perf)" >&2; exit 1; }
bazel build -c opt //daemon:blkperfd >&2
blkperfd=$(pwd)/bazel-bin/daemon/blkperfd
work=$(mktemp -d /dev/shm/blkperf-shapes.XXXXXX)
trap 'rm -rf "$work"' EXIT
file="$work/cached.dat"
"$blkperfd" run --target="$file" --create_size=256m --allow_write --nodirect \
  --op=read --bs=1m --qd=4 --io_count=256 --cpus="$cpu" --status_interval=0 \
  --data_dir="$work/data" > /dev/null

# Each job prints: IOPS bytes/s cpu_us_per_io cpu_util lat_p50 lat_p99 ilat_p50 ilat_p99
# The process's CPU seconds (task-clock) of the command that follows.
cpu_of() {
  perf stat -x, -e task-clock -o "$work/perf.txt" -- "$@"
  python3 -c 'import sys
for line in open(sys.argv[1]):
    f = line.split(",")
    if len(f) > 2 and f[2] == "task-clock": print(float(f[0]) / 1e3)' "$work/perf.txt" > "$work/cpu.txt"
}
blkperf() {
  cpu_of "$blkperfd" run --target="$file" --nodirect --op=randread --qd="$qd" \
    --cpus="$cpu" --runtime="${runtime}s" --status_interval=0 \
    --data_dir="$work/data" --json "$@" > "$work/b.json"
  python3 - "$work/b.json" "$(cat "$work/cpu.txt")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); t = r["total"]; cpu = float(sys.argv[2])
l, i = t["latency"], t["intended_latency"]
print(t["iops"], t["bytes_per_second"], 1e6 * cpu / max(t["ios"], 1),
      cpu / r["elapsed_seconds"], l["p50_ns"], l["p99_ns"], i["p50_ns"],
      i["p99_ns"])
PY
}
fio_job() {
  cpu_of fio --name=shape --filename="$file" --ioengine=io_uring --rw=randread \
    --direct=0 --iodepth="$qd" --iodepth_batch_submit=32 \
    --iodepth_batch_complete_min=1 --fixedbufs=1 --registerfiles=1 \
    --cpus_allowed="$cpu" --time_based --runtime="$runtime" \
    --norandommap --randrepeat=0 --output-format=json "$@" > "$work/f.json"
  python3 - "$work/f.json" "$(cat "$work/cpu.txt")" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]; d = j["read"]
seconds = j["job_runtime"] / 1000
cpu = float(sys.argv[2])
p = d["lat_ns"].get("percentile") or d["clat_ns"]["percentile"]
print(d["iops"], d["bw_bytes"], 1e6 * cpu / max(d["total_ios"], 1),
      cpu / seconds, p["50.000000"], p["99.000000"], 0, 0)
PY
}

job() {
  case "$1" in
    blkperf_rate_uniform) blkperf --bs=4k --rate_iops="$rate" --arrivals=uniform ;;
    blkperf_rate_poisson) blkperf --bs=4k --rate_iops="$rate" --arrivals=poisson ;;
    fio_rate_linear) fio_job --bs=4k --rate_iops="$rate" --rate_process=linear --lat_percentiles=1 ;;
    fio_rate_poisson) fio_job --bs=4k --rate_iops="$rate" --rate_process=poisson --lat_percentiles=1 ;;
    blkperf_closed_qd32) blkperf --bs=4k ;;
    blkperf_closed_qd1) blkperf --bs=4k --qd=1 ;;
    fio_uniform) fio_job --bs=4k --iodepth_batch_complete_min=32 --lat_percentiles=1 ;;
    blkperf_zipf) blkperf --bs=4k --distribution=zipf:1.2 ;;
    fio_zipf) fio_job --bs=4k --random_distribution=zipf:1.2 --iodepth_batch_complete_min=32 --lat_percentiles=1 ;;
    blkperf_bssplit) blkperf --bssplit=4k/70:64k/30 ;;
    fio_bssplit) fio_job --bssplit=4k/70:64k/30 --iodepth_batch_complete_min=32 --lat_percentiles=1 ;;
  esac
}

jobs=(blkperf_rate_uniform fio_rate_linear blkperf_rate_poisson fio_rate_poisson
      blkperf_closed_qd32 blkperf_closed_qd1 fio_uniform
      blkperf_zipf fio_zipf blkperf_bssplit fio_bssplit)
declare -A results=()
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 0; r < rounds; r++)); do
  for ((i = 0; i < ${#jobs[@]}; i++)); do
    name=${jobs[$(( (i + r) % ${#jobs[@]} ))]}
    row=$(job "$name")
    results[$name]+="${row// /,} "
    echo "round $r $name $row" >&2
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo "# $(date -u +%F) $(uname -r), $(nproc) CPUs, fio $(fio --version), 4 KiB randread unless bssplit, qd $qd, cpu $cpu, tmpfs file, ${rounds} rotating rounds x ${runtime}s, rate $rate IOPS"
echo "# load average before: $load_before, after: $load_after"
echo "| job | IOPS (min-max) | MiB/s | CPU µs/IO | CPU (of one) | lat p50 / p99 | ilat p50 / p99 |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for name in "${jobs[@]}"; do
  python3 - "$name" ${results[$name]} <<'PY'
import statistics, sys
name, *rows = sys.argv[1:]
cols = list(zip(*(list(map(float, r.split(","))) for r in rows)))
v = [statistics.median(c) for c in cols]
us = lambda ns: f"{ns / 1000:.1f}us"
ilat = f"{us(v[6])} / {us(v[7])}" if v[7] else "-"
spread = f" ({min(cols[0]):.0f}-{max(cols[0]):.0f})"
print(f"| {name} | {v[0]:.0f}{spread} | {v[1] / 2**20:.1f} | {v[2]:.2f} | "
      f"{100 * v[3]:.1f}% | {us(v[4])} / {us(v[5])} | {ilat} |")
PY
done
