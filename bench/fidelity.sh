#!/usr/bin/env bash
# Experiment fidelity: does blkperf show the same effect as the kernel's own
# tool (fio's t/io_uring) for each A/B experiment, on the same target, in the
# same run? For every target and block size it measures both arms of each
# experiment in both tools, one pinned CPU, medians of interleaved rounds,
# and prints a markdown table of the ratios A/B.
#
#   bench/fidelity.sh                                   # everything, 5 x 5 s
#   bench/fidelity.sh --rounds 3 --runtime 2 --bs 4k,128k --targets zram,file
#   BLKPERFD=bazel-out/k8-opt/bin/daemon/blkperfd bench/fidelity.sh ...
#
# Experiments (A / B):
#   fixed_vs_plain      fixed buffers / plain READ      t/io_uring -B1 / -B0
#   registered_files    registered files / plain fds    t/io_uring -F1 / -F0
#   vectored_vs_plain   READV / READ (plain buffers)    blkperf only: Debian's
#                       t/io_uring (fio 3.33) has no switch (-V came later)
#   huge_vs_normal      hugetlb / normal-page buffers    blkperf only: fio 3.33
#                       t/io_uring has no huge-page switch (-T is the TSC rate)
#   one_region_vs_per_slot  fixed buffers registered as one region / one
#                       per slot (t/io_uring's layout)  blkperf only
#   percpu_vs_shared    request cache per_cpu / shared  blkperf only
#   split_none_vs_limits split none / limits            blkperf only; the
#                       device requests per SQE of each arm are shown
# Base arm of both tools: random reads, fixed buffers, registered files,
# interrupt completions, no latency tracking (t/io_uring -t0), normal pages.
# Each run's IOPS is the mean over its seconds after the first (blkperf
# --ramp=1s and a runtime one second shorter; t/io_uring the mean of its
# per-second samples after the first).
#
# Judging 0.03: each round runs both arms of an experiment back to back in
# each tool, so rounds pair up. Besides the ratio of medians, the table has
# a 95% interval of the difference (blkperf's ratio - t/io_uring's),
# bootstrapped over whole rounds, and a verdict: "yes" when the whole
# interval lies within +-0.03, "NO" when it lies wholly outside, else
# "open" (the rounds cannot tell).
# Queue depth / batch: 128 / 32 below 128 KiB, 32 / 8 from 128 KiB.
#
# Targets:
#   zram  /dev/zram0 (root): disksize set to 2G if it is 0 (reset at exit only
#         then), filled with /dev/urandom first; O_DIRECT.
#   file  a 1 GiB file of random data on the repository's file system, read
#         buffered while it is in the page cache (completes inline).
#   loop  a loop device (losetup -f, direct-io=on) over a 1 GiB file of random
#         data made here; O_DIRECT. Detached at exit.
# t/io_uring is built from Debian's fio source package in $FIDELITY_CACHE
# (default /var/cache/blkperf-fidelity), never inside the repository; the
# script adds a deb-src entry of its own (/etc/apt/sources.list.d/
# blkperf-fio-src.sources) to fetch it.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=zram,file,loop
sizes=4k,16k,64k,128k,1m
experiments=fixed_vs_plain,registered_files,vectored_vs_plain,huge_vs_normal,one_region_vs_per_slot,percpu_vs_shared,split_none_vs_limits
rounds=5
runtime=5
cpu=$(( $(nproc) - 1 ))
cache=${FIDELITY_CACHE:-/var/cache/blkperf-fidelity}
usage="usage: $0 [--targets zram,file,loop] [--bs 4k,...] [--experiments a,b] [--rounds N>=1] [--runtime S>=2] [--cpu C]"
while (($#)); do
  case "$1" in
    --targets) targets=$2; shift 2 ;;
    --bs) sizes=$2; shift 2 ;;
    --experiments) experiments=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]*$ && $runtime =~ ^[1-9][0-9]*$ ]] || { echo "$usage" >&2; exit 2; }
((runtime >= 2)) || { echo "--runtime must be at least 2 s (the first is warm-up)" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "fidelity.sh needs root (zram, loop devices, huge pages)" >&2; exit 1; }

