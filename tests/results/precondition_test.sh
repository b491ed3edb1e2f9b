#!/usr/bin/env bash
# --precondition=sequential:N end to end (docs/results.md, "Preconditioning"):
# `blkperfd run` rewrites every block of its target before the measured run,
# prints progress lines and the report's precondition fields; it is refused
# without --allow_write (exit 2, naming the target's field) and in a bad
# form; `blkperf run` against a `blkperfd serve` shows the workload's
# progress ("[creating] preconditioning pass 1/N, ...") and the same report.
#   precondition_test.sh BLKPERFD BLKPERF
set -euo pipefail
blkperfd=$(realpath "$1")
blkperf=$(realpath "$2")
export BLKPERF_RESULTS_DB=none
dir=$(mktemp -d "${TEST_TMPDIR:-/tmp}/precondition.XXXXXX")
daemon=""
cleanup() {
  if [[ -n $daemon ]]; then kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
json() {  # json FILE EXPR: evaluates EXPR with r = the parsed JSON
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
F=$dir/target.dat
head -c $((16 << 20)) /dev/zero | tr '\0' '\253' > "$F"
before=$(md5sum < "$F")

echo "== refused without --allow_write, and in a bad form: nothing written"
rc=0
"$blkperfd" run --target="$F" --precondition=sequential:2 --runtime=1s \
  --json > /dev/null 2> "$dir/err" || rc=$?
[[ $rc == 2 ]] || fail "exit $rc without --allow_write: $(cat "$dir/err")"
grep -q "targets\[0\].allow_write" "$dir/err" || fail "no field named: $(cat "$dir/err")"
grep -q "$F" "$dir/err" || fail "no target named: $(cat "$dir/err")"
for bad in random:2 sequential:0 sequential:17 sequential:x; do
  rc=0
  "$blkperfd" run --target="$F" --allow_write --precondition="$bad" \
    --runtime=1s > /dev/null 2> "$dir/err" || rc=$?
  [[ $rc == 2 ]] && grep -q -- "--precondition=$bad" "$dir/err" ||
    fail "--precondition=$bad: exit $rc, $(cat "$dir/err")"
done
rc=0
"$blkperfd" run --target="$F" --allow_write --precondition=sequential:1 \
  --vary=qd=1,2 --rounds=2 --round=200ms > /dev/null 2> "$dir/err" || rc=$?
[[ $rc == 2 ]] && grep -q -- "--precondition with an experiment" "$dir/err" ||
  fail "an experiment with --precondition: exit $rc, $(cat "$dir/err")"
[[ $(md5sum < "$F") == "$before" ]] || fail "a refused run wrote the target"

echo "== blkperfd run --precondition=sequential:2"
"$blkperfd" run --target="$F" --allow_write --precondition=sequential:2 \
  --op=randread --runtime=1s --json > "$dir/run.json" 2> "$dir/run.err" ||
  fail "run: $(cat "$dir/run.err")"
grep -q "preconditioning pass 1/2, 0 %" "$dir/run.err" || fail "no progress: $(cat "$dir/run.err")"
grep -q "preconditioning done: 2 passes" "$dir/run.err" || fail "no end: $(cat "$dir/run.err")"
[[ $(json "$dir/run.json" 'r["precondition"]["passes_done"]') == 2 ]] || fail "passes_done"
[[ $(json "$dir/run.json" 'r["precondition"]["complete"]') == True ]] || fail "complete"
[[ $(json "$dir/run.json" 'r["precondition"]["bytes_written"]') == $((2 * (16 << 20))) ]] ||
  fail "bytes_written $(json "$dir/run.json" 'r["precondition"]')"
[[ $(json "$dir/run.json" 'r["precondition"]["seconds"] > 0') == True ]] || fail "seconds"
[[ $(json "$dir/run.json" 'r["total"]["write_ios"]') == 0 ]] || fail "the writes counted as the run's"
# Every byte was 0xab; now no 4 KiB block is.
python3 - "$F" <<'PY' || fail "blocks of the old content left"
import sys
data = open(sys.argv[1], "rb").read()
old = b"\xab" * 4096
left = sum(data[i:i + 4096] == old for i in range(0, len(data), 4096))
sys.exit(1 if left else 0)
PY
"$blkperfd" run --target="$F" --allow_write --precondition=sequential:1 \
  --runtime=1s 2> /dev/null | grep -q "^precondition: sequential 128 KiB writes, 1 of 1 pass complete" ||
  fail "the text report has no precondition line"

echo "== blkperf run --precondition against blkperfd serve"
mkdir "$dir/w"
truncate -s 64M "$dir/remote.dat"
truncate -s 64M "$dir/w/remote.dat"
"$blkperfd" serve --listen=127.0.0.1:0 --port_file="$dir/port" \
  --allow_read_paths="$dir/" --allow_write_paths="$dir/w/" --data_dir="$dir" \
  2> "$dir/daemon.log" &
daemon=$!
for _ in $(seq 100); do [[ -s $dir/port ]] && break; sleep 0.1; done
[[ -s $dir/port ]] || fail "no port file: $(cat "$dir/daemon.log")"
server=127.0.0.1:$(cat "$dir/port")
rc=0
"$blkperf" --server="$server" run --target="$dir/w/remote.dat" \
  --precondition=sequential:2 --runtime=1s > /dev/null 2> "$dir/err" || rc=$?
# The daemon's refusal (INVALID_ARGUMENT): the client's exit 1 for a
# refused call.
[[ $rc == 1 ]] && grep -q "INVALID_ARGUMENT: targets\[0\].allow_write" "$dir/err" ||
  fail "remote without --allow_write: exit $rc, $(cat "$dir/err")"
# A read workload that preconditions writes: the daemon's write rules
# apply (remote.dat may be read, not written).
rc=0
"$blkperf" --server="$server" run --target="$dir/remote.dat" --allow_write \
  --precondition=sequential:1 --op=randread --runtime=1s > /dev/null 2> "$dir/err" || rc=$?
[[ $rc == 1 ]] && grep -q "PERMISSION_DENIED" "$dir/err" ||
  fail "preconditioning a read-only path: exit $rc, $(cat "$dir/err")"
"$blkperf" --server="$server" --interval=100ms run --target="$dir/w/remote.dat" \
  --allow_write --precondition=sequential:6 --op=randread --runtime=1s --json \
  > "$dir/remote.json" 2> "$dir/remote.err" || fail "remote run: $(cat "$dir/remote.err")"
grep -q "\[creating\] preconditioning pass 1/6, " "$dir/remote.err" ||
  fail "no remote progress: $(cat "$dir/remote.err")"
[[ $(json "$dir/remote.json" 'r["precondition"]["passes_done"]') == 6 ]] || fail "remote passes_done"
[[ $(json "$dir/remote.json" 'r["precondition"]["bytes_written"]') == $((6 * (64 << 20))) ]] ||
  fail "remote bytes_written"
echo "PASS"
