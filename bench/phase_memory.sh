#!/bin/bash
# What a daemon holds for a RUNNING workload's phases: heap bytes in use
# (glibc's malloc_stats, called through gdb) near the end of a one-thread
# A/B workload of 1024 phases (a spec file's ab_strategies none,limits and
# ab_slice 10ms, --runtime=10230ms), minus the same near the end of a workload of the same
# length without switches. Before phases were bounded every boundary kept
# five histograms (~92 KiB); now the first 64 do
# (daemon/engine/phase/phase_report.h).
#
#   bench/phase_memory.sh [--daemon PATH] [--client PATH]
#
# Runs a daemon on a free loopback port over a file in a temporary
# directory it removes; nothing else is written.
set -euo pipefail
export BLKPERF_RESULTS_DB=${BLKPERF_RESULTS_DB:-none}

daemon=bazel-bin/daemon/blkperfd
client=bazel-bin/client/blkperf
while [[ $# -gt 0 ]]; do
  case $1 in
    --daemon) daemon=$2; shift 2 ;;
    --client) client=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done

heap_near_end() {  # extra client flags... -> bytes in use 9.8 s into the run
  local dir pid srv cpid
  dir=$(mktemp -d /tmp/blkperf_phase_memory.XXXXXX)
  mkdir -p "$dir/rw"
  "$daemon" serve --listen=127.0.0.1:0 --port_file="$dir/port" \
    --data_dir="$dir/data" --allow_read_paths="$dir/" \
    --allow_write_paths="$dir/rw/" --metrics_listen= 2>"$dir/daemon.log" &
  pid=$!
  for _ in $(seq 100); do [[ -s $dir/port ]] && break; sleep 0.1; done
  srv=127.0.0.1:$(cat "$dir/port")
  "$client" --server="$srv" run --target="$dir/rw/t.dat" --create_size=16m \
    --allow_write --runtime=1s --qd=1 >/dev/null 2>&1
  "$client" --server="$srv" run --target="$dir/rw/t.dat" --runtime=10230ms \
    --qd=1 "$@" >/dev/null 2>&1 &
  cpid=$!
  sleep 9.8
  gdb -p "$pid" -batch -ex 'call (void)malloc_stats()' >/dev/null 2>&1
  wait "$cpid" || true
  grep "in use bytes" "$dir/daemon.log" | tail -1 | awk '{print $NF}'
  kill "$pid"; wait "$pid" 2>/dev/null || true
  rm -rf "$dir"
}

ab_spec=$(mktemp /tmp/blkperf_phase_memory_ab.XXXXXX.json)
trap 'rm -f "$ab_spec"' EXIT
echo '{"ab_strategies": ["none", "limits"], "ab_slice": "0.010s"}' > "$ab_spec"
ab=$(heap_near_end --spec_file="$ab_spec")
plain=$(heap_near_end)
echo "daemon=$daemon heap_in_use ab1024=$ab plain=$plain" \
     "phases_bytes=$(( ab - plain ))"
