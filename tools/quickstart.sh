#!/usr/bin/env bash
# The README's first command. Installs what is missing (tools/setup.sh),
# builds blkperfd and the blkperf client optimized, starts `blkperfd serve` on
# a free loopback port and runs the default workload through the client:
# 4 KiB random reads, queue depth 32, 10 s, on the 1 GiB file the daemon keeps
# in its data directory (created and filled on first use; /var/lib/blkperf as
# root). Prints live status lines, then IOPS, bandwidth and latency
# percentiles. Exits with the client's exit status; the daemon is stopped
# with SIGTERM on the way out, whatever happens.
#
#   tools/quickstart.sh                         # the default workload
#   tools/quickstart.sh --runtime=3s --qd=64    # extra flags go to `blkperf run`
#   tools/quickstart.sh --target=/dev/zram0 --ab=none,limits  # an experiment
#
# Ctrl-C stops the workload early; the report still follows.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup.sh
bazel build -c opt //daemon:blkperfd //client:blkperf
# bazel-bin follows the last build's options; ask for the optimized tree.
bin=$(bazel info -c opt bazel-bin 2>/dev/null)
blkperfd=$bin/daemon/blkperfd
blkperf=$bin/client/blkperf

work=$(mktemp -d "${TMPDIR:-/tmp}/blkperf-quickstart.XXXXXX")
daemon_pid=""
stop_daemon() {
  if [[ -n $daemon_pid ]] && kill -0 "$daemon_pid" 2>/dev/null; then
    kill -TERM "$daemon_pid"
    wait "$daemon_pid" || echo "quickstart: blkperfd exited with status $?;" \
      "its log: $(tail -n 5 "$work/blkperfd.log")" >&2
  fi
  daemon_pid=""
  rm -rf "$work"
}
trap stop_daemon EXIT
# A signal before the client runs ends the script (and so the daemon). While
# the client runs, it handles Ctrl-C itself (stops the workload, prints the
# report) and its exit status stands.
interrupted=0
trap 'interrupted=1' INT TERM

# The Prometheus endpoint on a free port too, so a blkperfd already serving
# on the default ports is no obstacle.
serve_flags=(--listen=127.0.0.1:0 --port_file="$work/port"
             --metrics_listen=127.0.0.1:0)
# In a session of its own: Ctrl-C meant for the client must not reach it.
setsid "$blkperfd" serve "${serve_flags[@]}" >"$work/blkperfd.log" 2>&1 &
daemon_pid=$!

port=""
for ((i = 0; i < 300; i++)); do
  if ((interrupted)); then exit 130; fi
  if [[ -s $work/port ]]; then
    port=$(<"$work/port")
    break
  fi
  if ! kill -0 "$daemon_pid" 2>/dev/null; then
    wait "$daemon_pid" || true
    daemon_pid=""
    echo "quickstart: blkperfd serve exited before serving:" >&2
    cat "$work/blkperfd.log" >&2
    exit 1
  fi
  sleep 0.1
done
if [[ -z $port ]]; then
  echo "quickstart: blkperfd serve wrote no port within 30 s:" >&2
  cat "$work/blkperfd.log" >&2
  exit 1
fi
echo "quickstart: blkperfd serving on 127.0.0.1:$port (pid $daemon_pid)" >&2

status=0
"$blkperf" --server="127.0.0.1:$port" run "$@" || status=$?
exit "$status"
