#!/bin/bash
# End to end: the daemon keeps accepting after running out of descriptors.
# With RLIMIT_NOFILE 32 (soft and hard, so it cannot be raised), 40 idle
# connections exhaust the daemon's descriptors: accept4 fails with EMFILE.
# Once they close, `blkperf caps` must work again. (Debian's gRPC listener
# closed itself for good on the first EMFILE; see daemon/service/accept_loop.h.)
set -u
BLKPERFD="$1"
BLKPERF="$2"
DIR="$(mktemp -d "${TEST_TMPDIR:-/tmp}/emfile_e2e.XXXXXX")"
DAEMON_PID=""
cleanup() {
  if [[ -n "$DAEMON_PID" ]]; then kill "$DAEMON_PID" 2>/dev/null; wait "$DAEMON_PID" 2>/dev/null; fi
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; tail -20 "$DIR/daemon.log"; exit 1; }

(ulimit -n 32 && exec "$BLKPERFD" serve --listen=127.0.0.1:0 --port_file="$DIR/port" \
    --metrics_listen= --data_dir="$DIR/data") >"$DIR/daemon.log" 2>&1 &
DAEMON_PID=$!
for _ in $(seq 100); do [[ -s "$DIR/port" ]] && break; sleep 0.1; done
[[ -s "$DIR/port" ]] || fail "the daemon did not start"
PORT="$(cat "$DIR/port")"
"$BLKPERF" caps --server="127.0.0.1:$PORT" >/dev/null || fail "caps before the flood"

python3 - "$PORT" <<'PY' || fail "the flood did not run"
import socket, sys, time
port = int(sys.argv[1])
conns = []
for _ in range(40):
    s = socket.create_connection(("127.0.0.1", port))
    conns.append(s)
time.sleep(2)   # the daemon accepts until EMFILE, the rest wait in the backlog
for s in conns:
    s.close()
PY
grep -q "Too many open files" "$DIR/daemon.log" ||
  fail "the flood did not reach EMFILE; the test proves nothing"
echo "ok: the daemon hit EMFILE: $(grep -m1 'Too many open files' "$DIR/daemon.log")"

for attempt in 1 2 3; do
  if "$BLKPERF" caps --server="127.0.0.1:$PORT" --connect_timeout=5s >"$DIR/caps.out" 2>&1; then
    echo "ok: caps works again after EMFILE (attempt $attempt)"
    echo PASS
    exit 0
  fi
  sleep 1
done
fail "the daemon stopped accepting after EMFILE: $(cat "$DIR/caps.out")"
