#!/usr/bin/env bash
# Runs blkperfd and Debian's fio side by side on the same target, alternating
# which goes first, for several rounds, and prints the median IOPS of each and
# the ratio blkperf/fio. Also compares blkperf's request_cache per_cpu vs
# shared and reports blkperfd's resident memory beyond its I/O buffers.
#
#   bench/compare_fio.sh                   # /dev/zram0 (configured here) and a file
#   bench/compare_fio.sh --target file --rounds 3 --runtime 3
#
# Targets: "zram" uses /dev/zram0 only when its disksize is 0, sets it to 2G
# and resets it at exit (so nothing it did not set up is touched); "file" uses
# a 1 GiB file in a temporary directory on the repository's file system.
# Both tools do only random reads.
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=${BLKPERF_RESULTS_DB:-none}
cd "$(dirname "$0")/.."
source bench/lib/zram.sh

targets=(zram file)
rounds=5
runtime=5
bs=4k
qd=128
batch=32
cpu=$(( $(nproc) - 1 ))
extra_blkperf=()
extra_fio=()
while (($#)); do
  case "$1" in
    --target) targets=("$2"); shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --bs) bs=$2; shift 2 ;;
    --qd) qd=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    --force_async) extra_blkperf+=(--force_async); extra_fio+=(--force_async=1); shift ;;
    *) echo "usage: $0 [--target zram|file] [--rounds N] [--runtime S] [--bs B] [--qd N] [--batch N] [--cpu C] [--force_async]" >&2; exit 2 ;;
  esac
done

command -v fio >/dev/null || tools/setup.sh
bazel build -c opt //daemon:blkperfd >&2
blkperfd=$(pwd)/bazel-bin/daemon/blkperfd
work=$(mktemp -d "$(pwd)/.bench.XXXXXX")
zram_configured=0
cleanup() {
  rm -rf "$work"
  if ((zram_configured)); then reset_zram zram0; fi
}
trap cleanup EXIT

setup_target() {
  case "$1" in
    zram)
      if [[ $(id -u) -ne 0 ]]; then echo "zram needs root; skipping" >&2; return 1; fi
      if [[ ! -e /sys/block/zram0 ]]; then modprobe zram num_devices=1 || return 1; fi
      if [[ $(cat /sys/block/zram0/disksize) != 0 ]]; then
        echo "/dev/zram0 is already configured by someone else; not touching it" >&2
        return 1
      fi
      echo 2G > /sys/block/zram0/disksize
      zram_configured=1
      path=/dev/zram0 ;;
    file)
      path=$work/target.dat
      "$blkperfd" run --target="$path" --create_size=1G --allow_write \
        --io_count=1 --status_interval=0 >/dev/null ;;
    *) echo "unknown target $1" >&2; return 1 ;;
  esac
}

blkperf_iops() {  # extra flags...
  "$blkperfd" run --target="$path" --op=randread --bs="$bs" --qd="$qd" \
    --submit_batch="$batch" --complete_batch="$batch" --cpus="$cpu" \
    --runtime="${runtime}s" --fixed_buffers --registered_files --direct \
    --latency_tracking --status_interval=0 --json "${extra_blkperf[@]}" "$@" \
    > "$work/blkperf.json"
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"]["iops"])' "$work/blkperf.json"
}

fio_iops() {
  fio --name=bench --filename="$path" --ioengine=io_uring --rw=randread \
    --bs="$bs" --iodepth="$qd" --iodepth_batch_submit="$batch" \
    --iodepth_batch_complete_min="$batch" --fixedbufs=1 --registerfiles=1 \
    --direct=1 --cpus_allowed="$cpu" --time_based --runtime="$runtime" \
    --norandommap --randrepeat=0 "${extra_fio[@]}" --output-format=json \
    > "$work/fio.json"
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"])' "$work/fio.json"
}

median() { python3 -c 'import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

echo "# $(date -u +%F) $(uname -r), $(nproc) CPUs, fio $(fio --version), bs=$bs qd=$qd batch=$batch/$batch cpu=$cpu, ${rounds} rounds x ${runtime}s"
for t in "${targets[@]}"; do
  setup_target "$t" || continue
  b=(); f=(); shared=()
  for ((r = 0; r < rounds; r++)); do
    if ((r % 2 == 0)); then
      b+=("$(blkperf_iops)"); f+=("$(fio_iops)")
    else
      f+=("$(fio_iops)"); b+=("$(blkperf_iops)")
    fi
    shared+=("$(blkperf_iops --request_cache=shared)")
    echo "  $t round $r: blkperf ${b[-1]} fio ${f[-1]} blkperf(shared cache) ${shared[-1]}" >&2
  done
  mb=$(median "${b[@]}"); mf=$(median "${f[@]}"); ms=$(median "${shared[@]}")
  # Resident memory beyond the I/O buffers (qd x bs), from one more run.
  rss_kb=$(/usr/bin/time -f %M "$blkperfd" run --target="$path" --bs="$bs" \
    --qd="$qd" --cpus="$cpu" --runtime=2s --status_interval=0 2>&1 >/dev/null | tail -1)
  python3 - "$t" "$path" "$mb" "$mf" "$ms" "$rss_kb" "$bs" "$qd" <<'PY'
import sys
t, path, mb, mf, ms, rss_kb, bs, qd = sys.argv[1:]
mb, mf, ms = float(mb), float(mf), float(ms)
units = {"k": 1 << 10, "m": 1 << 20}
b = int(bs[:-1]) * units[bs[-1].lower()] if bs[-1].lower() in units else int(bs)
buffers_mib = int(qd) * b / 2**20
rss_mib = int(rss_kb) / 1024
print(f"| {t} ({path}) | blkperf {mb/1e3:.1f}k IOPS | fio {mf/1e3:.1f}k IOPS | ratio {mb/mf:.2f} "
      f"| per_cpu/shared {mb/ms:.3f} | RSS {rss_mib:.1f} MiB ({rss_mib-buffers_mib:.1f} MiB beyond {buffers_mib:.1f} MiB of buffers) |")
PY
  if [[ $t == zram ]]; then reset_zram zram0; zram_configured=0; fi
done
