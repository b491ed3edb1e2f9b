#!/usr/bin/env bash
# Experiment fidelity: does blkperf show the same effect as the kernel's own
# tool (fio's t/io_uring) for each A/B experiment, on the same target, in the
# same run? For every target and block size it measures both arms of each
# experiment in both tools, every run on one CPU (with the kernel workers it
# starts), the arms paired in rounds (--pairing below), and prints a
# markdown table of the ratios A/B.
#
#   bench/fidelity.sh                                   # everything, 6 x 5 s
#   bench/fidelity.sh --rounds 12 --runtime 3 --bs 4k,128k --targets zram,file
#   bench/fidelity.sh ... --raw runs.tsv    # also keep every run's IOPS (sliced: and
#                                          # how contiguous each arm's buffer pages were;
#                                          # an arm alone on its device: blkperf's
#                                          # device requests per SQE)
#   bench/fidelity.sh --experiments identical_arms,...  # the pairing's noise
#   BLKPERFD=bazel-out/k8-opt/bin/daemon/blkperfd bench/fidelity.sh ...
#   bench/fidelity.sh --verdict [--quick] ...   # bench/fidelity_verdict.sh:
#                       # fixed vs plain on a filled zram, blkperf's arms
#                       # through the product (blkperfd run --vary, its
#                       # ratio, interval and verdict) beside t/io_uring
#                       # -B1 / -B0 in interleaved rounds, and whether the
#                       # two agree in sign and size
#
# Experiments (A / B):
#   identical_arms      the base arm twice, in both tools: the pairing's own
#                       noise and bias (its ratio should be 1.000); not in
#                       the default list
#   fixed_vs_plain      fixed buffers / plain READ      t/io_uring -B1 / -B0
#   registered_files    registered files / plain fds    t/io_uring -F1 / -F0
#   vectored_vs_plain   READV / READ (plain buffers)    blkperf only: Debian's
#                       t/io_uring (fio 3.33) has no switch (-V came later)
#   huge_vs_normal      hugetlb / normal-page buffers    t/io_uring: its
#                       malloc'd buffers on hugetlb pages / not (fio 3.33's
#                       t/io_uring has no switch of its own, -T is the TSC
#                       rate: glibc's tunables put them there, see --pages)
#   one_region_vs_per_slot  fixed buffers registered as one region / one
#                       per slot (t/io_uring's layout)  blkperf only
#   percpu_vs_shared    request cache per_cpu / shared  blkperf only
#   split_none_vs_limits split none / limits            blkperf only; the
#                       device requests per SQE of each arm are shown
# Base arm of both tools: random reads, fixed buffers (blkperf's registered
# per slot, t/io_uring's layout, not its default auto), registered files,
# interrupt completions, no latency tracking (t/io_uring -t0), normal pages
# (--pages huge: hugetlb pages, below).
# Each run's IOPS is its mean after a 1 s warm-up: blkperf --ramp=1s, then
# --runtime one second less than --runtime (sequential) or until both arms
# are stopped --runtime seconds after their start (shared); t/io_uring the
# mean of its per-second samples after the first (shared: it runs one second
# longer and its last sample is left out too).
#
# Pairing (--pairing): how the two arms of an experiment meet in a round.
#   shared: both arms of one tool run at the same time on the same CPU
#     (--cpu), each with an equal share of it, so whatever slows the CPU
#     (this VM's speed moves 10-30 % within minutes, and runs of one arm
#     differ by about 10 % from process to process) slows both alike: two
#     identical t/io_uring arms shared a CPU to within 0.4 % in 8 of 8
#     rounds, where runs alone vary 10 %. The ratio is then one of I/Os per
#     CPU-second, which is the ratio of IOPS when each arm runs alone and
#     CPU-bound. Each arm's window covers only time when both run:
#     blkperf's two runs are stopped together (SIGTERM; the report covers
#     ramp end to stop), and t/io_uring's first and last per-second samples
#     are left out. Only where each arm's work is its own: on one zram
#     device both arms' io-wq workers meet in its driver and run in
#     lockstep (two blkperf arms gave the same IOPS to 0.01 % whatever the
#     experiment), so on zram each arm reads a zram device of its own (a
#     second one is added, the same size, filled; the arms swap devices
#     every round); the loop device's workqueue is one for both arms and
#     no cgroup holds it (its CPU mask is every unbound workqueue's, see
#     --loop-workers), so loop runs sliced.
#   sliced: both arms' processes run for the whole round, one at a time:
#     bench/lib/sliced_pair.py freezes one arm's cgroup and thaws the
#     other's in turns of --slice seconds for 2 x --runtime, so each runs
#     alone (with the kernel workers that serve it, wherever they run) for
#     --runtime s in all, and both in the same stretch of time. An arm's
#     IOPS is what it did in its measured window per second it ran there
#     (blkperf: its report's window; t/io_uring: its per-second samples
#     after its first 2 s, each timestamped as it is printed). Turns
#     (--slice auto: 0.05 s at 4 KiB, 0.1 s below 512 KiB, 0.5 s from
#     there) are long enough that the I/Os a frozen arm has in flight,
#     which complete in the other's turn, are about 1 % of a turn's. The
#     arm that starts (and sets up) first is slower for the whole round, by
#     8-14 % at 1 MiB on loop and zram, in both tools (two identical arms:
#     bench/RESULTS.md), so A starts first in even rounds and B in odd ones,
#     and a pair of rounds, each arm first once, is one sample (the
#     geometric mean of its two ratios); --rounds must be even.
#   cross: sliced, but each sliced pair is one arm of both tools: blkperf's
#     arm A against t/io_uring's arm A, then blkperf's B against
#     t/io_uring's B (which arm's pair runs first alternates every round,
#     as which tool starts first does). Like meets like, so whatever a
#     start order or the memory of the moment does to an arm does it to
#     both tools' arm alike; a pairing of two unlike arms (fixed against
#     plain) is hit unequally by them, and each tool's pairing runs at
#     another moment. Each tool's ratio A/B is still its two arms' IOPS,
#     now from two pairings in a row; the difference is the median over
#     pairs of rounds of the paired difference of that round pair's
#     ratios, in which the drift between the two pairings cancels (it is
#     (bA/tA)/(bB/tB) - 1 times t/io_uring's ratio). Experiments without a
#     t/io_uring switch run sliced.
#   sequential: the arms run alone, back to back on --cpu, in an order
#     alternated every round.
#   auto (default): shared on the cached file and zram, sliced on loop.
#
# Primer (--primer MIB, default 1024, 0 = off): before each pairing of two
# arms (each arm, sequential) bench/lib/page_primer.py faults in that much
# memory on the arms' CPU and holds it while they run. When the last arms'
# processes exit, the pages whose buddies are still in use stay free as
# single pages and small blocks, and the allocator hands those out first:
# without the primer the arm that faults its buffers in first gets them,
# scattered, and the next gets contiguous pages split off large blocks.
# At 1 MiB on 4 KiB pages that moves a plain arm's IOPS by up to a fifth
# (the kernel pins and unpins each page per I/O); it was the start-order
# bias below. Pages freed after the primer is ready still go first to the
# first arm, so bench/lib/sliced_pair.py starts arms through a vforked
# launcher: a forked copy of itself freed its pages on the arms' CPU.
# With --raw, sliced rows also keep how contiguous each arm's buffer pages
# were (the share physically next to the page before, read at
# the round's end: bench/lib/sliced_pair.py --layout), and the report
# prints its median per arm. Which tool runs its arms first alternates
# from round to round, as which arm starts first does.
#
# Pages (--pages): the base arm's buffers on normal 4 KiB pages (default)
# or on 2 MiB hugetlb pages. Where 4 KiB buffer pages land in this VM's
# memory moves an arm's IOPS from process to process: at 1 MiB on zram,
# sliced, of two identical arms on normal pages the one that sets up first
# is 4-10 % slower all round, in both tools; two blkperf arms on hugetlb
# pages show no such order (bench/RESULTS.md). blkperf takes
# --huge_pages=on; t/io_uring (which allocates each buffer with
# posix_memalign in its submitter thread) runs under
# GLIBC_TUNABLES=glibc.malloc.hugetlb=2 with an mmap threshold of 32 MiB,
# so its buffers come from that thread's malloc arena, whose heap glibc
# maps with MAP_HUGETLB. glibc falls back to normal pages without a word
# when it cannot (it reserves a heap's whole size when it maps it), so the
# script reserves twice each arm's buffers plus 16 pages per arm in
# /proc/sys/vm/nr_hugepages (the old count is put back at exit) and,
# before each block size, starts two t/io_uring arms that way at once and
# stops with an error unless each holds queue depth x block size of
# hugetlb memory (/proc/PID/smaps). The same switch makes huge_vs_normal an
# experiment of both tools, whatever --pages is.
#
# Either way every arm runs in cgroups of its own (bench/lib/arm_cgroups.sh):
# a cpuset of --cpu, which also holds the io-wq workers the kernel starts
# for it (zram punts every I/O to one; they follow the cpuset, not the
# task's affinity), and a CPU share equal to the other arm's. The loop
# device's own kernel workers belong to an unbound workqueue, which no
# cgroup holds: with --loop-workers cpu (default) the script sets the
# unbound workqueues' CPU mask (/sys/devices/virtual/workqueue/cpumask,
# every unbound workqueue's) to --cpu while a loop target runs and puts it
# back after, so each arm's turn pays for all its device's work; with
# --loop-workers any they run wherever the scheduler puts them, in part on
# another CPU alongside the arm, by how much depending on each tool's
# submission rhythm (at 16 KiB plain, 3-5 % more IOPS for blkperf's arm
# than t/io_uring's that way, none held: bench/RESULTS.md).
# Judging 0.03 (bench/lib/fidelity_report.py): a round gives each tool one
# paired ratio A/B. The table has each tool's median over the rounds, their
# difference (across tools: the median of each sample's difference), a 95%
# interval of the difference bootstrapped over whole rounds (2,000
# resamples), and a verdict: "yes" when the whole interval lies within
# +-0.03, "NO" when it lies wholly outside, else "open" (the rounds cannot
# tell). Rows run across tools also get the difference at equal
# placement: for each arm, round by round, blkperf's IOPS over t/io_uring's
# fitted to the difference of their buffers' adjacent shares and read
# where that difference is 0, with its own interval and verdict; what the
# page allocator gave each tool's buffers no longer counts for or against
# it (bench/lib/fidelity_report.py says how).
# Queue depth / batch: 128 / 32 below 128 KiB, 32 / 8 from 128 KiB.
#
# Targets:
#   zram  /dev/zram0 (root): disksize set to 2G if it is 0 (reset at exit only
#         then), filled with /dev/urandom first; O_DIRECT. Shared pairing
#         adds a second device (zram-control hot_add) of the same size,
#         filled too, and removes it after the target.
#   file  a 1 GiB file of random data on the repository's file system, read
#         buffered while it is in the page cache (completes inline).
#   loop  a loop device (losetup -f, direct-io=off) over a 1 GiB file of
#         random data made here and kept in the page cache, so the loop
#         workers copy from memory rather than wait for this VM's virtual
#         disk; O_DIRECT. With shared or sliced pairing a second one (its
#         own file): the split experiment's arms read one each, as their
#         device counters must be their own. Detached at exit.
# t/io_uring is built from Debian's fio source package in $FIDELITY_CACHE
# (default /var/cache/blkperf-fidelity), never inside the repository; the
# script adds a deb-src entry of its own (/etc/apt/sources.list.d/
# blkperf-fio-src.sources) to fetch it.
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=${BLKPERF_RESULTS_DB:-none}
cd "$(dirname "$0")/.."
[[ ${1:-} == --verdict ]] && exec bench/fidelity_verdict.sh "${@:2}"

