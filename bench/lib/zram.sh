# shellcheck shell=bash
# zram helpers for the bench scripts.
#
#   source bench/lib/zram.sh
#   fill_zram /dev/zram0   # to its end, from /dev/urandom
#   reset_zram zram0       # back to disksize 0, retrying while it is busy

# Fills zram device $1 (a /dev path) to its end from /dev/urandom: an empty
# zram returns zero pages without decompressing. dd stops with ENOSPC at
# the end of the device: that is the fill.
fill_zram() {
  dd if=/dev/urandom of="$1" bs=1M oflag=direct status=none 2> /dev/null || true
}

# Resets zram device $1 (zram0): an io_uring that had it open lets go of
# it a little after its process exits (the ring is torn down by a kernel
# worker), so a reset right after a run can find it busy.
reset_zram() {
  local i
  for ((i = 0; i < 50; i++)); do
    echo 1 2> /dev/null > "/sys/block/$1/reset" && return 0
    sleep 0.1
  done
  echo "could not reset /dev/$1: still busy after 5 s" >&2
  return 1
}

# zram0 is shared by every bench script and helper on the machine: take it
# only under /tmp/blkperf-zram.lock (exclusive, held until the script
# exits; build before taking it, since a bazel server started later would
# inherit the descriptor and hold the lock).
#
#   zram_take 1G      # the lock, then zram0 set to 1 GiB and filled
#   zram_give_back    # zram0 reset (disksize 0); the EXIT trap calls it
zram_taken=0
zram_take() {
  exec {zram_lock_fd}> /tmp/blkperf-zram.lock
  flock -x "$zram_lock_fd"
  [[ -e /sys/block/zram0 ]] || modprobe zram num_devices=1 ||
    { echo "no zram0 and modprobe zram failed" >&2; return 1; }
  local size
  size=$(cat /sys/block/zram0/disksize)
  [[ $size == 0 ]] ||
    { echo "zram0 is in use (disksize $size) though the lock was free: not touching it" >&2; return 1; }
  echo "$1" > /sys/block/zram0/disksize
  zram_taken=1
  fill_zram /dev/zram0
}
zram_give_back() {
  ((zram_taken)) || return 0
  reset_zram zram0
  zram_taken=0
}
