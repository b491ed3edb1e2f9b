# Sourced by bench scripts: builds fio's t/io_uring (the kernel's own
# peak-IOPS tool) from Debian's fio source package, outside the repository.
#
#   source bench/lib/tio_build.sh
#   build_t_io_uring /var/cache/blkperf-tio   # sets $tio to the binary
#
# Adds a deb-src entry for bookworm main in its own sources file (never
# edits the system's lists), runs `apt-get source fio` and
# `./configure && make t/io_uring` in the cache directory. Nothing of fio's
# source or binary is ever written inside the repository. Used by
# bench/compare_tio.sh and bench/fidelity.sh.

build_t_io_uring() {
  local cache=$1
  local src_list=/etc/apt/sources.list.d/blkperf-fio-src.sources
  local dir
  dir=$(ls -d "$cache"/fio-3.* 2>/dev/null | head -1 || true)
  if [[ -z $dir || ! -x $dir/t/io_uring ]]; then
    mkdir -p "$cache"
    if [[ ! -f $src_list ]]; then
      printf '%s\n' "# Added by blkperf bench: fio's source for t/io_uring." \
        "Types: deb-src" "URIs: http://deb.debian.org/debian" \
        "Suites: bookworm" "Components: main" \
        "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" \
        > "$src_list"
    fi
    if [[ -z $dir ]]; then
      apt-get update -o Dir::Etc::sourcelist="$src_list" \
        -o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0 >&2
      (cd "$cache" && apt-get source fio >&2)
      dir=$(ls -d "$cache"/fio-3.* | head -1)
    fi
    (cd "$dir" && ./configure >&2 && make -j"$(nproc)" t/io_uring >&2)
  fi
  tio=$dir/t/io_uring
  [[ -x $tio ]] || { echo "building t/io_uring failed in $dir" >&2; return 1; }
}
