#!/usr/bin/env bash
# blkperf beside fio's t/io_uring on one shared CPU: both tools run at the
# same time on --cpu, each in cgroups of its own with an equal share of the
# CPU (bench/lib/arm_cgroups.sh), so whatever slows the CPU slows both
# alike. The ratio is one of I/Os per CPU-second, which is the ratio of IOPS
# when each runs alone and CPU-bound: the paths here are the inline path
# (4 KiB buffered random reads of a 1 GiB page-cached ext4 file, which
# complete inline) and NOP, one thread each. (Not zram: there the tools'
# io-wq workers meet in the driver; see bench/fidelity.sh.)
#
#   bench/compare_tio_shared.sh                       # inline and nop, 9 x 4 s
#   bench/compare_tio_shared.sh --target nop --rounds 5
#   bench/compare_tio_shared.sh --blkperf-flags --nolatency_tracking
#
# Windows: t/io_uring runs --runtime + 2 s and its IOPS is the mean of its
# per-second samples from the second to the (runtime + 1)th; blkperf starts
# with it (--ramp=1s, latency tracking on) and is stopped (SIGTERM; its report
# covers ramp end to stop) half a second after that window ends, so both
# windows cover only time when both run. Flags as in bench/compare_tio.sh:
# QD128, batch 32/32, fixed buffers, registered files. Needs root.
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=${BLKPERF_RESULTS_DB:-none}
cd "$(dirname "$0")/.."
source bench/lib/tio_build.sh
source bench/lib/arm_cgroups.sh

targets=(inline nop)
rounds=9
runtime=4
cpu=$(($(nproc) - 1))
cache=/var/cache/blkperf-tio
extra=()
usage="usage: $0 [--target inline|nop] [--rounds N] [--runtime S>=2] [--cpu C] [--cache DIR] [--blkperf-flags 'FLAGS']"
while (($#)); do
  case "$1" in
    --target) targets=("$2"); shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    --cache) cache=$2; shift 2 ;;
    --blkperf-flags) read -r -a extra <<< "$2"; shift 2 ;;  # after the defaults
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]*$ && $runtime =~ ^[1-9][0-9]*$ && $cpu =~ ^[0-9]+$ ]] ||
  { echo "$usage" >&2; exit 2; }
((runtime >= 2)) || { echo "--runtime must be at least 2 s" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "compare_tio_shared.sh needs root (cgroups)" >&2; exit 1; }

build_t_io_uring "$cache"
# BLKPERFD names an already built (-c opt) blkperfd to use instead.
[[ -n ${BLKPERFD:-} ]] || bazel build -c opt //daemon:blkperfd >&2
blkperfd=${BLKPERFD:-$(pwd)/bazel-bin/daemon/blkperfd}
work=$(mktemp -d "$(pwd)/.bench.XXXXXX")
cleanup() {
  arm_cgroups_remove
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
arm_cgroup_make blkperf "$cpu"
arm_cgroup_make tio "$cpu"
results=$work/results.tsv
: > "$results"

# One round on target $1: prints "blkperf_iops tio_iops".
shared_round() {
  local where=(--target="$path" --nodirect) tio_where=(-O0 "$path") pb pt sb=0 st=0
  [[ $1 == nop ]] && where=(--nop) tio_where=(-N1)
  arm_cgroup_spawn blkperf "$blkperfd" run "${where[@]}" --op=randread \
    --bs=4k --qd=128 --submit_batch=32 --complete_batch=32 --cpus="$cpu" \
    --ramp=1s --runtime=1h --fixed_buffers --registered_files \
    --latency_tracking --status_interval=0 --json "${extra[@]}" > "$work/b.json" 2> "$work/b.err"
  pb=$arm_cgroup_pid
  arm_cgroup_spawn tio taskset -c "$cpu" "$tio" -d128 -s32 -c32 -b4096 -p0 \
    -n1 -t0 -F1 -B1 -r "$((runtime + 2))" "${tio_where[@]}" > "$work/t.out" 2>&1
  pt=$arm_cgroup_pid
  sleep "$((runtime + 1)).5"
  kill -TERM "$pb" 2> /dev/null || true
  wait "$pb" || sb=$?
  wait "$pt" || st=$?
  ((sb == 0)) || { echo "blkperfd failed: $(tail -n 2 "$work/b.err")" >&2; return 1; }
  ((st == 0)) || { echo "t/io_uring failed: $(tail -n 3 "$work/t.out")" >&2; return 1; }
  python3 - "$work/b.json" "$work/t.out" "$runtime" <<'PY'
import json, re, statistics, sys
b = json.load(open(sys.argv[1]))["total"]["iops"]
v = [float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6}[m.group(2)]
     for m in re.finditer(r"IOPS=([0-9.]+)([KM]?),", open(sys.argv[2]).read())]
n = int(sys.argv[3])
if len(v) < n + 1:
    sys.exit(f"t/io_uring printed {len(v)} per-second samples, wanted {n + 1}")
print(b, statistics.mean(v[1:n + 1]))
PY
}

echo "# $(date -u '+%F %H:%M') UTC, $(uname -r), $(nproc) CPUs, cpu $cpu, load average $(cut -d' ' -f1-3 /proc/loadavg), t/io_uring from $(basename "$(dirname "$(dirname "$tio")")"), qd=128 batch=32/32, $rounds rounds, windows of ${runtime}s, blkperf flags added: ${extra[*]:-none}"
for t in "${targets[@]}"; do
  case "$t" in
    inline)
      path=$work/cached.dat
      dd if=/dev/urandom of="$path" bs=1M count=1024 status=none
      cat "$path" > /dev/null ;;
    nop) path='' ;;
    *) echo "unknown target $t" >&2; exit 2 ;;
  esac
  for ((r = 0; r < rounds; r++)); do
    read -r b k < <(shared_round "$t") || exit 1
    printf '%s\t%s\t%s\n' "$t" "$b" "$k" >> "$results"
    echo "  $t round $r: blkperf $b t/io_uring $k" >&2
  done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$results" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    t, b, k = line.split("\t")
    rows[t].append((float(b), float(k)))
print("| target | blkperf | t/io_uring | blkperf/tio (median of rounds) | rounds | rounds >= 1 |")
print("|---|---|---|---|---|---|")
for t, v in rows.items():
    r = sorted(b / k for b, k in v)
    print(f"| {t} | {statistics.median(b for b, _ in v) / 1e3:.1f}k "
          f"| {statistics.median(k for _, k in v) / 1e3:.1f}k | **{statistics.median(r):.3f}** "
          f"| {r[0]:.3f}-{r[-1]:.3f} | {sum(x >= 1 for x in r)}/{len(r)} |")
PY
