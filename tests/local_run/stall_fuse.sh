# Sourced by the tests here that read the engine's test FUSE server:
#   source "$(dirname "$0")/stall_fuse.sh"
#   mount_stall_fuse SERVER MOUNTPOINT --service_us=100   # file MOUNTPOINT/data
# Mounts a 64 MiB file served by SERVER (stall_fuse_server) with its flags,
# waits for it to appear and unmounts it when the test exits. Needs root and
# /dev/fuse (CI runs as root): anything else fails, it does not skip.
mount_stall_fuse() {
  local server=$1 mnt=$2
  shift 2
  [[ $(id -u) -eq 0 ]] || { echo "FAIL: needs root to mount FUSE" >&2; exit 1; }
  [[ -w /dev/fuse ]] || { echo "FAIL: needs /dev/fuse" >&2; exit 1; }
  mkdir -p "$mnt"
  "$server" "$mnt" 67108864 "$@" &
  stall_fuse_pid=$!
  stall_fuse_mnt=$mnt
  trap unmount_stall_fuse EXIT
  for _ in $(seq 100); do
    [[ $(stat -c %s "$mnt/data" 2>/dev/null || echo 0) == 67108864 ]] && return 0
    sleep 0.1
  done
  echo "FAIL: the FUSE file did not appear" >&2
  exit 1
}
unmount_stall_fuse() {
  kill "$stall_fuse_pid" 2>/dev/null || true
  wait "$stall_fuse_pid" 2>/dev/null || true
  umount -l "$stall_fuse_mnt" 2>/dev/null || true
  rmdir "$stall_fuse_mnt" 2>/dev/null || true
}