source bench/lib/tio_build.sh
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
loop_dev=
old_hugepages=$(cat /proc/sys/vm/nr_hugepages)
cleanup() {
  [[ -n $loop_dev ]] && losetup -d "$loop_dev"
  ((zram_set)) && echo 1 > /sys/block/zram0/reset
  echo "$old_hugepages" > /proc/sys/vm/nr_hugepages
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # so the EXIT trap cleans up

# Sets $path and $direct for target $1.
setup_target() {
  case "$1" in
    zram)
      [[ -e /sys/block/zram0 ]] || modprobe zram num_devices=1
      if [[ $(cat /sys/block/zram0/disksize) == 0 ]]; then
        echo 2G > /sys/block/zram0/disksize
        zram_set=1
      fi
      # An empty zram returns zero pages without decompressing: fill it.
      dd if=/dev/urandom of=/dev/zram0 bs=1M oflag=direct status=none 2>/dev/null || true  # to ENOSPC
      path=/dev/zram0 direct=1 ;;
    file)
      path=$work/cached.dat direct=0
      dd if=/dev/urandom of="$path" bs=1M count=1024 status=none
      cat "$path" > /dev/null ;;  # into the page cache
    loop)
      dd if=/dev/urandom of="$work/loop.img" bs=1M count=1024 status=none
      loop_dev=$(losetup -f --show --direct-io=on "$work/loop.img")
      path=$loop_dev direct=1 ;;
    *) echo "unknown target $1" >&2; return 1 ;;
  esac
}

# Prints the IOPS of one blkperf run with the base arm plus "$@".
blkperf_run() {
  local direct_flag=--direct
  ((direct)) || direct_flag=--nodirect
  "$blkperfd" run --target="$path" --op=randread --bs="$bs" --qd="$qd" \
    --submit_batch="$batch" --complete_batch="$batch" --cpus="$cpu" \
    --ramp=1s --runtime="$((runtime - 1))s" "$direct_flag" --nolatency_tracking \
    --huge_pages=off --status_interval=0 --json "$@" > "$work/b.json" ||
    { echo "blkperfd failed: $*" >&2; return 1; }
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))
d=j.get("device") or {}
print(j["total"]["iops"], d.get("requests_per_sqe", ""))' "$work/b.json"
}

# Prints the IOPS of one t/io_uring run (the mean of its per-second samples
# after the first) with the base arm plus "$@".
tio_run() {
  taskset -c "$cpu" "$tio" -d "$qd" -s "$batch" -c "$batch" -b "$bytes" \
    -p0 -O"$direct" -n1 -t0 -r "$runtime" "$@" "$path" > "$work/t.out" 2>&1 ||
    { echo "t/io_uring failed: $*: $(tail -3 "$work/t.out")" >&2; return 1; }
  python3 - "$work/t.out" <<'PY'
import re, statistics, sys
v = []
for m in re.finditer(r"IOPS=([0-9.]+)([KM]?),", open(sys.argv[1]).read()):
    v.append(float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6}[m.group(2)])
if len(v) < 2:
    sys.exit("t/io_uring printed under 2 per-second samples: " + open(sys.argv[1]).read()[-400:])
print(statistics.mean(v[1:]))
PY
}

# Experiment definitions: name, blkperf A, blkperf B, t/io_uring A, B.
declare -A bA bB tA tB
bA[fixed_vs_plain]="--fixed_buffers";        bB[fixed_vs_plain]="--nofixed_buffers"
tA[fixed_vs_plain]="-B1 -F1";                tB[fixed_vs_plain]="-B0 -F1"
bA[registered_files]="--registered_files";   bB[registered_files]="--noregistered_files"
tA[registered_files]="-B1 -F1";              tB[registered_files]="-B1 -F0"
bA[vectored_vs_plain]="--nofixed_buffers --vectored"; bB[vectored_vs_plain]="--nofixed_buffers"
bA[huge_vs_normal]="--huge_pages=on";        bB[huge_vs_normal]="--huge_pages=off"
bA[one_region_vs_per_slot]="--buffer_layout=one_region"; bB[one_region_vs_per_slot]="--buffer_layout=per_slot"
bA[percpu_vs_shared]="--request_cache=percpu"; bB[percpu_vs_shared]="--request_cache=shared"
bA[split_none_vs_limits]="--split=none";     bB[split_none_vs_limits]="--split=limits"

to_bytes() { numfmt --from=iec "${1^^}"; }
results=$work/results.tsv
: > "$results"
IFS=, read -r -a target_list <<< "$targets"
IFS=, read -r -a size_list <<< "$sizes"
IFS=, read -r -a exp_list <<< "$experiments"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