targets=zram,file,loop
sizes=4k,16k,64k,128k,1m
experiments=fixed_vs_plain,registered_files,vectored_vs_plain,huge_vs_normal,one_region_vs_per_slot,percpu_vs_shared,split_none_vs_limits
rounds=6
runtime=5
cpu=$(( $(nproc) - 1 ))
pairing=auto
slice=auto
pages=normal
primer_mib=1024
loop_workers=cpu
raw=
cache=${FIDELITY_CACHE:-/var/cache/blkperf-fidelity}
usage="usage: $0 [--targets zram,file,loop] [--bs 4k,...] [--experiments a,b] [--rounds N, even unless sequential or only the file shared] [--runtime S>=3, >=4 sliced] [--cpu C] [--pairing auto|shared|sliced|cross|sequential] [--slice S] [--pages normal|huge] [--primer MIB, 0 = off] [--loop-workers cpu|any] [--raw FILE]"
while (($#)); do
  case "$1" in
    --targets) targets=$2; shift 2 ;;
    --bs) sizes=$2; shift 2 ;;
    --experiments) experiments=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    --pairing) pairing=$2; shift 2 ;;
    --slice) slice=$2; shift 2 ;;
    --pages) pages=$2; shift 2 ;;
    --primer) primer_mib=$2; shift 2 ;;
    --loop-workers) loop_workers=$2; shift 2 ;;
    --raw) raw=$2; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]*$ && $runtime =~ ^[1-9][0-9]*$ ]] || { echo "$usage" >&2; exit 2; }
