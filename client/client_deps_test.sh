#!/bin/bash
# Fails when //client:blkperf depends on anything under //daemon (shared
# code lives in //base, //model, //cli, //report and //wire). $1: the output of
# `bazel query deps(//client:blkperf)` (the :blkperf_deps genquery).
set -euo pipefail
deps="$1"
# A sanity floor: the query must list the client's own libraries, so an empty
# or broken query cannot pass.
for needed in //client:result //wire:snapshot_convert //wire:spec_convert; do
  if ! grep -qx "$needed" "$deps"; then
    echo "FAIL: $needed missing from deps(//client:blkperf): query broken?"
    exit 1
  fi
done
forbidden='^//daemon[:/]|^//third_party:uring$'
if grep -E "$forbidden" "$deps"; then
  echo "FAIL: //client:blkperf depends on the daemon internals above"
  exit 1
fi
echo "PASS: $(wc -l <"$deps") deps, none of them daemon internals"
