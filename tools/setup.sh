#!/usr/bin/env bash
# Installs what blkperf needs to build, test and benchmark, from Debian
# packages only. Idempotent: installs only what is missing. Uses sudo when not
# root.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap bazel-rules-java
  clang-14 libfuzzer-14-dev libclang-rt-14-dev
  g++ libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  liburing-dev libabsl-dev prometheus-cpp-dev libcivetweb-dev libgtest-dev libgmock-dev
  libfuse3-dev libsqlite3-dev libpq-dev postgresql-15
  libbenchmark-dev libyaml-dev libssl-dev
  fio python3-six prometheus python3 python3-yaml util-linux mount e2fsprogs kmod procps time
  gnuplot-nox python3-numpy python3-pandas
  iproute2 systemd nodejs gdb openssl strace
)

SUDO=()
if [[ $(id -u) -ne 0 ]]; then SUDO=(sudo); fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  "${SUDO[@]}" apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi
# The Debian prometheus package starts a system service; blkperf's tests run
# their own server on loopback, so leave the system one as the admin set it.

# npm is packaged with some nodejs builds (NodeSource) and separately in
# Debian; install Debian's only when there is none.
if ! command -v npm >/dev/null; then
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -q --no-install-recommends npm >&2
fi

# npm packages for the offline validation of deploy/kubernetes, into the
# project-local deploy/kubernetes/validate/node_modules (never global), at
# the versions pinned in its package-lock.json. Reinstalled when the lock
# file changes.
npm_dir="$(cd "$(dirname "$0")/.." && pwd)/deploy/kubernetes/validate"
npm_stamp="${npm_dir}/node_modules/.blkperf-lock-sha256"
npm_want=$(sha256sum "${npm_dir}/package-lock.json" | cut -d' ' -f1)
if [[ "$(cat "${npm_stamp}" 2>/dev/null)" != "${npm_want}" ]]; then
  echo "setup: npm ci in ${npm_dir}" >&2
  (cd "${npm_dir}" && npm ci --no-audit --no-fund --loglevel=error >&2)
  echo "${npm_want}" > "${npm_stamp}"
fi
