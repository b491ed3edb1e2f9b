#!/usr/bin/env bash
# What the control plane and metrics cost the engine (bars: under 2% IOPS
# each). Runs the same workload, rotating the order for several rounds:
#   local    `blkperfd run --json`, no live output;
#   remote   `blkperfd serve` + `blkperf run` watching at 1 s intervals, with
#            a second `blkperf watch` process at 1 s on the same workload;
#   scraped  remote, with /metrics also scraped every second;
#   control  remote, with an unrelated HTTP server of the same page size
#            scraped every second instead: what the load generator's own
#            activity on the other CPUs costs (on a VM whose vCPUs share a
#            core, any work there slows the workload's CPU a little);
# and prints the median IOPS of each, the ratios to local, and the
# exporter's own cost: scraped against control.
#
#   bench/grpc_overhead.sh                         # 5 rounds x 5 s
#   bench/grpc_overhead.sh --rounds 3 --runtime 4 --target file
#
# Targets: "zram" uses /dev/zram0 only as root and only when its disksize is
# 0; it sets it to 2G and resets it at exit (so nothing it did not set up is
# touched). "file" uses a 1 GiB file in a temporary directory under the
# repository, removed at exit. "auto" (the default) takes zram when it can,
# else the file. The workload: 4 KiB random reads, queue depth 32, one
# submitter pinned to the last CPU (--cpu), the daemon's defaults otherwise.
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=${BLKPERF_RESULTS_DB:-none}
cd "$(dirname "$0")/.."
source bench/lib/zram.sh

target=auto
rounds=5
runtime=5
bs=4k
qd=32
cpu=$(( $(nproc) - 1 ))
usage="usage: $0 [--target auto|zram|file] [--rounds N] [--runtime S] [--bs B] [--qd N] [--cpu C]"
while (($#)); do
  case "$1" in
    --target) target=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --bs) bs=$2; shift 2 ;;
    --qd) qd=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
((rounds >= 1)) || { echo "$usage" >&2; exit 2; }

command -v python3 >/dev/null || tools/setup.sh
bazel build -c opt //daemon:blkperfd //client:blkperf >&2
# bazel-bin follows the last build's options; ask for the optimized tree.
bin=$(bazel info -c opt bazel-bin 2>/dev/null)
blkperfd=$bin/daemon/blkperfd
blkperf=$bin/client/blkperf

work=$(mktemp -d "$(pwd)/.bench.XXXXXX")
zram_configured=0
daemon_pid=""
cleanup() {
  if [[ -n $scraper ]]; then kill "$scraper" 2>/dev/null || true; fi
  if [[ -n ${control_server:-} ]]; then kill "$control_server" 2>/dev/null || true; fi
  if [[ -n $daemon_pid ]] && kill -0 "$daemon_pid" 2>/dev/null; then
    kill -TERM "$daemon_pid"
    wait "$daemon_pid" || true
  fi
  rm -rf "$work"
  if ((zram_configured)); then reset_zram zram0; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

zram_usable() {
  [[ $(id -u) -eq 0 ]] || { echo "zram needs root" >&2; return 1; }
  if [[ ! -e /sys/block/zram0 ]]; then modprobe zram num_devices=1 || return 1; fi
  if [[ $(cat /sys/block/zram0/disksize) != 0 ]]; then
    echo "/dev/zram0 is already configured by someone else; not touching it" >&2
    return 1
  fi
}

case "$target" in
  auto|zram)
    if zram_usable; then
      echo 2G > /sys/block/zram0/disksize
      zram_configured=1
      path=/dev/zram0
    elif [[ $target == zram ]]; then
      exit 1
    else
      target=file
    fi ;;
  file) ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
if [[ $target == file ]]; then
  path=$work/target.dat
  "$blkperfd" run --target="$path" --create_size=1G --allow_write \
    --io_count=1 --status_interval=0 >/dev/null
fi

# The Prometheus endpoint on a free port: nothing scrapes it here.
serve_flags=(--listen=127.0.0.1:0 --port_file="$work/port"
             --allow_read_paths="$work/,/dev/" --metrics_listen=127.0.0.1:0)
setsid "$blkperfd" serve "${serve_flags[@]}" >"$work/blkperfd.log" 2>&1 &
daemon_pid=$!
for ((i = 0; i < 300; i++)); do
  [[ -s $work/port ]] && break
  kill -0 "$daemon_pid" 2>/dev/null || { cat "$work/blkperfd.log" >&2; exit 1; }
  sleep 0.1
done
[[ -s $work/port ]] || { echo "blkperfd wrote no port" >&2; exit 1; }
server=127.0.0.1:$(<"$work/port")
metrics_url=$(grep -o 'http://[^ ]*/metrics' "$work/blkperfd.log" | head -1)
[[ -n $metrics_url ]] || { echo "blkperfd logged no metrics address" >&2; exit 1; }

# The clients and the scraper stand in for other machines (a fleet's
# Prometheus scrapes from elsewhere): they run on the CPUs the workload does
# not use, so what is measured is what the daemon itself spends.
other_cpus=$(python3 -c 'import os,sys; c=sorted(os.sched_getaffinity(0)-{int(sys.argv[1])}); print(",".join(map(str,c)))' "$cpu")
elsewhere=()
[[ -n $other_cpus ]] && elsewhere=(taskset -c "$other_cpus")

