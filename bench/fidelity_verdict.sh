#!/usr/bin/env bash
# Fixed vs plain buffers on a filled zram: does the product's experiment
# verdict agree in sign and size with t/io_uring's -B1 / -B0 measured side
# by side? (issue 39's known effect; bench/fidelity.sh --verdict runs this.)
#
#   bench/fidelity_verdict.sh --quick            # 128k, about 1.5 minutes
#   bench/fidelity_verdict.sh                    # 4k and 128k, about 6 minutes
#   bench/fidelity_verdict.sh --bs 1m --rounds 20 --round 1s --tio_rounds 12 --runtime 4
#   BLKPERFD=bazel-out/k8-opt/bin/daemon/blkperfd bench/fidelity_verdict.sh --quick --label quiet
#
# For each block size, on /dev/zram0 filled with random data (an empty zram
# returns zero pages without decompressing), one CPU (--cpu, default the
# last), both tools in one cpuset cgroup of that CPU (so zram's io-wq
# workers run there too):
#   - blkperf's arms through the product, one call:
#       blkperfd run --target=/dev/zram0 --op=randread --bs=BS --qd --submit_batch
#         --complete_batch --cpus=CPU --nolatency_tracking --buffer_layout=per_slot
#         --registered_files --huge_pages=off --vary=fixed_buffers=false,true
#         --rounds=N --round=D --ramp=R --experiment_seed=S --json
#     (plain is the baseline, so its ratio is fixed / plain, as -B1 / -B0);
#   - t/io_uring's arms (-B0 -F1 and -B1 -F1, -t0 -p0 -O1 -n1) in
#     --tio_rounds interleaved rounds, AB then BA (counterbalanced), half
#     of them before the product's call and half after, so drift falls on
#     both tools alike; each run's IOPS is the mean of its per-second
#     samples after the first (warm-up), over --runtime seconds.
# Queue depth / batch as bench/fidelity.sh: 128 / 32 below 128 KiB, 32 / 8
# from 128 KiB. blkperf --nolatency_tracking matches t/io_uring's -t0.
#
# Prints a markdown table (bench/lib/verdict_agreement.py says how each
# column is computed): blkperf's ratio, interval, verdict and guardrails as
# the product reports them; t/io_uring's ratio of medians, its interval and
# verdict by the same rule (margin 0.02); and the agreement:
#   sign agrees: both ratios on the same side of 1 (or neither tool's
#     interval excludes 1);
#   size within 0.03: the 95 % interval of the difference of the two
#     tools' ratios of medians (each tool's rounds resampled on their own)
#     lies within +-0.03, bench/fidelity.sh's bar: yes; wholly outside: NO;
#     else open (more rounds would tell).
#
# Needs root. zram0 is taken under flock -x /tmp/blkperf-zram.lock, set to
# --zram_size, filled, and reset at exit; the script refuses a zram0 that
# is already set up. t/io_uring is built outside the repository
# (bench/lib/tio_build.sh). The raw files stay in --keep DIR if given.
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=${BLKPERF_RESULTS_DB:-none}
cd "$(dirname "$0")/.."

sizes=4k,128k rounds=20 round=1s ramp=200ms tio_rounds=12 runtime=4
cpu=$(($(nproc) - 1)) zram_size=1G seed=1 label='' keep=''
cache=${TIO_CACHE:-/var/cache/blkperf-tio}
usage="usage: $0 [--quick] [--bs 4k,128k] [--rounds N] [--round D] [--ramp D] [--tio_rounds N (even)] [--runtime S>=3] [--cpu C] [--zram_size 1G] [--experiment_seed S] [--label TEXT] [--keep DIR]"
while (($#)); do
  case "$1" in
    --quick) sizes=128k rounds=10 round=500ms tio_rounds=8 runtime=3; shift ;;
    --bs) sizes=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --round) round=$2; shift 2 ;;
    --ramp) ramp=$2; shift 2 ;;
    --tio_rounds) tio_rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    --zram_size) zram_size=$2; shift 2 ;;
    --experiment_seed) seed=$2; shift 2 ;;
    --label) label=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]*$ && $tio_rounds =~ ^[1-9][0-9]*$ && $runtime =~ ^[1-9][0-9]*$ &&
  $cpu =~ ^[0-9]+$ && $seed =~ ^[0-9]+$ ]] || { echo "$usage" >&2; exit 2; }
((tio_rounds % 2 == 0)) || { echo "--tio_rounds must be even (AB and BA rounds in pairs), not $tio_rounds" >&2; exit 2; }
((runtime >= 3)) || { echo "--runtime must be at least 3 s (t/io_uring's first per-second sample is warm-up)" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "$0 needs root (zram, cgroups)" >&2; exit 1; }

source bench/lib/tio_build.sh
source bench/lib/zram.sh
source bench/lib/arm_cgroups.sh
build_t_io_uring "$cache"
if [[ -z ${BLKPERFD:-} ]]; then
  bazel build -c opt //daemon:blkperfd >&2
  BLKPERFD=bazel-bin/daemon/blkperfd
