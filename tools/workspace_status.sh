#!/usr/bin/env bash
# Bazel's --workspace_status_command (.bazelrc): the build facts that
# //base:version stamps into blkperf's binaries. STABLE_ keys: a new commit
# rebuilds the stamped file (and relinks what links it); nothing else.
# Outside a git checkout (a source tarball) the commit is "unknown".
set -u
cd "$(dirname "$0")/.."
version=$(tr -cd "A-Za-z0-9.+_-" < VERSION 2>/dev/null)
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
dirty=""
if [[ $commit != unknown ]] && ! git diff --quiet HEAD -- 2>/dev/null; then
  dirty="-dirty"
fi
echo "STABLE_BLKPERF_VERSION ${version:-unknown}"
echo "STABLE_BLKPERF_COMMIT ${commit}${dirty}"