workload=(--target="$path" --op=randread --bs="$bs" --qd="$qd" --cpus="$cpu"
          --runtime="${runtime}s")

iops() {  # a JSON report file of daemon/report (both sides print the same)
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"]["iops"])' "$1"
}

local_iops() {
  "$blkperfd" run "${workload[@]}" --status_interval=0 --json > "$work/local.json"
  iops "$work/local.json"
}

scraper=""
start_scraper() {  # URL: GETs it once a second until stopped
  "${elsewhere[@]}" python3 - "$1" <<'PY' &
import sys, time, urllib.request
while True:
    urllib.request.urlopen(sys.argv[1], timeout=5).read()
    time.sleep(1)
PY
  scraper=$!
}
stop_scraper() { kill "$scraper"; wait "$scraper" 2>/dev/null || true; scraper=""; }

remote_iops_while_scraping() {  # URL
  start_scraper "$1"
  local value status=0
  value=$(remote_iops) || status=$?
  stop_scraper
  ((status == 0)) && echo "$value"
}
scraped_iops() { remote_iops_while_scraping "$metrics_url"; }
control_iops() { remote_iops_while_scraping "$control_url"; }

remote_iops() {
  : > "$work/run.err"
  "${elsewhere[@]}" "$blkperf" --server="$server" --interval=1s --report_json run "${workload[@]}" \
    > "$work/remote.json" 2> "$work/run.err" &
  local run=$! id="" watch=""
  for ((i = 0; i < 200; i++)); do
    id=$(sed -n 's/^blkperf: started workload \([^ ]*\) on .*/\1/p' "$work/run.err")
    [[ -z $id ]] || break
    sleep 0.05
  done
  if [[ -n $id ]]; then
    "${elsewhere[@]}" "$blkperf" --server="$server" --interval=1s watch "$id" \
      > "$work/watch.out" 2> "$work/watch.err" &
    watch=$!
  else
    echo "no workload id from blkperf run: $(cat "$work/run.err")" >&2
  fi
  local status=0
  wait "$run" || status=$?
  if [[ -n $watch ]]; then wait "$watch" || status=$?; fi
  if ((status != 0)) || [[ -z $id ]]; then
    echo "remote run failed: $(cat "$work/run.err" "$work/watch.err" 2>/dev/null)" >&2
    return 1
  fi
  iops "$work/remote.json"
}

median() { python3 -c 'import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

echo "# $(date -u +%F) $(uname -r), $(nproc) CPUs, target $path, randread bs=$bs qd=$qd cpu=$cpu, ${rounds} rounds x ${runtime}s"
# The control page: blkperfd's own /metrics text, served by a plain server.
mkdir -p "$work/control"
python3 -c 'import sys,urllib.request; open(sys.argv[2],"wb").write(urllib.request.urlopen(sys.argv[1]).read())' \
  "$metrics_url" "$work/control/metrics"
control_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"${elsewhere[@]}" python3 -m http.server --bind 127.0.0.1 --directory "$work/control" \
  "$control_port" >/dev/null 2>&1 &
control_server=$!
control_url=http://127.0.0.1:$control_port/metrics
for ((i = 0; i < 50; i++)); do
  python3 -c 'import sys,urllib.request; urllib.request.urlopen(sys.argv[1])' "$control_url" 2>/dev/null && break
  sleep 0.1
done

kinds=(local remote scraped control)
declare -A results=()
for ((round = 0; round < rounds; round++)); do
  line="  round $round:"
  for ((i = 0; i < ${#kinds[@]}; i++)); do
    kind=${kinds[$(( (i + round) % ${#kinds[@]} ))]}
    value=$("${kind}_iops")
    results[$kind]+="$value "
    line+=" $kind $value"
  done
  echo "$line" >&2
done
python3 - "$path" "$(median ${results[local]})" "$(median ${results[remote]})" \
  "$(median ${results[scraped]})" "$(median ${results[control]})" <<'PY'
import sys
path = sys.argv[1]
local, remote, scraped, control = (float(x) for x in sys.argv[2:])
def cell(name, value):
    ratio = value / local if local > 0 else 0.0
    cost = (1 - ratio) * 100
    verdict = "within" if cost < 2 else "OVER"
    return (f"{name} {value/1e3:.1f}k IOPS, ratio {ratio:.4f}, "
            f"cost {cost:+.2f}% ({verdict} the 2% bar)")
exporter = (1 - scraped / control) * 100 if control > 0 else 0.0
print(f"| {path} | local {local/1e3:.1f}k IOPS (median) "
      f"| {cell('remote + 2 watchers', remote)} "
      f"| {cell('remote + watchers + /metrics every 1 s', scraped)} "
      f"| {cell('remote + watchers + unrelated page every 1 s', control)} "
      f"| exporter's own cost (scraped vs unrelated page) {exporter:+.2f}% "
      f"({'within' if exporter < 2 else 'OVER'} the 2% bar) |")
PY
