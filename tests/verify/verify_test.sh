#!/usr/bin/env bash
# End to end: data verification with the real `blkperfd run`.
# - the acceptance check: two sequential verify write passes over a 64 MiB
#   file, a block of the first pass put back, and a verify read that exits
#   non-zero naming the block's byte offset;
# - each detection (corruption, torn, misdirected, wrong target) on a file;
# - randrw with inline verify, a verify-only pass, a dumped bad block;
# - a write lost after the daemon is SIGKILLed mid-write, on a loop device,
#   found through the verify state saved in the data directory.
set -euo pipefail
blkperfd=$1
dir=${TEST_TMPDIR:-$(mktemp -d)}
bs=4096
loop=""
fail() { echo "FAIL: $*" >&2; exit 1; }
cleanup() { if [[ -n $loop ]]; then losetup -d "$loop" || true; fi; }
trap cleanup EXIT

run() { "$blkperfd" run --status_interval=0 "$@"; }
# copy_block FROM INDEX TO: block INDEX of FROM into file TO.
copy_block() { dd if="$1" of="$3" bs=$bs skip="$2" count=1 status=none; }
# put_block FROM TARGET INDEX: FROM (one block) over block INDEX of TARGET.
put_block() {
  dd if="$1" of="$2" bs=$bs seek="$3" count=1 conv=notrunc,fsync status=none
}
# expect_mismatch NAME PATTERN ARGS...: the run must exit non-zero and its
# output must contain PATTERN.
expect_mismatch() {
  local name=$1 pattern=$2
  shift 2
  if run "$@" > "$dir/$name.txt" 2>&1; then
    cat "$dir/$name.txt" >&2
    fail "$name: the verify read passed"
  fi
  grep -qF -- "$pattern" "$dir/$name.txt" ||
    { cat "$dir/$name.txt" >&2; fail "$name: output lacks '$pattern'"; }
}

# --- Acceptance: a block put back from the first of two passes. -----------
F=$dir/accept.dat
D=$dir/data
write_pass() {
  run --target="$1" --create_size=64m --allow_write --op=write --verify \
    --bs=4k --io_count=16384 --data_dir="$D" > "$dir/write.txt"
  grep -q "write_ios\|ios=16384" "$dir/write.txt" || fail "write pass: $(cat "$dir/write.txt")"
}
write_pass "$F"
copy_block "$F" 1234 "$dir/first_pass.blk"
write_pass "$F"
run --target="$F" --op=read --verify --bs=4k --io_count=16384 --data_dir="$D" \
  > "$dir/clean.txt" || { cat "$dir/clean.txt" >&2; fail "clean verify read failed"; }
grep -q "verify: checked=16384 mismatches=0 unwritten=0" "$dir/clean.txt" ||
  { cat "$dir/clean.txt" >&2; fail "clean read did not check every block"; }
put_block "$dir/first_pass.blk" "$F" 1234
expect_mismatch accept "offset $((1234 * bs)) (stale)" \
  --target="$F" --op=read --verify --bs=4k --io_count=16384 --data_dir="$D"
grep -qF "generation 1, the last acknowledged write was generation 2" \
  "$dir/accept.txt" || fail "acceptance: generations not named"

# --- Detections on a small file, each from a clean state. ------------------
G=$dir/small.dat
H=$dir/other.dat
small_write() {
  run --target="$1" --create_size=4m --allow_write --op=write --verify \
    --bs=4k --io_count=1024 --data_dir="$D" > /dev/null
}
verify_pass() {
  run --target="$1" --op=read --verify --verify_pass --bs=4k --data_dir="$D" "${@:2}"
}
small_write "$G"
small_write "$H"
small_write "$G"
verify_pass "$G" > "$dir/g_clean.txt" || fail "clean verify pass of $G"
grep -q "verify: checked=1024 mismatches=0" "$dir/g_clean.txt" ||
  { cat "$dir/g_clean.txt" >&2; fail "verify_pass did not read every block once"; }

# Corruption: one flipped byte, named at its byte offset; the block dumped.
printf '\x5a' | dd of="$G" bs=1 seek=$((5 * bs + 1000)) conv=notrunc,fsync status=none
copy_block "$G" 5 "$dir/g5_bad.blk"
expect_mismatch corrupt "offset $((5 * bs)) (corrupt)" \
  --target="$G" --op=read --verify --verify_pass --verify_dump --bs=4k \
  --data_dir="$D"