[[ $primer_mib =~ ^[0-9]{1,6}$ ]] || { echo "--primer must be a number of MiB (0 = off), not '${primer_mib:0:40}'" >&2; exit 2; }
# t/io_uring prints a sample a second and the first is warm-up: with -r 2
# it often prints only one.
((runtime >= 3)) || { echo "--runtime must be at least 3 s (the first is warm-up; t/io_uring needs 2 samples after it)" >&2; exit 2; }
[[ $pairing =~ ^(auto|shared|sliced|cross|sequential)$ ]] || { echo "--pairing must be auto, shared, sliced, cross or sequential, not '${pairing:0:40}'" >&2; exit 2; }
# Sliced and own-device rounds are judged in pairs (each arm first, or on
# each device, once): an odd last round would be left out unseen. Only the
# cached file, shared, has neither.
if [[ $pairing != sequential && ! ($targets == file && $pairing =~ ^(auto|shared)$) ]] && ((rounds % 2)); then
  echo "--rounds must be even with $pairing pairing (rounds are judged in pairs), not $rounds" >&2
  exit 2
fi
# Sliced (the loop device under auto), an arm has half of each round's
# seconds: at 3 s a t/io_uring arm could print no sample after its 2 s
# warm-up (seen on loop at 1 MiB).
if [[ $pairing == sliced || $pairing == cross || ($pairing == auto && ,$targets, == *,loop,*) ]] && ((runtime < 4)); then
  echo "--runtime must be at least 4 s with sliced or cross pairing (the loop device's under auto): each arm runs half the round" >&2
  exit 2
fi
[[ $pages =~ ^(normal|huge)$ ]] || { echo "--pages must be normal or huge, not '${pages:0:40}'" >&2; exit 2; }
[[ $loop_workers =~ ^(cpu|any)$ ]] || { echo "--loop-workers must be cpu or any, not '${loop_workers:0:40}'" >&2; exit 2; }
blkperf_pages=off
[[ $pages == huge ]] && blkperf_pages=on
[[ $slice == auto || $slice =~ ^0?\.[0-9]+$|^[1-9][0-9]*(\.[0-9]+)?$ ]] || { echo "--slice must be auto or seconds (0.1), not '${slice:0:40}'" >&2; exit 2; }
controller_cpu=0
((cpu != 0)) || controller_cpu=$(( $(nproc) > 1 ? 1 : 0 ))
[[ $cpu =~ ^[0-9]+$ ]] || { echo "--cpu must be a CPU number, not '${cpu:0:40}'" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "fidelity.sh needs root (zram, loop devices, huge pages)" >&2; exit 1; }

source bench/lib/tio_build.sh
source bench/lib/arm_cgroups.sh
source bench/lib/zram.sh
build_t_io_uring "$cache"
work=$(mktemp -d "$(pwd)/.bench.XXXXXX")
# A copy: a later bazel build (another configuration) repoints bazel-bin.
# BLKPERFD names an already built (-c opt) blkperfd to use instead.
if [[ -z ${BLKPERFD:-} ]]; then
  bazel build -c opt //daemon:blkperfd >&2
  BLKPERFD=bazel-bin/daemon/blkperfd
