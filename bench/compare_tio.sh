#!/usr/bin/env bash
# blkperf beside fio's t/io_uring (the kernel's own peak-IOPS tool) and
# Debian's fio, on the paths where the engine rather than a device is the
# limit: the inline path (4 KiB buffered random reads of a 1 GiB ext4 file in
# the page cache, 1 thread and 2 threads on 2 CPUs), a zram filled with
# random data, and NOP (no device at all: IORING_OP_NOP, t/io_uring -N1).
# Every round runs every arm once, in an order rotated each round; the table
# has the median IOPS of each arm and the ratios of the medians: blkperf / t/
# io_uring, blkperf / fio, blkperf's per_cpu / shared request cache and fixed
# / plain buffers beside t/io_uring's own -B1 / -B0.
#
#   bench/compare_tio.sh                            # all targets, 5 x 5 s
#   bench/compare_tio.sh --target inline --rounds 3 --runtime 2
#   bench/compare_tio.sh --arms blkperf,tio --rounds 9   # the bars' arms only
#
# Needs root (zram, the deb-src entry). t/io_uring is built outside the
# repository by bench/lib/tio_build.sh. zram: runs only while no
# bench/fidelity.sh runs (it uses zram0 too); sets /sys/block/zram0/disksize
# to 2G only when it is 0 and resets it at exit only if it set it; fills it
# from /dev/urandom (an empty zram returns zero pages without decompressing).
# blkperf runs with latency tracking on; t/io_uring with -t0 (none).
#
# Every tool's IOPS of a run is the mean over the same window: the run's
# seconds after its first (a 1 s warm-up, unmeasured): blkperf --ramp=1s
# and --runtime of one second less, t/io_uring the mean of its per-second
# samples after the first (its I/Os in those seconds over their length), fio
# --ramp_time=1. The paired column is each round's blkperf / t/io_uring.
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=${BLKPERF_RESULTS_DB:-none}
cd "$(dirname "$0")/.."
source bench/lib/tio_build.sh
source bench/lib/zram.sh

targets=(inline zram nop)
rounds=5
runtime=5
qd=128
batch=32
cache=/var/cache/blkperf-tio
arms_only=
usage="usage: $0 [--target inline|zram|nop] [--rounds N] [--runtime S] [--qd N] [--batch N] [--cache DIR] [--arms blkperf,tio,...]"
while (($#)); do
  case "$1" in
    --target) targets=("$2"); shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --qd) qd=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --cache) cache=$2; shift 2 ;;
    --arms) arms_only=$2; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]*$ && $runtime =~ ^[1-9][0-9]*$ ]] || { echo "$usage" >&2; exit 2; }
for a in ${arms_only//,/ }; do
  [[ $a =~ ^(blkperf|blkperf_shared|blkperf_plain|fio|tio|tio_plain)$ ]] ||
    { echo "--arms: unknown arm '${a:0:40}' (blkperf, blkperf_shared, blkperf_plain, fio, tio, tio_plain)" >&2; exit 2; }
done
((runtime >= 2)) || { echo "--runtime must be at least 2 s (the first is warm-up)" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "compare_tio.sh needs root" >&2; exit 1; }
(($(nproc) >= 2)) || { echo "needs 2 CPUs for the 2-thread runs" >&2; exit 1; }

build_t_io_uring "$cache"
command -v fio >/dev/null || tools/setup.sh
# BLKPERFD names an already built (-c opt) blkperfd to use instead.
if [[ -z ${BLKPERFD:-} ]]; then
  bazel build -c opt //daemon:blkperfd >&2
fi
blkperfd=${BLKPERFD:-$(pwd)/bazel-bin/daemon/blkperfd}
work=$(mktemp -d "$(pwd)/.bench.XXXXXX")
zram_set=0
cleanup() {
  ((zram_set)) && reset_zram zram0
  rm -rf "$work"
}
trap cleanup EXIT
results=$work/results.tsv
: > "$results"

# Sets $path and $direct for target $1; non-zero: skip it (says why).
setup_target() {
  case "$1" in
    inline)
      local fs
      fs=$(findmnt -n -o FSTYPE -T "$work")
      [[ $fs == ext4 ]] || { echo "inline: $work is on $fs, not ext4; skipping" >&2; return 1; }
      path=$work/cached.dat direct=0
      dd if=/dev/urandom of="$path" bs=1M count=1024 status=none
      cat "$path" > /dev/null ;;  # into the page cache
    zram)
      if pgrep -f fidelity.sh >/dev/null; then
        echo "zram: bench/fidelity.sh is running (it uses zram0); skipping" >&2
        return 1
      fi
      [[ -e /sys/block/zram0 ]] || modprobe zram num_devices=1
      if [[ $(cat /sys/block/zram0/disksize) == 0 ]]; then
        echo 2G > /sys/block/zram0/disksize
        zram_set=1
      fi
      fill_zram /dev/zram0
      path=/dev/zram0 direct=1 ;;
    nop)
      if ! has_nop; then
        echo "nop: this blkperfd has no NOP target; t/io_uring -N1 only" >&2
      fi
      path='' direct=0 ;;
    *) echo "unknown target $1" >&2; return 1 ;;
  esac
}

