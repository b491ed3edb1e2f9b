#!/usr/bin/env bash
# Start skew of `blkperf fleet run` across 8 real daemons, each in its own
# network and time namespace behind a 3 ms +- 1 ms delay proxy, over mutual
# TLS (fleet/fleet_e2e_test.py on the tests/fleet harness; root). Prints
# each round's skew (the spread of the hosts' first submissions in
# CLOCK_REALTIME) with its two parts, then the median and the worst; fails
# if a round is at or over the 1 ms bar. Extra arguments go to every
# `blkperf fleet run` of the rounds (e.g. --clock_samples=32).
#
#   bench/fleet_skew.sh [--rounds N] [fleet run flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=5
if [[ ${1:-} == --rounds ]]; then rounds=$2; shift 2; fi
bazel build //client:blkperf //daemon:blkperfd >&2
bin=$(bazel info bazel-bin 2>/dev/null)
echo "# $(date -u '+%F %H:%M UTC'), $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), extra flags: ${*:-none}"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
failed=0
python3 fleet/fleet_e2e_test.py --skew_only --skew_rounds="$rounds" \
    --extra_flags="$*" --blkperfd="$bin/daemon/blkperfd" \
    --blkperf="$bin/client/blkperf" --harness_dir=tests/fleet 2>/dev/null |
  grep -E "start skew|PASS" | tee "$out" || failed=1
grep -q PASS "$out" || failed=1
python3 - "$out" <<'PY'
import re, statistics, sys
skews = [float(m.group(1)) for m in
         (re.search(r"hosts: ([0-9.]+) us", l) for l in open(sys.argv[1])) if m]
if skews:
    print(f"rounds {len(skews)}: median skew {statistics.median(skews):.1f} us, "
          f"worst {max(skews):.1f} us (bar 1000 us)")
PY
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $failed
