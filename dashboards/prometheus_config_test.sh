#!/bin/bash
# promtool on the shipped Prometheus files: the configuration (with its rule
# files) is valid, the rules are valid, and the rules' unit tests pass.
set -euo pipefail
cd dashboards
PROMTOOL="${PROMTOOL:-/usr/bin/promtool}"
if [[ ! -x "${PROMTOOL}" ]]; then
  echo "FAIL: ${PROMTOOL} not found (Debian package prometheus, tools/setup.sh)" >&2
  exit 1
fi
"${PROMTOOL}" check config prometheus.yml
"${PROMTOOL}" check rules blkperf_rules.yml
"${PROMTOOL}" test rules prometheus_rules_test.yml
/usr/bin/python3 check_rules.py blkperf_rules.yml prometheus_rules_test.yml
