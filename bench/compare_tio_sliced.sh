#!/usr/bin/env bash
# blkperf beside fio's t/io_uring in alternating turns: both tools' processes
# run for the whole round, each in cgroups of its own, and
# bench/lib/sliced_pair.py lets one run at a time in turns of --slice
# seconds (freezing the other's cgroup), so each runs alone on its CPUs
# (with its io-wq workers, which live in its cgroup) and both see the
# machine of the same moments. This VM's speed moves 10-30 % within
# minutes: tools run back to back (bench/compare_tio.sh) see different
# machines; tools sharing a CPU at once (bench/compare_tio_shared.sh)
# evict each other's caches every scheduler slice. Each tool's IOPS is
# what it did in its measured window per second it ran in it (blkperf: its
# report's window after --ramp=1s; t/io_uring: its per-second samples
# after its first 2 s, timestamped as printed). The summary gives per
# target the median of the rounds' ratios and the 95 % interval of
# that median (order statistics, none under 6 rounds:
# bench/lib/ratio_summary.py). The paths are those of issue 11's bars:
#   inline   4 KiB buffered random reads of a 1 GiB page-cached ext4 file
#            (complete inline), 1 thread
#   inline2  the same, 2 threads on 2 CPUs (t/io_uring -n2)
#   zram     4 KiB O_DIRECT random reads of a filled zram (every I/O punted
#            to an io-wq worker)
#   nop      IORING_OP_NOP (blkperfd --nop, t/io_uring -N1)
# QD128, batch 32/32, fixed buffers, registered files; blkperf with latency
# tracking on and its default buffer layout (auto: the slots registered as
# one region; t/io_uring registers one buffer per slot, which blkperf does
# with --blkperf-flags --buffer_layout=per_slot), t/io_uring -t0.
#
#   bench/compare_tio_sliced.sh                          # all, 9 rounds x 4 s
#   bench/compare_tio_sliced.sh --target nop --rounds 5
#   bench/compare_tio_sliced.sh --calibrate              # t/io_uring vs itself
#   bench/compare_tio_sliced.sh --baseline /tmp/blkperfd.old  # engine A/B
#   bench/compare_tio_sliced.sh --blkperf-flags --nolatency_tracking
#   bench/compare_tio_sliced.sh --target nop --profile /tmp/prof  # + perf
#
# --profile DIR samples the target's CPUs with `perf record -k
# CLOCK_MONOTONIC -e cpu-clock` for all of a target's rounds
# (DIR/<target>.data, each round's log DIR/<target>.round<r>.json) and
# prints where each arm's CPU went per I/O: a sample of an arm's own
# process counts for it, inside that arm's measured window only (the
# window its IOPS come from), also where it fell in the other arm's turn
# (a freeze takes a moment to stop a process: about 0.5 % of each arm's
# turns on zram are the other's io-wq worker finishing its queue), and the
# idle moments and other processes of an arm's turns count for it as
# "anything else"; so the columns of an arm sum to its CPU per I/O and the
# totals' ratio is about the inverse of the IOPS ratio over those rounds.
# Both arms ran in the same stretch of time, in turns, so the VM's drift
# does not tell them apart. Samples are split into the submitter's
# kernel and user time (blkperf-sub*; t/io_uring's threads, all named
# io_uring, its main thread included), its io-wq workers, and anything else
# (blkperfd's control threads; idle moments and other processes in the
# arm's turns); the user column includes the samples a paravirtual guest
# delivers on the first user instruction after a syscall (kernel time with
# interrupts off), so compare it, not read it as user work alone. Works
# with --calibrate and --baseline too (arms are told apart by process).
# --calibrate runs t/io_uring against an identical t/io_uring instead of
# blkperf: the pairing's own noise and bias (the ratio should be 1.000).
# --baseline PATH runs blkperf against another blkperfd build (PATH, built
# -c opt) instead of t/io_uring, with the same flags: what an engine change
# does, measured as the bars are.
# Needs root (cgroups, zram). zram0: its disksize is set to 2G only when it
# is 0 (reset at exit only then); not while bench/fidelity.sh runs.
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=${BLKPERF_RESULTS_DB:-none}
cd "$(dirname "$0")/.."
source bench/lib/tio_build.sh
source bench/lib/arm_cgroups.sh
source bench/lib/zram.sh

