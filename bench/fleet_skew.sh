#!/usr/bin/env bash
# Start skew of `blkperf fleet run` across 8 real daemons, each in its own
# network and time namespace behind a 3 ms +- 1 ms delay proxy
# (fleet/fleet_e2e_test.py on the tests/fleet harness; root), several
# rounds, each required under 1 ms (the spread of the hosts' first
# submissions in CLOCK_REALTIME).
#
#   bench/fleet_skew.sh [--rounds N]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=3
[[ ${1:-} == --rounds ]] && rounds=$2
bazel build //client:blkperf //daemon:blkperfd >&2
bin=$(bazel info bazel-bin 2>/dev/null)
failed=0
for ((r = 1; r <= rounds; ++r)); do
  FLEET_E2E_MAX_SKEW_US=1000 python3 fleet/fleet_e2e_test.py \
    --blkperfd="$bin/daemon/blkperfd" --blkperf="$bin/client/blkperf" \
    --harness_dir=tests/fleet 2>/dev/null | grep -E "start skew|PASS" || failed=1
done
exit $failed