# Whether this blkperfd has the NOP target (grep -q would end the pipe early,
# and pipefail would count blkperfd's SIGPIPE as no match).
has_nop() { [[ $("$blkperfd" run --helpfull 2>&1) == *--nop* ]]; }

cpus_for() { (($1 == 1)) && echo $(($(nproc) - 1)) || echo 0,1; }

# Prints the IOPS of one blkperf run with $1 threads plus flags "${@:2}".
blkperf_run() {
  local threads=$1 where=(--target="$path")
  shift
  [[ $t == nop ]] && where=(--nop)
  local direct_flag=--direct
  ((direct)) || direct_flag=--nodirect
  "$blkperfd" run "${where[@]}" --op=randread --bs=4k --qd="$qd" \
    --submit_batch="$batch" --complete_batch="$batch" --threads="$threads" \
    --cpus="$(cpus_for "$threads")" --ramp=1s --runtime="$((runtime - 1))s" \
    "$direct_flag" \
    --fixed_buffers --registered_files --latency_tracking \
    --status_interval=0 --json "$@" > "$work/b.json" 2> "$work/b.err" ||
    { echo "blkperfd failed: $* $(tail -2 "$work/b.err")" >&2; return 1; }
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"]["iops"])' "$work/b.json"
}

# Prints the IOPS of one t/io_uring run (the mean of its per-second samples
# after the first) with $1 threads plus flags "${@:2}".
tio_run() {
  local threads=$1 files=("$path")
  shift
  [[ $t == nop ]] && files=()
  taskset -c "$(cpus_for "$threads")" "$tio" -d "$qd" -s "$batch" -c "$batch" \
    -b 4096 -p0 -O"$direct" -n"$threads" -t0 -F1 -r "$runtime" "$@" \
    "${files[@]}" > "$work/t.out" 2>&1 ||
    { echo "t/io_uring failed: $*: $(tail -3 "$work/t.out")" >&2; return 1; }
  python3 - "$work/t.out" <<'PY'
import re, statistics, sys
v = [float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6}[m.group(2)]
     for m in re.finditer(r"IOPS=([0-9.]+)([KM]?),", open(sys.argv[1]).read())]
if not v:
    sys.exit("t/io_uring printed no IOPS: " + open(sys.argv[1]).read()[-400:])
if len(v) < 2:
    sys.exit("t/io_uring printed under 2 per-second samples: " + open(sys.argv[1]).read()[-400:])
print(statistics.mean(v[1:]))
PY
}

# Prints the IOPS of one fio run with $1 jobs.
fio_run() {
  fio --name=bench --filename="$path" --ioengine=io_uring --rw=randread \
    --bs=4k --iodepth="$qd" --iodepth_batch_submit="$batch" \
    --iodepth_batch_complete_min="$batch" --fixedbufs=1 --registerfiles=1 \
    --direct="$direct" --numjobs="$1" --group_reporting \
    --cpus_allowed="$(cpus_for "$1")" --cpus_allowed_policy=split \
    --time_based --ramp_time=1 --runtime="$((runtime - 1))" --norandommap \
    --randrepeat=0 \
    --output-format=json > "$work/f.json" 2> "$work/f.err" ||
    { echo "fio failed: $(tail -2 "$work/f.err")" >&2; return 1; }
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"])' "$work/f.json"
}

