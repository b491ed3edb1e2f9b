#!/usr/bin/env bash
# Runs blkperf's whole test suite (unit and end-to-end) and ends with the
# line "N passed, N failed". Installs what is missing first.
set -uo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
log=$(mktemp)
bazel test //... --test_output=errors "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log" || true)
failed=$(grep -cE '^//[^ ]+ +(FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD)' "$log" || true)
if [[ $status -ne 0 && $failed -eq 0 ]]; then failed=1; fi
rm -f "$log"
echo "${passed} passed, ${failed} failed"
exit "$status"
