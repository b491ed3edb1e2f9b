#!/bin/bash
# Runs prometheus_e2e_test.py (see there) from the test's runfiles, with the
# repository's dashboards/ files and the daemon binaries named in "$@".
set -euo pipefail
PYTHON="${PYTHON:-/usr/bin/python3}"
export PYTHONDONTWRITEBYTECODE=1
exec "${PYTHON}" tests/prometheus/prometheus_e2e_test.py --dashboards=dashboards "$@"