# One arm: "name|command...". NOP has no fio arm (fio has no IORING_OP_NOP)
# and blkperf arms only when blkperfd has --nop.
arms_for() {
  local n=$1 nop_flag=()
  if [[ $t == nop ]]; then
    nop_flag=(-N1)
    if has_nop; then
      echo "blkperf|blkperf_run $n"
      echo "blkperf_shared|blkperf_run $n --request_cache=shared"
      echo "blkperf_plain|blkperf_run $n --nofixed_buffers"
    fi
  else
    echo "blkperf|blkperf_run $n"
    echo "blkperf_shared|blkperf_run $n --request_cache=shared"
    echo "blkperf_plain|blkperf_run $n --nofixed_buffers"
    echo "fio|fio_run $n"
  fi
  echo "tio|tio_run $n ${nop_flag[*]} -B1"
  echo "tio_plain|tio_run $n ${nop_flag[*]} -B0"
}

echo "# $(date -u '+%F %H:%M') UTC, $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)," \
  "fio $(fio --version), t/io_uring from $(basename "$(dirname "$(dirname "$tio")")"), qd=$qd batch=$batch/$batch, $rounds rounds x ${runtime}s"
for t in "${targets[@]}"; do
  setup_target "$t" || continue
  thread_counts=(1)
  [[ $t == inline ]] && thread_counts=(1 2)
  for n in "${thread_counts[@]}"; do
    mapfile -t arms < <(arms_for "$n")
    if [[ -n $arms_only ]]; then
      # Only the named arms (--arms): the other columns print n/a.
      mapfile -t arms < <(printf '%s\n' "${arms[@]}" | grep -E "^(${arms_only//,/|})\|")
    fi
    for ((r = 0; r < rounds; r++)); do
      for ((k = 0; k < ${#arms[@]}; k++)); do
        arm=${arms[$(((k + r) % ${#arms[@]}))]}
        iops=$(${arm#*|}) || exit 1
        printf '%s\t%s\t%s\t%s\n' "$t" "$n" "${arm%%|*}" "$iops" >> "$results"
        echo "  $t x$n round $r: ${arm%%|*} $iops" >&2
      done
    done
  done
  if [[ $t == zram ]] && ((zram_set)); then reset_zram zram0; zram_set=0; fi
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$results" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    t, n, arm, iops = line.split("\t")
    runs[(t, int(n), arm)].append(float(iops))
med = {k: statistics.median(v) for k, v in runs.items()}
def ratio(t, n, a, b):
    x, y = med.get((t, n, a)), med.get((t, n, b))
    return f"{x / y:.3f}" if x and y else "n/a"
def k(t, n, a):
    v = med.get((t, n, a))
    return f"{v / 1e3:.1f}k" if v else "n/a"
def paired(t, n):
    # Each round's blkperf / t/io_uring (runs are appended in round order).
    b, r = runs.get((t, n, "blkperf"), []), runs.get((t, n, "tio"), [])
    p = sorted(x / y for x, y in zip(b, r))
    return f"{p[0]:.3f}-{p[-1]:.3f} ({sum(x >= 1 for x in p)}/{len(p)} >= 1)" if p else "n/a"
print("| target | threads | blkperf | t/io_uring | fio | blkperf/tio | paired rounds "
      "| blkperf/fio | per_cpu/shared | blkperf fixed/plain | tio -B1/-B0 |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for t, n in sorted({(t, n) for t, n, _ in runs}):
    print(f"| {t} | {n} | {k(t, n, 'blkperf')} | {k(t, n, 'tio')} | {k(t, n, 'fio')} "
          f"| {ratio(t, n, 'blkperf', 'tio')} | {paired(t, n)} | {ratio(t, n, 'blkperf', 'fio')} "
          f"| {ratio(t, n, 'blkperf', 'blkperf_shared')} | {ratio(t, n, 'blkperf', 'blkperf_plain')} "
          f"| {ratio(t, n, 'tio', 'tio_plain')} |")
PY