fi
cp "$BLKPERFD" "$work/blkperfd"
blkperfd=$work/blkperfd
zram_set=0
zram_second=  # the second zram device's number, when this script added it
loop_dev=
loop_second=  # sliced and shared pairing: a second loop device
own_paths=()
old_hugepages=$(cat /proc/sys/vm/nr_hugepages)
unbound_mask_file=/sys/devices/virtual/workqueue/cpumask
old_unbound_mask=  # set while the unbound workqueues are held to --cpu
cleanup() {
  primer_stop
  release_unbound_workers
  remove_loop_devices
  arm_cgroups_remove
  ((zram_set)) && reset_zram zram0
  remove_second_zram
  echo "$old_hugepages" > /proc/sys/vm/nr_hugepages
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # so the EXIT trap cleans up

# Shared pairing on zram: each arm reads its own zram device, so their
# io-wq workers do not meet in one device's driver (on one device, two
# arms ran in lockstep). Adds a second device beside zram0 (zram-control
# hot_add), the same size, filled; own_paths gets both. Returns non-zero
# when the kernel cannot add one.
add_second_zram() {
  [[ -w /sys/class/zram-control/hot_add ]] || return 1
  zram_second=$(cat /sys/class/zram-control/hot_add) || return 1
  cat /sys/block/zram0/disksize > "/sys/block/zram$zram_second/disksize"
  fill_zram "/dev/zram$zram_second"
  own_paths=(/dev/zram0 "/dev/zram$zram_second")
}
remove_second_zram() {
  [[ -n $zram_second ]] || return 0
  reset_zram "zram$zram_second"
  echo "$zram_second" > /sys/class/zram-control/hot_remove
  zram_second=
}

# Sets $path, $direct and, where the arms may read a device each,
# own_paths (two devices of the target's kind) for target $1 under pairing
# $mode; run_arms picks the arms' targets from them.
setup_target() {
  case "$1" in
    zram)
      [[ -e /sys/block/zram0 ]] || modprobe zram num_devices=1
      if [[ $(cat /sys/block/zram0/disksize) == 0 ]]; then
        echo 2G > /sys/block/zram0/disksize
        zram_set=1
      fi
      fill_zram /dev/zram0
      path=/dev/zram0 direct=1 ;;
    file)
      path=$work/cached.dat direct=0
      dd if=/dev/urandom of="$path" bs=1M count=1024 status=none
      cat "$path" > /dev/null ;;  # into the page cache
    loop)
      hold_unbound_workers || return 1
      loop_dev=$(add_loop_device "$work/loop.img")
      path=$loop_dev direct=1 ;;
    *) echo "unknown target $1" >&2; return 1 ;;
  esac
  own_paths=()
  if [[ $1 == zram && $mode == shared ]] && ! add_second_zram; then
    echo "  zram: no second zram device could be added; its arms run back to back" >&2
    mode=sequential
  fi
  if [[ $1 == loop && $mode != sequential ]]; then
    loop_second=$(add_loop_device "$work/loop2.img")
    own_paths=("$loop_dev" "$loop_second")
  fi
}

# --loop-workers cpu: every unbound workqueue's workers (the loop
# device's among them) to --cpu only, until release_unbound_workers puts
# the old mask back. The mask is comma-separated 32-bit hex words.
hold_unbound_workers() {
  [[ $loop_workers == cpu ]] || return 0
  [[ -w $unbound_mask_file ]] ||
    { echo "--loop-workers cpu: $unbound_mask_file is not writable" >&2; return 1; }
  old_unbound_mask=$(< "$unbound_mask_file")
  local mask i
  mask=$(printf '%x' $((1 << (cpu % 32))))
  for ((i = 0; i < cpu / 32; i++)); do mask+=,00000000; done
  echo "$mask" > "$unbound_mask_file"
}
release_unbound_workers() {
  [[ -n $old_unbound_mask ]] || return 0
  echo "$old_unbound_mask" > "$unbound_mask_file"
  old_unbound_mask=
}

# Attaches a loop device over a new 1 GiB file $1 of random data, kept in
# the page cache, and prints its path. Buffered (direct-io off): the loop
# workers copy from the page cache, so the device costs CPU, not the
# virtual disk under the file system (a shared device whose speed drifts
# with the host's other tenants).
add_loop_device() {
  dd if=/dev/urandom of="$1" bs=1M count=1024 status=none
  cat "$1" > /dev/null
  local dev q
  dev=$(losetup -f --show --direct-io=off "$1")
  # A loop device keeps a max_sectors_kb written to it before, across detach
  # and attach: say which limits this one split at.
  q=/sys/block/$(basename "$dev")/queue
  echo "$dev: max_sectors_kb $(cat "$q/max_sectors_kb") (hw $(cat "$q/max_hw_sectors_kb")), max_segments $(cat "$q/max_segments"), max_segment_size $(cat "$q/max_segment_size")" >> "$work/devices"
  echo "$dev"
}
remove_loop_devices() {
  [[ -n $loop_dev ]] && losetup -d "$loop_dev"
  [[ -n $loop_second ]] && losetup -d "$loop_second"
  loop_dev='' loop_second=''
}

# The flags of one blkperf run of the base arm on target $1; its measured
# window starts after a 1 s ramp.
blkperf_args() {
  local direct_flag=--direct
  ((direct)) || direct_flag=--nodirect
  echo --target="$1" --op=randread --bs="$bs" --qd="$qd" \
    --submit_batch="$batch" --complete_batch="$batch" --cpus="$cpu" \
    --ramp=1s "$direct_flag" --nolatency_tracking --huge_pages="$blkperf_pages" \
    --buffer_layout=per_slot --status_interval=0 --json
}

