#!/usr/bin/env bash
# What data verification costs, blkperf next to Debian's fio, on the same
# target: a loop device over a file in /dev/shm (RAM), so verify's CPU cost
# shows rather than disk time. One round runs eight jobs, in an order rotated
# every round, each a sequential pass over the whole target (bs, queue depth
# and io_uring the same for both tools, one submitter on one CPU):
#
#   write pass   blkperf --op=write [--verify]    fio rw=write [verify=crc32c do_verify=0]
#   read pass    blkperf --op=read [--verify --verify_pass]
#                                                 fio rw=read [verify=crc32c]
#
# and prints, per tool and pass, the median IOPS without and with verify,
# their ratio (the share of throughput verify leaves), and the median CPU
# time of the submitting thread per I/O without and with verify and their
# difference (what verify costs per I/O).
#
#   bench/verify_cost.sh                      # 5 rounds, 256 MiB, 4 KiB
#   bench/verify_cost.sh --rounds 3 --size 128m --bs 16k
#
# Needs root (losetup). Sets up and removes its own loop device and file.
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=${BLKPERF_RESULTS_DB:-none}
cd "$(dirname "$0")/.."

rounds=5
size=256m
bs=4k
qd=32
cpu=$(( $(nproc) - 1 ))
while (($#)); do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --bs) bs=$2; shift 2 ;;
    --qd) qd=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    *) echo "usage: $0 [--rounds N] [--size S] [--bs B] [--qd N] [--cpu C]" >&2; exit 2 ;;
  esac
done

command -v fio >/dev/null || tools/setup.sh
bazel build -c opt //daemon:blkperfd >&2
blkperfd=$(pwd)/bazel-bin/daemon/blkperfd
work=$(mktemp -d /dev/shm/blkperf-verify-bench.XXXXXX)
loop=""
cleanup() {
  if [[ -n $loop ]]; then losetup -d "$loop" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
truncate -s "$size" "$work/target.img"
loop=$(losetup -f --show "$work/target.img")
data=$work/data

# Each job prints "IOPS CPU_US_PER_IO": the submitting thread's user +
# system CPU per I/O (blkperf: its submitter thread; fio: its job thread),
# which moves far less than IOPS when the host is busy.
blkperf_iops() {  # ARGS... -> IOPS and CPU per I/O of a blkperfd run
  "$blkperfd" run --target="$loop" --bs="$bs" --qd="$qd" --cpus="$cpu" \
    --status_interval=0 --data_dir="$data" --json "$@" |
    python3 -c 'import json,sys; t=json.load(sys.stdin)["total"]; print(t["iops"], 1e6*(t["user_cpu_seconds"]+t["system_cpu_seconds"])/t["ios"])'
}
fio_iops() {  # RW ARGS... -> IOPS and CPU per I/O of a fio run
  local rw=$1
  shift
  fio --name=v --filename="$loop" --ioengine=io_uring --direct=1 --bs="$bs" \
    --iodepth="$qd" --iodepth_batch_submit=32 --iodepth_batch_complete_min=1 \
    --fixedbufs=1 --registerfiles=1 --cpus_allowed="$cpu" --rw="$rw" \
    --size="$size" --output-format=json "$@" |
    python3 -c "import json,sys; j=json.load(sys.stdin)['jobs'][0]; d=j['$rw']; print(('%s %s' % (d['iops'], 1e4*(j['usr_cpu']+j['sys_cpu'])*j['job_runtime']/1000/d['total_ios'])) if j['error']==0 else 'ERROR')"
}
blocks=$(( $(stat -c %s "$work/target.img") / $(numfmt --from=iec "${bs^^}") ))

job() {  # NAME -> IOPS
  case "$1" in
    blkperf_write) blkperf_iops --allow_write --op=write --io_count="$blocks" ;;
    blkperf_write_verify) blkperf_iops --allow_write --op=write --verify --io_count="$blocks" ;;
    blkperf_read) blkperf_iops --op=read --io_count="$blocks" ;;
    blkperf_read_verify) blkperf_iops --op=read --verify --verify_pass ;;
    fio_write) fio_iops write ;;
    fio_write_verify) fio_iops write --verify=crc32c --do_verify=0 --verify_state_save=0 ;;
    fio_read) fio_iops read ;;
    fio_read_verify) fio_iops read --verify=crc32c ;;
  esac
}

# A verify read needs blocks written with verify by the same tool: each
# read_verify job follows its tool's write_verify job within a round.
order=(blkperf_write blkperf_write_verify blkperf_read_verify blkperf_read
       fio_write fio_write_verify fio_read_verify fio_read)
declare -A results cpu_us
for ((r = 0; r < rounds; r++)); do
  # Rotate which tool goes first; each tool's four jobs stay in order.
  if ((r % 2)); then jobs=("${order[@]:4}" "${order[@]:0:4}"); else jobs=("${order[@]}"); fi
  for name in "${jobs[@]}"; do
    read -r iops us < <(job "$name")
    [[ $iops == ERROR ]] && { echo "$name failed" >&2; exit 1; }
    results[$name]+="$iops "
    cpu_us[$name]+="$us "
    echo "round $r $name IOPS=$iops cpu_us_per_io=$us" >&2
  done
done

median() { printf '%s\n' $1 | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
echo "target: loop device over $size in /dev/shm, bs=$bs qd=$qd cpu=$cpu, $rounds rounds (medians)"
printf '%-8s %-6s %11s %11s %7s %11s %11s %9s\n' tool pass "IOPS plain" "IOPS verify" ratio \
  "us/IO plain" "us/IO verif" "verify us"
for tool in blkperf fio; do
  for pass in write read; do
    plain=$(median "${results[${tool}_$pass]}")
    verified=$(median "${results[${tool}_${pass}_verify]}")
    cpu_plain=$(median "${cpu_us[${tool}_$pass]}")
    cpu_verified=$(median "${cpu_us[${tool}_${pass}_verify]}")
    printf '%-8s %-6s %11.0f %11.0f %7.3f %11.2f %11.2f %9.2f\n' "$tool" "$pass" \
      "$plain" "$verified" "$(echo "$verified / $plain" | bc -l)" \
      "$cpu_plain" "$cpu_verified" "$(echo "$cpu_verified - $cpu_plain" | bc -l)"
  done
done