grep -qF "first bad byte $((5 * bs + 1000))" "$dir/corrupt.txt" ||
  fail "corrupt: byte offset not named"
dump=$(ls "$D"/verify/bad-*-$((5 * bs)).bin)
cmp "$dump" "$dir/g5_bad.blk" || fail "the dumped block is not the bad block"
copy_block "$G" 9 "$dir/g9_previous.blk"
small_write "$G"

# Torn: the first half of block 9 from the last write, the second half from
# the write before it.
dd if="$dir/g9_previous.blk" of="$G" bs=2048 skip=1 seek=$((9 * 2 + 1)) count=1 \
  conv=notrunc,fsync status=none
expect_mismatch torn "offset $((9 * bs)) (torn)" \
  --target="$G" --op=read --verify --verify_pass --bs=4k --data_dir="$D"
small_write "$G"

# Misdirected: block 10's data written at block 11.
copy_block "$G" 10 "$dir/g10.blk"
put_block "$dir/g10.blk" "$G" 11
expect_mismatch misdirected "offset $((11 * bs)) (misdirected)" \
  --target="$G" --op=read --verify --verify_pass --bs=4k --data_dir="$D"
grep -qF "belongs at offset $((10 * bs))" "$dir/misdirected.txt" ||
  fail "misdirected: the block's own offset not named"
small_write "$G"

# Data of another target at the right offset.
copy_block "$H" 3 "$dir/h3.blk"
put_block "$dir/h3.blk" "$G" 3
expect_mismatch wrong_target "offset $((3 * bs)) (wrong target)" \
  --target="$G" --op=read --verify --verify_pass --bs=4k --data_dir="$D"
small_write "$G"

# randrw with inline verify: every read checks the last write of its block.
run --target="$G" --allow_write --op=randrw --verify --bs=4k --io_count=20000 \
  --qd=16 --data_dir="$D" > "$dir/randrw.txt" ||
  { cat "$dir/randrw.txt" >&2; fail "randrw with verify failed"; }
grep -q "verify: checked=[1-9][0-9]* mismatches=0" "$dir/randrw.txt" ||
  { cat "$dir/randrw.txt" >&2; fail "randrw checked nothing"; }
verify_pass "$G" > /dev/null || fail "verify pass after randrw"

# A read with another block size cannot use the state: refused, naming it.
if run --target="$G" --op=read --verify --bs=8k --io_count=10 \
    --data_dir="$D" > "$dir/other_bs.txt" 2>&1; then
  fail "a verify read with another block size passed"
fi
grep -q "INVALID_ARGUMENT.*block_size 4096" "$dir/other_bs.txt" ||
  { cat "$dir/other_bs.txt" >&2; fail "other block size message"; }

# A target never written with verify has no state: refused, not "passed".
truncate -s 4m "$dir/never.dat"
if run --target="$dir/never.dat" --op=read --verify --io_count=10 \
    --data_dir="$D" > "$dir/never.txt" 2>&1; then
  fail "a verify read without state passed"
fi
grep -q "no verify state" "$dir/never.txt" || fail "no-state message"

# --- A lost write after SIGKILL, on a loop device. --------------------------
truncate -s 4m "$dir/loop.img"
loop=$(losetup -f --show "$dir/loop.img")
run --target="$loop" --allow_write --op=write --verify --bs=4k --io_count=1024 \
  --data_dir="$D" > /dev/null
dd if="$loop" of="$dir/loop0_gen1.blk" bs=$bs count=1 iflag=direct status=none
"$blkperfd" run --status_interval=0 --target="$loop" --allow_write --op=write \
  --verify --bs=4k --runtime=60s --data_dir="$D" > /dev/null 2>&1 &
pid=$!
sleep 2
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
# Every acknowledged write is there (a write in flight may be either version).
verify_pass "$loop" > "$dir/after_kill.txt" 2>&1 ||
  { cat "$dir/after_kill.txt" >&2; fail "verify after SIGKILL failed"; }
grep -q "verify: checked=1024 mismatches=0" "$dir/after_kill.txt" ||
  { cat "$dir/after_kill.txt" >&2; fail "after SIGKILL: not every block checked"; }
# Lose one acknowledged write: block 0 as the first pass left it.
dd if="$dir/loop0_gen1.blk" of="$loop" bs=$bs count=1 oflag=direct \
  conv=notrunc status=none
expect_mismatch lost "offset 0 (stale)" \
  --target="$loop" --op=read --verify --verify_pass --bs=4k --data_dir="$D"
echo PASS