# Writes "IOPS requests-per-SQE" of blkperf's JSON report $1 to file $2.
blkperf_parse() {
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))
d=j.get("device") or {}
print(j["total"]["iops"], d.get("requests_per_sqe", ""))' "$1" > "$2"
}

# Writes the mean of t/io_uring's per-second IOPS samples in log $1 to file
# $2: those after the first (warm-up) and, when $3 is 1, before the last.
tio_parse() {
  python3 - "$1" "$3" > "$2" <<'PY'
import re, statistics, sys
text = open(sys.argv[1]).read()
v = [float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6}[m.group(2)]
     for m in re.finditer(r"IOPS=([0-9.]+)([KM]?),", text)]
v = v[1:-1] if sys.argv[2] == "1" else v[1:]
if not v:
    sys.exit("t/io_uring printed too few per-second samples: " + text[-400:])
print(statistics.mean(v))
PY
}

# The t/io_uring command of the base arm on target $1, running $2 seconds,
# plus "${@:3}", where a word pages=huge or pages=normal is not passed on
# but sets where its buffers are (the base arm: --pages).
tio_command() {
  local target=$1 seconds=$2 arm_pages=$pages word
  local -a flags=()
  shift 2
  for word; do
    case "$word" in
      pages=*) arm_pages=${word#pages=} ;;
      *) flags+=("$word") ;;
    esac
  done
  local -a prefix=()
  [[ $arm_pages == huge ]] && prefix=(env "$tio_huge_env")
  echo "${prefix[@]}" taskset -c "$cpu" "$tio" -d "$qd" -s "$batch" -c "$batch" -b "$bytes" \
    -p0 -O"$direct" -n1 -t0 -r "$seconds" "${flags[@]}" "$target"
}

# t/io_uring's buffers on hugetlb pages: glibc maps its threads' malloc
# arenas with MAP_HUGETLB (glibc.malloc.hugetlb=2), and the threshold keeps
# buffers up to 32 MiB out of mmaps of their own (which it would put on
# hugetlb pages only from 2 MiB).
tio_huge_env=GLIBC_TUNABLES=glibc.malloc.hugetlb=2:glibc.malloc.mmap_threshold=33554432

# Reserves, on top of the huge pages there were, what two arms on huge
# pages may hold at once; sets $free_huge and $need_huge (the pages the
# two need). blkperf maps qd x bs rounded up to 2 MiB. glibc reserves a
# hugetlb arena heap's whole size (up to 16 MiB) when it maps it, not as
# the heap grows, and falls back to normal pages when the reservation
# fails: a t/io_uring arm gets twice its buffers' pages plus 16, so that
# the second of two arms does not quietly land on normal pages.
reserve_huge_pages() {
  local buffer_pages=$(( (qd * bytes + 2097151) / 2097152 ))
  need_huge=$(( 2 * (2 * buffer_pages + 16) ))
  echo $(( old_hugepages + need_huge )) > /proc/sys/vm/nr_hugepages
  free_huge=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
}

# glibc falls back to normal pages without a word: starts two t/io_uring
# arms at once on target $1 with their buffers on huge pages (fixed
# buffers, so registering them faults them all in), as a round runs them,
# and fails unless each process holds qd x bs of hugetlb memory within 3 s.
check_tio_huge_pages() {
  local -a pids=() held=(0 0)
  local want=$(( qd * bytes / 1024 )) i k
  for k in 0 1; do
    # shellcheck disable=SC2046,SC2091  # runs the command it prints
    $(tio_command "$1" 5 -B1 -F1 pages=huge) > "$work/huge-check.$k.log" 2>&1 &
    pids+=($!)
  done
  for ((i = 0; i < 30 && (held[0] < want || held[1] < want); i++)); do
    sleep 0.1
    for k in 0 1; do
      held[k]=$(awk '/^Private_Hugetlb:/ {s += $2} END {print s + 0}' /proc/"${pids[k]}"/smaps 2> /dev/null)
      [[ ${held[k]} =~ ^[0-9]+$ ]] || held[k]=0  # the process is gone
    done
  done
  kill -INT "${pids[@]}" 2> /dev/null || true
  wait "${pids[@]}" 2> /dev/null || true
  ((held[0] >= want && held[1] >= want)) && return 0
  echo "two t/io_uring arms under $tio_huge_env held ${held[0]} and ${held[1]} KiB of hugetlb memory, not their buffers' ${want} KiB each: glibc left them on normal pages ($(tail -n 1 "$work/huge-check.0.log"))" >&2
  return 1
}

# Sequential pairing: one arm alone, in arm cgroup $1; results to file $2.
blkperf_alone() {
  local arm=$1 out=$2
  shift 2
  # shellcheck disable=SC2046
  arm_cgroup_exec "$arm" "$blkperfd" run $(blkperf_args "$path") \
    --runtime="$((runtime - 1))s" "$@" > "$out.json" 2> "$out.err" ||
    { echo "blkperfd failed: $*: $(tail -2 "$out.err")" >&2; return 1; }
  blkperf_parse "$out.json" "$out"
}
tio_alone() {
  local arm=$1 out=$2
  shift 2
  # shellcheck disable=SC2046
  arm_cgroup_exec "$arm" $(tio_command "$path" "$runtime" "$@") > "$out.log" 2>&1 ||
    { echo "t/io_uring failed: $*: $(tail -3 "$out.log")" >&2; return 1; }
  tio_parse "$out.log" "$out" 0
}