targets=(inline inline2 zram nop)
rounds=9
runtime=4
slice=0.05
cache=/var/cache/blkperf-tio
calibrate=0
baseline=''
extra=()
profile=''
usage="usage: $0 [--target inline|inline2|zram|nop] [--rounds N] [--runtime S>=3] [--slice S] [--cache DIR] [--calibrate | --baseline BLKPERFD] [--blkperf-flags 'FLAGS'] [--profile DIR]"
while (($#)); do
  case "$1" in
    --target) targets=("$2"); shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --slice) slice=$2; shift 2 ;;
    --cache) cache=$2; shift 2 ;;
    --calibrate) calibrate=1; shift ;;
    --baseline) baseline=$2; shift 2 ;;
    --blkperf-flags) read -r -a extra <<< "$2"; shift 2 ;;  # after the defaults
    --profile) profile=$2; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]*$ && $runtime =~ ^[1-9][0-9]*$ ]] || { echo "$usage" >&2; exit 2; }
[[ $slice =~ ^0?\.[0-9]+$|^[1-9][0-9]*(\.[0-9]+)?$ ]] || { echo "--slice must be seconds, not '${slice:0:40}'" >&2; exit 2; }
[[ -z $baseline ]] || ! ((calibrate)) || { echo "--calibrate and --baseline: one or the other" >&2; exit 2; }
[[ -z $baseline || -x $baseline ]] || { echo "--baseline: '${baseline:0:80}' is not an executable blkperfd" >&2; exit 2; }
((runtime >= 3)) || { echo "--runtime must be at least 3 s (t/io_uring's first 2 s are warm-up)" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "compare_tio_sliced.sh needs root (cgroups)" >&2; exit 1; }
(($(nproc) >= 2)) || { echo "needs 2 CPUs (inline2, and a CPU for the controller)" >&2; exit 1; }

# Each arm's tool (sliced_pair.py's name for how its IOPS are read) and
# what the tables call it.
tool_a=blkperf name_a=blkperf tool_b=tio name_b=t/io_uring
((calibrate)) && tool_a=tio name_a='t/io_uring (A)'
[[ -n $baseline ]] && tool_b=blkperf name_b='baseline blkperf'

build_t_io_uring "$cache"
# BLKPERFD names an already built (-c opt) blkperfd to use instead.
[[ -n ${BLKPERFD:-} ]] || bazel build -c opt //daemon:blkperfd >&2
blkperfd=${BLKPERFD:-$(pwd)/bazel-bin/daemon/blkperfd}
work=$(mktemp -d "$(pwd)/.bench.XXXXXX")
zram_set=0
cleanup() {
  arm_cgroups_remove
  ((zram_set)) && reset_zram zram0
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
last_cpu=$(($(nproc) - 1))
results=$work/results.tsv
: > "$results"

# Sets $path, $direct, $threads and $cpus for target $1.
setup_target() {
  threads=1 cpus=$last_cpu
  case "$1" in
    inline|inline2)
      [[ $1 == inline2 ]] && threads=2 cpus=0-1
      path=$work/cached.dat direct=0
      if [[ ! -f $path ]]; then
        dd if=/dev/urandom of="$path" bs=1M count=1024 status=none
      fi
      cat "$path" > /dev/null ;;  # into the page cache
    zram)
      ! pgrep -f fidelity.sh > /dev/null ||
        { echo "zram: bench/fidelity.sh is running (it uses zram0)" >&2; return 1; }
      [[ -e /sys/block/zram0 ]] || modprobe zram num_devices=1
      if [[ $(cat /sys/block/zram0/disksize) == 0 ]]; then
        echo 2G > /sys/block/zram0/disksize
        zram_set=1
      fi
      fill_zram /dev/zram0
      path=/dev/zram0 direct=1 ;;
    nop) path='' direct=0 ;;
    *) echo "unknown target $1" >&2; return 1 ;;
  esac
}

# blkperf_command [BLKPERFD]: the default is the blkperfd under test.
blkperf_command() {
  local binary=${1:-$blkperfd} where="--target=$path" direct_flag=--direct
  [[ $t == nop ]] && where=--nop
  ((direct)) || direct_flag=--nodirect
  echo "$binary run $where --op=randread --bs=4k --qd=128 --submit_batch=32" \
    "--complete_batch=32 --threads=$threads --cpus=${cpus/-/,} --ramp=1s" \
    "--runtime=1h $direct_flag --fixed_buffers --registered_files" \
    "--latency_tracking --status_interval=0 --json ${extra[*]}"
}
tio_command() {
  local where="-O$direct $path"
  [[ $t == nop ]] && where=-N1
  # Stopped by SIGINT long before its -r.
  echo "stdbuf -oL taskset -c $cpus $tio -d128 -s32 -c32 -b4096 -p0" \
    "-n$threads -t0 -F1 -B1 -r $((2 * runtime + 30)) $where"
}

