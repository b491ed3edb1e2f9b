#!/usr/bin/env bash
# Installs what blkperf needs to build, test and benchmark, from Debian
# packages only. Idempotent: installs only what is missing. Uses sudo when not
# root.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap bazel-rules-java
  clang-14 libfuzzer-14-dev libclang-rt-14-dev
  g++ libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  liburing-dev libabsl-dev prometheus-cpp-dev libgtest-dev libgmock-dev
  libbenchmark-dev
  fio prometheus python3 python3-yaml util-linux mount e2fsprogs kmod procps time
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