# Shared pairing: both arms at once on the CPU, A with flags $1 and B with
# flags $2 (word-split), each in its arm cgroup; results to $work/A, $work/B.
# Their windows must cover only time when both run, or the one left alone
# would count I/Os at the whole CPU's rate: blkperf's two runs are stopped
# together (SIGTERM; the report covers ramp end to stop), and t/io_uring's
# first and last per-second samples are left out.
blkperf_shared() {
  local pa pb sa=0 sb=0
  # shellcheck disable=SC2046,SC2086
  arm_cgroup_spawn A "$blkperfd" run $(blkperf_args "${arm_paths[r % 2]}") --runtime=1h $1 \
    > "$work/A.json" 2> "$work/A.err"
  pa=$arm_cgroup_pid
  # shellcheck disable=SC2046,SC2086
  arm_cgroup_spawn B "$blkperfd" run $(blkperf_args "${arm_paths[1 - r % 2]}") --runtime=1h $2 \
    > "$work/B.json" 2> "$work/B.err"
  pb=$arm_cgroup_pid
  sleep "$runtime"
  kill -TERM "$pa" "$pb" 2> /dev/null || true  # stops, then reports
  wait "$pa" || sa=$?
  wait "$pb" || sb=$?
  ((sa == 0 && sb == 0)) ||
    { echo "blkperfd failed: $1 / $2: $(tail -n 2 "$work/A.err" "$work/B.err")" >&2; return 1; }
  blkperf_parse "$work/A.json" "$work/A"
  blkperf_parse "$work/B.json" "$work/B"
}
tio_shared() {
  local pa pb sa=0 sb=0
  # shellcheck disable=SC2046,SC2086
  arm_cgroup_spawn A $(tio_command "${arm_paths[r % 2]}" "$((runtime + 1))" $1) > "$work/A.log" 2>&1
  pa=$arm_cgroup_pid
  # shellcheck disable=SC2046,SC2086
  arm_cgroup_spawn B $(tio_command "${arm_paths[1 - r % 2]}" "$((runtime + 1))" $2) > "$work/B.log" 2>&1
  pb=$arm_cgroup_pid
  wait "$pa" || sa=$?
  wait "$pb" || sb=$?
  ((sa == 0 && sb == 0)) ||
    { echo "t/io_uring failed: $1 / $2: $(tail -n 3 "$work/A.log" "$work/B.log")" >&2; return 1; }
  tio_parse "$work/A.log" "$work/A" 1
  tio_parse "$work/B.log" "$work/B" 1
}

# Runs "$@" (one pairing of two arms, or one arm alone) with
# bench/lib/page_primer.py holding --primer MiB on the arms' CPU, faulted in
# just before: it takes the single pages and small blocks the last arms
# left free, which would otherwise go to whichever arm faults its buffers
# in first, scattered, while the next gets contiguous pages (and a plain
# arm's IOPS at 1 MiB moves by up to a fifth with that). --primer 0: "$@"
# alone.
primer_pid=
primed() {
  local status=0
  primer_start || return 1
  "$@" || status=$?
  primer_stop
  return "$status"
}
primer_start() {
  ((primer_mib)) || return 0
  : > "$work/primer.out"
  taskset -c "$cpu" python3 bench/lib/page_primer.py "$primer_mib" > "$work/primer.out" &
  primer_pid=$!
  local i
  for ((i = 0; i < 600; i++)); do
    [[ $(< "$work/primer.out") == ready ]] && return 0
    kill -0 "$primer_pid" 2> /dev/null || break
    sleep 0.05
  done
  echo "bench/lib/page_primer.py $primer_mib did not get ready in 30 s" >&2
  primer_stop
  return 1
}
primer_stop() {
  [[ -n $primer_pid ]] || return 0
  kill "$primer_pid" 2> /dev/null || true
  wait "$primer_pid" 2> /dev/null || true
  primer_pid=
}

