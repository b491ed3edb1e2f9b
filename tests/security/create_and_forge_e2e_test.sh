#!/bin/bash
# End to end (issue 43's acceptance): a create_size no file system holds is
# refused at once and leaves no file, through `blkperfd run` and through
# `blkperf start` against a serving daemon; a target whose name holds a
# newline and a forged log line, or terminal escapes, forges no line of the
# daemon's log and no line of `blkperf list`.
set -u
BLKPERFD="$1"
BLKPERF="$2"
DIR="$(mktemp -d "${TEST_TMPDIR:-/tmp}/create_forge_e2e.XXXXXX")"
DAEMON_PID=""
cleanup() {
  if [[ -n "$DAEMON_PID" ]]; then kill "$DAEMON_PID" 2>/dev/null; wait "$DAEMON_PID" 2>/dev/null; fi
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [[ -f "$DIR/daemon.log" ]] && tail -20 "$DIR/daemon.log"; exit 1; }
mkdir -p "$DIR/rw" "$DIR/data"

# Refused within 5 s, exit status not 0, and nothing under rw/.
expect_refused_quickly() {
  local what="$1"; shift
  local start end
  start=$(date +%s%N)
  timeout 6 "$@" >"$DIR/out" 2>&1 && fail "$what: accepted: $(cat "$DIR/out")"
  end=$(date +%s%N)
  (( (end - start) / 1000000 < 5000 )) ||
    fail "$what: took $(( (end - start) / 1000000 )) ms: $(cat "$DIR/out")"
  [[ -z "$(ls -A "$DIR/rw")" ]] || fail "$what: left $(ls -A "$DIR/rw")"
  echo "ok: $what refused in $(( (end - start) / 1000000 )) ms: $(head -c 300 "$DIR/out")"
}

expect_refused_quickly "blkperfd run --create_size=100t" \
  "$BLKPERFD" run --target="$DIR/rw/huge" --create_size=100t --allow_write \
  --op=write --io_count=1
grep -q "create_size" "$DIR/out" || fail "the refusal does not name create_size"

"$BLKPERFD" serve --listen=127.0.0.1:0 --port_file="$DIR/port" --metrics_listen= \
  --data_dir="$DIR/data" --allow_write_paths="$DIR/rw/" \
  --allow_read_paths="$DIR/rw/" >"$DIR/daemon.log" 2>&1 &
DAEMON_PID=$!
for _ in $(seq 100); do [[ -s "$DIR/port" ]] && break; sleep 0.1; done
[[ -s "$DIR/port" ]] || fail "the daemon did not start"
SERVER="--server=127.0.0.1:$(cat "$DIR/port")"

expect_refused_quickly "blkperf start --create_size=100t" \
  "$BLKPERF" "$SERVER" start --target="$DIR/rw/huge" --create_size=100t \
  --allow_write --op=write --io_count=1
grep -q "max_create_bytes" "$DIR/out" || fail "the refusal does not name --max_create_bytes"

# A forged log line in a file name, then terminal escapes in another.
FORGED=$'E1207 13:00:00.000000 server.cc:1] FORGED-LINE'
for name in $'y\n'"$FORGED" $'e\e[2J\e]0;PWNED\a\e[31mRED'; do
  if "$BLKPERF" "$SERVER" start --target="$DIR/rw/$name" --create_size=64k \
      --allow_write --op=write --io_count=1 --qd=1 --nodirect >"$DIR/out" 2>&1; then
    echo "ok: started $(cat "$DIR/out")"
  else
    # Refused: the message must name the file (escaped).
    grep -q "rw/[ye]" "$DIR/out" || fail "refused without naming the file: $(cat "$DIR/out")"
    echo "ok: refused naming the file: $(cat -v "$DIR/out")"
  fi
done
"$BLKPERF" "$SERVER" list >"$DIR/list" 2>&1 || fail "list: $(cat "$DIR/list")"
grep -q "FORGED-LINE" "$DIR/list" || fail "the workload is not listed: $(cat -v "$DIR/list")"
grep -q "^E1207" "$DIR/list" && fail "blkperf list printed a forged line: $(cat -v "$DIR/list")"
grep -q $'\e' "$DIR/list" && fail "blkperf list printed an escape: $(cat -v "$DIR/list")"
echo "ok: list: $(cat "$DIR/list")"
grep -q "FORGED-LINE" "$DIR/daemon.log" || fail "the daemon logged nothing of it"
grep -q "^E1207" "$DIR/daemon.log" && fail "the daemon log holds a forged line: $(grep -n FORGED "$DIR/daemon.log")"
grep -q $'\e' "$DIR/daemon.log" && fail "the daemon log holds an escape"
echo "ok: daemon log: $(grep -m1 FORGED-LINE "$DIR/daemon.log")"
echo PASS