fi
work=$(mktemp -d /tmp/blkperf-fidelity-verdict.XXXXXX)
cp "$BLKPERFD" "$work/blkperfd"  # a later bazel build may repoint bazel-bin
cleanup() {
  arm_cgroups_remove
  zram_give_back
  if [[ -n $keep ]]; then { mkdir -p "$keep"; cp "$work"/*.json "$work"/*.tsv "$keep"/; } 2> /dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
arm_cgroup_make X "$cpu"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
zram_take "$zram_size"

# Writes one t/io_uring run's IOPS (mean of its per-second samples after
# the first) to stdout; $1 = -B0 or -B1.
tio_run() {
  arm_cgroup_exec X taskset -c "$cpu" "$tio" -d "$qd" -s "$batch" -c "$batch" -b "$bytes" \
    -p0 -O1 -n1 -t0 -r "$runtime" "$1" -F1 /dev/zram0 > "$work/tio.log" 2>&1 ||
    { echo "t/io_uring $1 failed: $(tail -n 3 "$work/tio.log")" >&2; return 1; }
  python3 - "$work/tio.log" <<'PY'
import re, statistics, sys
text = open(sys.argv[1]).read()
v = [float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6}[m.group(2)]
     for m in re.finditer(r"IOPS=([0-9.]+)([KM]?),", text)][1:]
if not v:
    sys.exit("t/io_uring printed too few per-second samples: " + text[-400:])
print(statistics.mean(v))
PY
}
# t/io_uring rounds $1 to $2 - 1 of block size $bs, appended to $tio_tsv:
# A (-B0, the baseline) and B (-B1), in the order AB in even rounds, BA in
# odd ones.
tio_rounds_run() {
  local r a b
  for ((r = $1; r < $2; r++)); do
    if ((r % 2)); then b=$(tio_run -B1) && a=$(tio_run -B0)
    else a=$(tio_run -B0) && b=$(tio_run -B1); fi || return 1
    printf '%s\tA\t%s\n%s\tB\t%s\n' "$r" "$a" "$r" "$b" >> "$tio_tsv"
  done
}

table=$work/table.md
: > "$table"
IFS=, read -r -a size_list <<< "$sizes"
for bs in "${size_list[@]}"; do
  bytes=$(numfmt --from=iec "${bs^^}")
  if ((bytes < 131072)); then qd=128 batch=32; else qd=32 batch=8; fi
  tio_tsv=$work/tio.$bs.tsv
  : > "$tio_tsv"
  tio_rounds_run 0 $((tio_rounds / 2))
  echo "  $bs: t/io_uring first half done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
  arm_cgroup_exec X "$work/blkperfd" run --target=/dev/zram0 --op=randread --bs="$bs" \
    --qd="$qd" --submit_batch="$batch" --complete_batch="$batch" --cpus="$cpu" --direct \
    --nolatency_tracking --buffer_layout=per_slot --registered_files --huge_pages=off \
    --vary=fixed_buffers=false,true --rounds="$rounds" --round="$round" --ramp="$ramp" \
    --experiment_seed="$seed" --status_interval=0 --json \
    > "$work/blkperf.$bs.json" 2> "$work/blkperf.$bs.err" ||
    { echo "blkperfd run --vary failed: $(tail -n 3 "$work/blkperf.$bs.err")" >&2; exit 1; }
  echo "  $bs: blkperf's experiment done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
  tio_rounds_run $((tio_rounds / 2)) "$tio_rounds"
  header=()
  [[ -s $table ]] || header=(--header)
  python3 bench/lib/verdict_agreement.py "${header[@]}" --label "$bs" \
    --blkperf "$work/blkperf.$bs.json" --tio "$tio_tsv" >> "$table"
done

echo "# fixed vs plain buffers (fixed / plain IOPS) on a filled zram (${zram_size}), blkperf through blkperfd run --vary beside t/io_uring -B1 / -B0"
echo "# $(date -u '+%F %H:%M') UTC${label:+, $label}, $(uname -r), $(nproc) CPUs, cpu $cpu; load before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# command: bench/fidelity_verdict.sh --bs $sizes --rounds $rounds --round $round --ramp $ramp --tio_rounds $tio_rounds --runtime $runtime --cpu $cpu --zram_size $zram_size --experiment_seed $seed"
echo "# blkperf: the product's ratio (median of per-round ratios), interval and verdict (margin 0.02); t/io_uring: ratio of medians over ${tio_rounds} interleaved rounds (half before blkperf's call, half after), expanded percentile-bootstrap interval, same verdict rule"
echo "# sign agrees: same side of 1 (or neither interval excludes 1); size within 0.03: the 95% interval of the difference of the ratios of medians within +-0.03 (yes), wholly outside (NO), else open"
cat "$table"