# Sliced pairing: both arms' processes run for the whole round, and
# bench/lib/sliced_pair.py lets one run at a time in turns of $slice s
# (freezing the other arm's cgroup), for 2 x --runtime seconds, so each
# arm runs alone for --runtime s in all, both in the same stretch of time.
# Each arm's IOPS is what it did in its measured window per second it ran
# in that window: blkperf's window is its report's (ramp end to stop),
# t/io_uring's the per-second samples after its first 2 s (which cover
# about 1 s of its running), ending at its last sample.
sliced_run() {  # $1 / $2 = arm A's / B's tool (blkperf | tio), $3 / $4 = their commands
  local turn=$slice
  # A frozen arm's I/Os in flight complete in the other arm's turn: turns
  # long enough that they are under about 1 % of a turn's I/Os.
  # (This VM's loop device: 4 KiB 400k IOPS at QD128, 1 MiB 6.5k at QD32.)
  if [[ $turn == auto ]]; then
    if ((bytes <= 4096)); then turn=0.05
    elif ((bytes < 524288)); then turn=0.1
    else turn=0.5; fi
  fi
  # sliced_pair.py starts and thaws its first --arm first: A in even
  # rounds, B in odd ones.
  local -a arm_a=(--arm A "${arm_cgroup_dirs[A]}" "${arm_cgroup_freezer[A]}" "$3")
  local -a arm_b=(--arm B "${arm_cgroup_dirs[B]}" "${arm_cgroup_freezer[B]}" "$4")
  local -A arm_tool=([A]=$1 [B]=$2)
  local -a first=("${arm_a[@]}") second=("${arm_b[@]}")
  if ((r % 2)); then first=("${arm_b[@]}") second=("${arm_a[@]}"); fi
  python3 bench/lib/sliced_pair.py run --slice "$turn" \
    --seconds "$((2 * runtime))" --stop "$([[ $1 == blkperf && $2 == blkperf ]] && echo TERM || echo INT)" \
    --controller_cpu "$controller_cpu" --out "$work/sliced.json" \
    --layout "${first[@]}" "${second[@]}" ||
    { echo "sliced run failed: $3 / $4: $(tail -n 3 "$work/sliced.json".A.err "$work/sliced.json".B.err)" >&2; return 1; }
  local arm
  for arm in A B; do
    python3 bench/lib/sliced_pair.py iops --tool "${arm_tool[$arm]}" --arm "$arm" \
      "$work/sliced.json" > "$work/$arm" || return 1
    python3 bench/lib/sliced_pair.py layout --arm "$arm" \
      "$work/sliced.json" > "$work/$arm.layout" || return 1
  done
}
blkperf_sliced() {
  sliced_run blkperf blkperf "$(blkperf_sliced_command "${arm_paths[r % 2]}" "$1")" \
    "$(blkperf_sliced_command "${arm_paths[1 - r % 2]}" "$2")"
}
blkperf_sliced_command() {  # $1 = target, $2 = the arm's flags
  echo "$blkperfd run $(blkperf_args "$1") --runtime=1h $2"
}
tio_sliced_command() {  # $1 = target, $2 = the arm's flags
  # Stopped by SIGINT long before its -r.
  # shellcheck disable=SC2086  # the arm's flags are a word list
  echo "stdbuf -oL $(tio_command "$1" "$((2 * runtime + 30))" $2)"
}
tio_sliced() {
  sliced_run tio tio "$(tio_sliced_command "${arm_paths[r % 2]}" "$1")" \
    "$(tio_sliced_command "${arm_paths[1 - r % 2]}" "$2")"
}
# Cross pairing: blkperf's arm $1 (A or B) of experiment $e against
# t/io_uring's, sliced (blkperf in cgroup A, t/io_uring in B; blkperf
# starts first in even rounds); appends both tools' rows for that arm.
cross_sliced() {
  local blkperf_flags=${bA[$e]} tio_flags=${tA[$e]}
  [[ $1 == B ]] && blkperf_flags=${bB[$e]} tio_flags=${tB[$e]}
  primed sliced_run blkperf tio "$(blkperf_sliced_command "$path" "$blkperf_flags")" \
    "$(tio_sliced_command "$path" "$tio_flags")" || exit 1
  append_result blkperf "$1" A "sliced, across tools"
  append_result t_io_uring "$1" B "sliced, across tools"
}

