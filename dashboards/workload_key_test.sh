#!/bin/bash
# See workload_key_test.py.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
exec /usr/bin/python3 dashboards/workload_key_test.py "${PROMTOOL:-/usr/bin/promtool}"
