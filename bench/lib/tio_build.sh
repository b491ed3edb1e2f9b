# Sourced by bench scripts: builds fio's t/io_uring (the kernel's own
# peak-IOPS tool) from Debian's fio source package, outside the repository.
#
#   source bench/lib/tio_build.sh
#   build_t_io_uring /var/cache/blkperf-tio   # sets $tio to the binary
#   fetch_fio_source /var/cache/blkperf-tio   # sets $fio_src (the source only)
#
# Adds a deb-src entry for bookworm main in its own sources file (never
# edits the system's lists), runs `apt-get source fio` and
# `./configure && make t/io_uring` in the cache directory. Nothing of fio's
# source or binary is ever written inside the repository. Used by
# bench/compare_tio.sh and bench/fidelity.sh.

# Sets $fio_src to Debian's fio source tree in CACHE, fetching it with
# `apt-get source fio` the first time. Returns 1 (saying why) when it can
# be neither found nor fetched.
fetch_fio_source() {
  local cache=$1
  local src_list=/etc/apt/sources.list.d/blkperf-fio-src.sources
  fio_src=$(ls -d "$cache"/fio-3.* 2>/dev/null | head -1 || true)
  [[ -n $fio_src ]] && return 0
  mkdir -p "$cache" || return 1
  if [[ ! -f $src_list ]]; then
    printf '%s\n' "# Added by blkperf bench: fio's source for t/io_uring." \
      "Types: deb-src" "URIs: http://deb.debian.org/debian" \
      "Suites: bookworm" "Components: main" \
      "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" \
      > "$src_list" || return 1
  fi
  apt-get update -o Dir::Etc::sourcelist="$src_list" \
    -o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0 >&2 || true
  (cd "$cache" && apt-get source fio >&2) || true
  fio_src=$(ls -d "$cache"/fio-3.* 2>/dev/null | head -1 || true)
  [[ -n $fio_src ]] || {
    echo "fio's source is not in $cache and apt-get source fio failed" >&2
    return 1
  }
}

build_t_io_uring() {
  local cache=$1
  local dir
  fetch_fio_source "$cache" || return 1
  dir=$fio_src
  if [[ ! -x $dir/t/io_uring ]]; then
    (cd "$dir" && ./configure >&2 && make -j"$(nproc)" t/io_uring >&2)
  fi
  tio=$dir/t/io_uring
  [[ -x $tio ]] || { echo "building t/io_uring failed in $dir" >&2; return 1; }
}