for t in "${target_list[@]}"; do
  setup_target "$t"
  for bs in "${size_list[@]}"; do
    bytes=$(to_bytes "$bs")
    if ((bytes < 131072)); then qd=128 batch=32; else qd=32 batch=8; fi
    # Huge pages for the huge arm: qd x bs rounded up to 2 MiB, plus one.
    need=$(( (qd * bytes + 2097151) / 2097152 ))
    echo $(( old_hugepages + need + 1 )) > /proc/sys/vm/nr_hugepages
    free_huge=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
    for ((r = 0; r < rounds; r++)); do
      for e in "${exp_list[@]}"; do
        if [[ $e == huge_vs_normal ]] && ((free_huge < need)); then
          ((r)) || echo "  $t bs=$bs: only $free_huge of $need huge pages could be reserved; huge_vs_normal skipped" >&2
          continue
        fi
        arms=(bA bB); ((r % 2)) && arms=(bB bA)
        for arm in "${arms[@]}"; do
          declare -n flags=$arm
          # shellcheck disable=SC2086
          out=$(blkperf_run ${flags[$e]}) || exit 1
          read -r iops rps <<< "$out"
          printf '%s\t%s\t%s\tblkperf\t%s\t%s\t%s\n' "$t" "$bs" "$e" "${arm#b}" "$iops" "$rps" >> "$results"
          unset -n flags
        done
        [[ -n ${tA[$e]:-} ]] || continue
        arms=(tA tB); ((r % 2)) && arms=(tB tA)
        for arm in "${arms[@]}"; do
          declare -n flags=$arm
          # shellcheck disable=SC2086
          iops=$(tio_run ${flags[$e]}) || exit 1
          printf '%s\t%s\t%s\tt_io_uring\t%s\t%s\t\n' "$t" "$bs" "$e" "${arm#t}" "$iops" >> "$results"
          unset -n flags
        done
      done
      echo "  $t bs=$bs round $r done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    done
  done
  if [[ $t == zram ]] && ((zram_set)); then echo 1 > /sys/block/zram0/reset; zram_set=0; fi
  if [[ $t == loop ]]; then losetup -d "$loop_dev"; loop_dev=; fi
done

echo "# $(date -u '+%F %H:%M') UTC, $(uname -r), $(nproc) CPUs, cpu $cpu, ${rounds} interleaved rounds x ${runtime}s, load before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# command: bench/fidelity.sh --targets $targets --bs $sizes --experiments $experiments --rounds $rounds --runtime $runtime --cpu $cpu"
echo "# spread: the largest max/min IOPS over the rounds of any one arm of the row"
echo "# 95% interval: of the difference, bootstrapped over whole rounds (2,000 resamples); within 0.03: yes = the whole interval within +-0.03, NO = wholly outside, open = the rounds cannot tell"
python3 - "$results" <<'PY'
import collections, random, statistics, sys
runs = collections.defaultdict(list)   # (target, bs, exp, tool, arm) -> iops by round
rps = collections.defaultdict(list)    # requests per SQE
order = []
for line in open(sys.argv[1]):
    t, bs, e, tool, arm, iops, r = line.rstrip("\n").split("\t")
    if (t, bs, e) not in order:
        order.append((t, bs, e))
    runs[t, bs, e, tool, arm].append(float(iops))
    if r:
        rps[t, bs, e, arm].append(float(r))
def ratio(t, bs, e, tool, rounds=None):
    a, b = runs.get((t, bs, e, tool, "A")), runs.get((t, bs, e, tool, "B"))
    if not a or not b:
        return None
    if rounds is not None:
        a, b = [a[i] for i in rounds], [b[i] for i in rounds]
    return statistics.median(a) / statistics.median(b)
def interval(t, bs, e):
    # Rounds are resampled whole: both tools' arms of a round stay together.
    n = min(len(runs[t, bs, e, tool, arm]) for tool in ("blkperf", "t_io_uring") for arm in "AB")
    rng = random.Random(13)
    d = sorted(ratio(t, bs, e, "blkperf", s) - ratio(t, bs, e, "t_io_uring", s)
               for s in ([rng.randrange(n) for _ in range(n)] for _ in range(2000)))
    return d[50], d[1949]
def spread(t, bs, e):
    return max(max(v) / min(v) for k, v in runs.items() if k[:3] == (t, bs, e))
print("| experiment | bs | target | blkperf ratio | t/io_uring ratio | difference | 95% interval | within 0.03? | spread |")
print("|---|---|---|---|---|---|---|---|---|")
for t, bs, e in order:
    b, k = ratio(t, bs, e, "blkperf"), ratio(t, bs, e, "t_io_uring")
    note = ""
    if e == "split_none_vs_limits" and rps.get((t, bs, e, "A")):
        note = " (req/SQE %.2f vs %.2f)" % (statistics.median(rps[t, bs, e, "A"]),
                                           statistics.median(rps[t, bs, e, "B"]))
    if k is None:
        print(f"| {e} | {bs} | {t} | {b:.3f}{note} | n/a | n/a | n/a | n/a | {spread(t, bs, e):.2f} |")
    else:
        lo, hi = interval(t, bs, e)
        verdict = "yes" if -0.03 <= lo and hi <= 0.03 else "NO" if lo > 0.03 or hi < -0.03 else "open"
        print(f"| {e} | {bs} | {t} | {b:.3f} | {k:.3f} | {b - k:+.3f} | {lo:+.3f} to {hi:+.3f} | {verdict} | {spread(t, bs, e):.2f} |")
PY
