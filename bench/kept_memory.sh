#!/bin/bash
# What a daemon keeps per finished A/B workload of 1024 phases: heap bytes
# in use (glibc's malloc_stats, called through gdb) after N such workloads,
# with --keep_finished=16 and with 0 (nothing kept); the difference over N is
# the memory one kept workload holds. RSS cannot show it: the allocator keeps
# pages of freed transient snapshots.
#
#   bench/kept_memory.sh [--daemon PATH] [--client PATH] [--workloads N]
#
# Runs a daemon on a free loopback port over files in a temporary directory
# it removes; nothing else is written.
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=${BLKPERF_RESULTS_DB:-none}

daemon=bazel-bin/daemon/blkperfd
client=bazel-bin/client/blkperf
n=2
while [[ $# -gt 0 ]]; do
  case $1 in
    --daemon) daemon=$2; shift 2 ;;
    --client) client=$2; shift 2 ;;
    --workloads) n=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done

heap_in_use() {  # keep_finished -> bytes
  local keep=$1 dir pid srv
  dir=$(mktemp -d /tmp/blkperf_kept_memory.XXXXXX)
  mkdir -p "$dir/rw"
  "$daemon" serve --listen=127.0.0.1:0 --port_file="$dir/port" \
    --data_dir="$dir/data" --allow_read_paths="$dir/" \
    --allow_write_paths="$dir/rw/" --metrics_listen= \
    --keep_finished="$keep" 2>"$dir/daemon.log" &
  pid=$!
  for _ in $(seq 100); do [[ -s $dir/port ]] && break; sleep 0.1; done
  srv=127.0.0.1:$(cat "$dir/port")
  "$client" --server="$srv" run --target="$dir/rw/t.dat" --create_size=16m \
    --allow_write --runtime=1s --qd=1 >/dev/null 2>&1
  # The API's A/B schedule from a spec file (--ab is an experiment).
  echo '{"ab_strategies": ["none", "limits"], "ab_slice": "0.010s"}' > "$dir/ab.json"
  for _ in $(seq "$n"); do
    # 1024 slices of 10 ms (the shortest slice): 1024 phases.
    "$client" --server="$srv" run --target="$dir/rw/t.dat" \
      --spec_file="$dir/ab.json" --runtime=10230ms --qd=1 >/dev/null 2>&1
  done
  "$client" --server="$srv" list >/dev/null
  gdb -p "$pid" -batch -ex 'call (void)malloc_stats()' >/dev/null 2>&1
  grep "in use bytes" "$dir/daemon.log" | tail -1 | awk '{print $NF}'
  kill "$pid"; wait "$pid" 2>/dev/null || true
  rm -rf "$dir"
}

kept=$(heap_in_use 16)
none=$(heap_in_use 0)
echo "daemon=$daemon workloads=$n heap_in_use keep16=$kept keep0=$none" \
     "per_kept_workload_bytes=$(( (kept - none) / n ))"
