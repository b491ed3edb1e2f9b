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
