#!/usr/bin/env bash
# Start skew of `blkperf fleet run` across 8 real daemons, each in its own
# network and time namespace behind a 3 ms +- 1 ms delay proxy, over mutual
# TLS (fleet/fleet_e2e_test.py on the tests/fleet harness; root). Prints
# each round's skew (the spread of the hosts' first submissions in
# CLOCK_REALTIME) with its two parts, then the median and the worst, N
# rounds on quiet CPUs and N with a nice-19 busy loop on every CPU; fails
# if a round is at or over the 1 ms bar. Extra arguments go to every
# `blkperf fleet run` of the rounds (e.g. --clock_samples=32).
#
#   bench/fleet_skew.sh [--rounds N] [fleet run flags...]
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=${BLKPERF_RESULTS_DB:-none}
cd "$(dirname "$0")/.."
rounds=5
if [[ ${1:-} == --rounds ]]; then rounds=$2; shift 2; fi
bazel build //client:blkperf //daemon:blkperfd >&2
bin=$(bazel info bazel-bin 2>/dev/null)
echo "# $(date -u '+%F %H:%M UTC'), $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), extra flags: ${*:-none}"
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
failed=0
python3 fleet/fleet_e2e_test.py --skew_only --skew_rounds="$rounds" \
    --extra_flags="$*" --blkperfd="$bin/daemon/blkperfd" \
    --blkperf="$bin/client/blkperf" --harness_dir=tests/fleet 2>"$err" |
  grep -E "start skew|PASS" | tee "$out" || failed=1
if ! grep -q PASS "$out"; then
  failed=1
  echo "--- the test's last error lines:" >&2
  grep -vE "^blkperf fleet: run" "$err" | tail -n 25 >&2
fi
python3 - "$out" <<'PY'
import re, statistics, sys
rounds = {"quiet CPUs": [], "a nice-19 busy loop on every CPU": []}
for line in open(sys.argv[1]):
    m = re.search(r"^e2e-(all|busy)-\d+: .*hosts: ([0-9.]+) us", line)
    if m:
        key = "quiet CPUs" if m.group(1) == "all" else "a nice-19 busy loop on every CPU"
        rounds[key].append(float(m.group(2)))
for what, skews in rounds.items():
    if skews:
        print(f"{what}: rounds {len(skews)}: median skew "
              f"{statistics.median(skews):.1f} us, worst {max(skews):.1f} us "
              f"(bar 1000 us)")
PY
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $failed
