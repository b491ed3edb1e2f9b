#!/usr/bin/env bash
# The 1,000-host fleet figures: `blkperf fleet run` (-O2, .bazelrc) against 1,000
# fake hosts served by one process on 1,000 loopback ports, several rounds;
# each round must finish in under 10 s of wall time with under 200 MiB peak
# RSS of the orchestrator, every host completing and the merge exact (the
# checks of fleet/scale_test.sh, plus the time bound). Prints each round's
# wall time, RSS, step times and the machine's load.
#
#   bench/fleet_scale.sh            # 3 rounds
#   bench/fleet_scale.sh --rounds 5
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=${BLKPERF_RESULTS_DB:-none}
cd "$(dirname "$0")/.."
rounds=3
while [[ $# -gt 0 ]]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    *) echo "usage: $0 [--rounds N]" >&2; exit 2 ;;
  esac
done
bazel build //client:blkperf //fleet/testing:fake_fleet_hosts >&2
bin=$(bazel info bazel-bin 2>/dev/null)
echo "CPUs: $(nproc)"
failed=0
for ((r = 1; r <= rounds; ++r)); do
  echo "round $r:"
  FLEET_SCALE_MAX_WALL_S=10 TEST_TMPDIR=$(mktemp -d) fleet/scale_test.sh \
    "$bin/client/blkperf" "$bin/fleet/testing/fake_fleet_hosts" || failed=1
done
exit $failed
