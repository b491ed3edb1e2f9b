#!/usr/bin/env bash
# One fio job file, run by Debian's fio and by `blkperfd run --fio_job`
# (issue 40: the same job, side by side): interleaved rounds (the order
# alternates each round), each tool's IOPS read from the same key of its
# fio JSON (jobs[0].read.iops), then per target each tool's median, the
# ratio of the medians (blkperf / fio) and bench/lib/ratio_summary.py's
# table (median of the rounds' ratios with its 95 % interval).
#
#   bench/fio_job_iops.sh                          # file (page cache) and file (O_DIRECT)
#   bench/fio_job_iops.sh --rounds 11 --runtime 5 --target cached
#   bench/fio_job_iops.sh --show-job               # print the job file and exit
#
# Targets: "cached": a 1 GiB file read through the page cache (direct=0:
# CPU-bound, each tool's own cost per I/O shows); "direct": the same file
# with direct=1 (the disk's pace). Both tools read only: randread, 4 KiB,
# iodepth 32, batches of 8, io_uring, one job pinned to one CPU,
# norandommap (blkperf draws offsets with replacement), time_based.
# The job file is imported exactly (docs/fio.md) or the script stops.
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=${BLKPERF_RESULTS_DB:-none}
cd "$(dirname "$0")/.."

targets=(cached direct)
rounds=9
runtime=5
qd=32
batch=8
cpu=$(( $(nproc) - 1 ))
show_job=0
while (($#)); do
  case "$1" in
    --target) targets=("$2"); shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --qd) qd=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    --show-job) show_job=1; shift ;;
    *) echo "usage: $0 [--target cached|direct] [--rounds N] [--runtime S] [--qd N] [--batch N] [--cpu C] [--show-job]" >&2; exit 2 ;;
  esac
done

# job_file PATH DIRECT: the one job both tools run.
job_file() {
  cat <<EOF
[global]
ioengine=io_uring
filename=$1
rw=randread
bs=4k
iodepth=$qd
iodepth_batch_submit=$batch
iodepth_batch_complete_min=$batch
direct=$2
cpus_allowed=$cpu
time_based=1
runtime=$runtime
norandommap=1
randrepeat=0
group_reporting=1

[randread]
EOF
}
if ((show_job)); then job_file /path/to/target 0; exit 0; fi

command -v fio >/dev/null || { echo "fio missing: tools/setup.sh installs it" >&2; exit 1; }
bazel build -c opt //daemon:blkperfd >&2
blkperfd=$(pwd)/bazel-bin/daemon/blkperfd
work=$(mktemp -d "$(pwd)/.bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
target=$work/target.dat
"$blkperfd" run --target="$target" --create_size=1G --allow_write \
  --io_count=1 --status_interval=0 > /dev/null
# Fill it, so that neither tool reads holes.
dd if=/dev/urandom of="$target" bs=1M count=1024 conv=notrunc status=none

iops_of() {  # fio JSON file
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"])' "$1"
}
run_fio() {
  fio "$work/job.fio" --output-format=json > "$work/fio.json"
  iops_of "$work/fio.json"
}
run_blkperf() {
  "$blkperfd" run --fio_job="$work/job.fio" --status_interval=0 \
    --output_format=fio-json > "$work/blkperf.json" 2> "$work/blkperf.err" \
    || { cat "$work/blkperf.err" >&2; exit 1; }
  iops_of "$work/blkperf.json"
}

results=$work/results.tsv
: > "$results"
echo "# $(date -u '+%F %H:%M') UTC, $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $(fio --version), blkperf $(git rev-parse --short HEAD): randread 4k iodepth=$qd batch=$batch/$batch cpu=$cpu, $rounds interleaved rounds x ${runtime}s"
echo "# command: bench/fio_job_iops.sh --target ${targets[*]} --rounds $rounds --runtime $runtime --qd $qd --batch $batch --cpu $cpu"
for t in "${targets[@]}"; do
  case "$t" in
    cached) direct=0 ;;
    direct) direct=1 ;;
    *) echo "unknown target $t" >&2; exit 2 ;;
  esac
  job_file "$target" "$direct" > "$work/job.fio"
  # The job must import exactly (a refusal names file, line and option).
  "$blkperfd" run --fio_job="$work/job.fio" --runtime=1s --status_interval=0 \
    --output_format=fio-json > /dev/null
  cat "$target" > /dev/null  # the page cache holds the file for both tools
  for ((r = 0; r < rounds; r++)); do
    if ((r % 2 == 0)); then
      b=$(run_blkperf); f=$(run_fio)
    else
      f=$(run_fio); b=$(run_blkperf)
    fi
    printf '%s\t%s\t%s\n' "$t" "$b" "$f" >> "$results"
    echo "  $t round $r: blkperf $b fio $f" >&2
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$results" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    t, b, f = line.rstrip("\n").split("\t")
    rows[t].append((float(b), float(f)))
for t, pairs in rows.items():
    mb = statistics.median(b for b, _ in pairs)
    mf = statistics.median(f for _, f in pairs)
    print(f"{t}: blkperf median {mb / 1e3:.1f}k IOPS, fio median {mf / 1e3:.1f}k IOPS, ratio of medians {mb / mf:.3f}")
PY
python3 bench/lib/ratio_summary.py "$results" "blkperf --fio_job" "fio"