# One round: arm A is blkperf (t/io_uring with --calibrate), arm B
# t/io_uring (the baseline blkperfd with --baseline); A runs the first turn
# in even rounds, B in odd ones. Prints "A_iops B_iops".
sliced_round() {
  local a b first second
  a=$(blkperf_command) b=$(tio_command)
  ((calibrate)) && a=$b
  [[ -n $baseline ]] && b=$(blkperf_command "$baseline")
  first=A second=B
  ((r % 2)) && first=B second=A
  local -A command=([A]=$a [B]=$b)
  python3 bench/lib/sliced_pair.py run --slice "$slice" \
    --seconds "$((2 * runtime))" --stop INT --controller_cpu 0 \
    --out "$work/run.json" \
    --arm "$first" "${arm_cgroup_dirs[$first]}" "${arm_cgroup_freezer[$first]}" "${command[$first]}" \
    --arm "$second" "${arm_cgroup_dirs[$second]}" "${arm_cgroup_freezer[$second]}" "${command[$second]}" ||
    { echo "round failed: $(tail -n 3 "$work/run.json".A.err "$work/run.json".B.err)" >&2; return 1; }
  [[ -z $profile ]] || cp "$work/run.json" "$profile/$t.round$r.json"
  echo "$(python3 bench/lib/sliced_pair.py iops --tool "$tool_a" --arm A "$work/run.json" | cut -d' ' -f1)" \
    "$(python3 bench/lib/sliced_pair.py iops --tool "$tool_b" --arm B "$work/run.json" | cut -d' ' -f1)"
}

# Where each arm's CPU went in target $1's rounds, per I/O: the samples of
# its own process (told apart by pid) inside its measured window (the one
# its IOPS come from: start-up and warm-up left out), in either arm's
# turns, and the idle moments and other processes of its own turns, over
# the I/Os of that window, by the submitter's kernel and user time, its
# io-wq workers, and anything else (idle, its control threads, other
# processes); arm B's total = 100 (sliced_pair.py profile).
print_profile() {
  perf script -i "$profile/$1.data" -F comm,pid,tid,time,ip,dso --ns \
    > "$profile/$1.script" 2> /dev/null
  echo
  echo "where the CPU went, $1 (samples per I/O in the measured windows, $name_b's total = 100):"
  echo "| arm | samples | submitter, kernel | submitter, user (incl. syscall-return samples) | io-wq workers | anything else (idle incl.) | total |"
  echo "|---|---|---|---|---|---|---|"
  python3 bench/lib/sliced_pair.py profile --script "$profile/$1.script" \
    --tool_a "$tool_a" --tool_b "$tool_b" "$profile/$1".round*.json |
    while read -r arm n k u w e total; do
      local name=$name_a
      [[ $arm == B ]] && name=$name_b
      echo "| $name | $n | $k | $u | $w | $e | $total |"
    done
}

what="blkperf (latency tracking on, flags added: ${extra[*]:-none})"
((calibrate)) && what="t/io_uring vs itself (calibration)"
[[ -n $baseline ]] && what+=" vs the baseline blkperfd $baseline (sha256 $(sha256sum "$baseline" | cut -c1-12))"
echo "# $(date -u '+%F %H:%M') UTC, $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), t/io_uring from $(basename "$(dirname "$(dirname "$tio")")"), qd=128 batch=32/32, $rounds rounds of 2 x ${runtime}s in turns of ${slice}s: $what"
echo "# command: bench/compare_tio_sliced.sh --target ${targets[*]} --rounds $rounds --runtime $runtime --slice $slice$( ((calibrate)) && echo ' --calibrate')${baseline:+ --baseline $baseline}${extra[*]:+ --blkperf-flags '${extra[*]}'}"
for t in "${targets[@]}"; do
  setup_target "$t" || continue
  arm_cgroup_make A "$cpus"
  arm_cgroup_make B "$cpus"
  perf_pid=''
  if [[ -n $profile ]]; then
    mkdir -p "$profile"
    rm -f "$profile/$t".round*.json
    perf record -q -k CLOCK_MONOTONIC -e cpu-clock -F 4000 -C "$cpus" -o "$profile/$t.data" -- sleep 86400 2> /dev/null &
    perf_pid=$!
  fi
  for ((r = 0; r < rounds; r++)); do
    read -r a b < <(sliced_round) || exit 1
    [[ -n $a && -n $b ]] || exit 1
    printf '%s\t%s\t%s\n' "$t" "$a" "$b" >> "$results"
    echo "  $t round $r: A $a B $b" >&2
  done
  if [[ -n $perf_pid ]]; then
    pkill -INT -P "$perf_pid" sleep || true
    wait "$perf_pid" || true
    print_profile "$t"
  fi
  arm_cgroups_remove
  if [[ $t == zram ]] && ((zram_set)); then reset_zram zram0; zram_set=0; fi
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 bench/lib/ratio_summary.py "$results" "$name_a" "$name_b"