# Both arms of experiment $e in tool $1 (blkperf or t_io_uring), round $r,
# paired per $mode; appends them to $results.
run_arms() {
  local tool=$1 a b arm
  if [[ $tool == blkperf ]]; then
    a=${bA[$e]} b=${bB[$e]}
  else
    a=${tA[$e]} b=${tB[$e]}
  fi
  # The arms' targets: arm A's and, in even rounds, arm B's (swapped in odd
  # ones). A device each where there are two and the arms run at once
  # (zram: on one device they run in lockstep), or the experiment reads the
  # device's counters (split: one device's counters would mix both arms'
  # requests); one device otherwise.
  arm_paths=("$path" "$path")
  if ((${#own_paths[@]})) && [[ $mode == shared || $e == split_none_vs_limits ]]; then
    arm_paths=("${own_paths[@]}")
  fi
  if [[ $mode == shared ]]; then
    if [[ $tool == blkperf ]]; then primed blkperf_shared "$a" "$b"; else primed tio_shared "$a" "$b"; fi || exit 1
  elif [[ $mode == sliced ]]; then
    if [[ $tool == blkperf ]]; then primed blkperf_sliced "$a" "$b"; else primed tio_sliced "$a" "$b"; fi || exit 1
  else
    local alone=blkperf_alone
    [[ $tool == blkperf ]] || alone=tio_alone
    # shellcheck disable=SC2086
    if ((r % 2)); then
      { primed $alone B "$work/B" $b && primed $alone A "$work/A" $a; } || exit 1
    else
      { primed $alone A "$work/A" $a && primed $alone B "$work/B" $b; } || exit 1
    fi
  fi
  local how=$mode
  [[ $mode != sequential && ${arm_paths[0]} != "${arm_paths[1]}" ]] && how="$mode, own devices"
  for arm in A B; do
    append_result "$tool" "$arm" "$arm" "$how"
  done
}

# Appends to $results the row of tool $1's arm $2 of experiment $e, whose
# run wrote "IOPS [REQUESTS_PER_SQE]" to $work/$3 (and, sliced, "PAGES
# SHARE" to $work/$3.layout), paired as $4 says.
append_result() {
  local iops rps adjacent=''
  read -r iops rps < "$work/$3"
  # blkperf's device counters are the whole device's: where both arms of a
  # pairing read one device (sliced, across tools, shared) they count the
  # other arm's requests too, about twice the arm's own. Kept only for an
  # arm alone on its device.
  [[ $4 == sequential || $4 == *"own devices" ]] || rps=''
  # Only a sliced run reads the layout: an older file may be left over.
  # (A local named pages would hide --pages from tio_command.)
  [[ $4 == sliced* && -s $work/$3.layout ]] && read -r _ adjacent < "$work/$3.layout"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$bs" "$e" "$1" "$2" \
    "$iops" "${rps:-}" "$4" "$adjacent" >> "$results"
}

# Experiment definitions: name, blkperf A, blkperf B, t/io_uring A, B.
declare -A bA bB tA tB
bA[identical_arms]="";                       bB[identical_arms]=""
tA[identical_arms]="-B1 -F1";                tB[identical_arms]="-B1 -F1"
bA[fixed_vs_plain]="--fixed_buffers";        bB[fixed_vs_plain]="--nofixed_buffers"
tA[fixed_vs_plain]="-B1 -F1";                tB[fixed_vs_plain]="-B0 -F1"
bA[registered_files]="--registered_files";   bB[registered_files]="--noregistered_files"
tA[registered_files]="-B1 -F1";              tB[registered_files]="-B1 -F0"
bA[vectored_vs_plain]="--nofixed_buffers --vectored"; bB[vectored_vs_plain]="--nofixed_buffers"
bA[huge_vs_normal]="--huge_pages=on";        bB[huge_vs_normal]="--huge_pages=off"
tA[huge_vs_normal]="-B1 -F1 pages=huge";     tB[huge_vs_normal]="-B1 -F1 pages=normal"
bA[one_region_vs_per_slot]="--buffer_layout=one_region"; bB[one_region_vs_per_slot]="--buffer_layout=per_slot"
bA[percpu_vs_shared]="--request_cache=percpu"; bB[percpu_vs_shared]="--request_cache=shared"
bA[split_none_vs_limits]="--split=none";     bB[split_none_vs_limits]="--split=limits"

to_bytes() { numfmt --from=iec "${1^^}"; }
results=$work/results.tsv
: > "$results"
IFS=, read -r -a target_list <<< "$targets"
IFS=, read -r -a size_list <<< "$sizes"
IFS=, read -r -a exp_list <<< "$experiments"
# Huge pages are reserved (and t/io_uring's checked) only for runs that use them.
wants_huge=0
[[ $pages == huge || ,$experiments, == *,huge_vs_normal,* ]] && wants_huge=1
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

arm_cgroup_make A "$cpu"
arm_cgroup_make B "$cpu"

for t in "${target_list[@]}"; do
  mode=$pairing
  if [[ $mode == auto ]]; then
    mode=sliced
    [[ $t == file || $t == zram ]] && mode=shared
  fi
  setup_target "$t"
  for bs in "${size_list[@]}"; do
    bytes=$(to_bytes "$bs")
    if ((bytes < 131072)); then qd=128 batch=32; else qd=32 batch=8; fi
    huge_ok=0
    if ((wants_huge)); then
      reserve_huge_pages
      if ((free_huge >= need_huge)); then
        huge_ok=1
        check_tio_huge_pages "$path" || exit 1
      elif [[ $pages == huge ]]; then
        echo "$t bs=$bs: only $free_huge of the $need_huge huge pages --pages huge needs could be reserved" >&2
        exit 1
      else
        echo "  $t bs=$bs: only $free_huge of $need_huge huge pages could be reserved; huge_vs_normal skipped" >&2
      fi
    fi
    for ((r = 0; r < rounds; r++)); do
      for e in "${exp_list[@]}"; do
        [[ $e == huge_vs_normal ]] && ((!huge_ok)) && continue
        # Which tool runs first alternates too: the arms of the tool that
        # runs second set up in the memory the first one's just gave back.
        if [[ $mode == cross && -z ${tA[$e]:-} ]]; then
          mode=sliced
          run_arms blkperf
          mode=cross
        elif [[ $mode == cross ]]; then
          # The order of the arms' pairs alternates every two rounds, so
          # each meets each start order of the tools.
          if (((r / 2) % 2)); then cross_sliced B; cross_sliced A
          else cross_sliced A; cross_sliced B; fi
        elif [[ -z ${tA[$e]:-} ]]; then run_arms blkperf
        elif ((r % 2)); then run_arms t_io_uring; run_arms blkperf
        else run_arms blkperf; run_arms t_io_uring; fi
      done
      echo "  $t bs=$bs round $r done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    done
  done
  remove_second_zram
  if [[ $t == zram ]] && ((zram_set)); then reset_zram zram0; zram_set=0; fi
  if [[ $t == loop ]]; then remove_loop_devices; release_unbound_workers; fi
done

if [[ -n $raw ]]; then
  { printf '# target\tbs\texperiment\ttool\tarm\tiops\trequests_per_sqe\tpairing\tbuffer_adjacent\n'; cat "$results"; } > "$raw"
fi
echo "# $(date -u '+%F %H:%M') UTC, $(uname -r), $(nproc) CPUs, pairing $pairing, pages $pages, primer ${primer_mib} MiB, loop workers $loop_workers, cpu $cpu, ${rounds} rounds x ${runtime}s, load before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ -s $work/devices ]]; then sort -u "$work/devices" | sed 's/^/# /'; fi
echo "# command: bench/fidelity.sh --targets $targets --bs $sizes --experiments $experiments --rounds $rounds --runtime $runtime --pairing $pairing --slice $slice --pages $pages --primer $primer_mib --loop-workers $loop_workers --cpu $cpu"
echo "# ratio: the median over the rounds of each round's A/B (the arms paired as the pairing column says; sliced or with own devices, of the geometric mean of each two rounds, in which the arms swap devices and which arm starts first); spread: the largest max/min IOPS over the rounds of any one arm of the row"
echo "# difference: blkperf's ratio minus t/io_uring's; across tools (--pairing cross), the median of the paired differences of each pair of rounds"
echo "# 95% interval: of the difference, bootstrapped over whole rounds (2,000 resamples); within 0.03: yes = the whole interval within +-0.03, NO = wholly outside, open = the rounds cannot tell"
python3 bench/lib/fidelity_report.py --pages "$pages" "$results"
