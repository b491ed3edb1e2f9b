#!/bin/bash
# See panel_queries_test.py.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
exec /usr/bin/python3 dashboards/panel_queries_test.py "${PROMTOOL:-/usr/bin/promtool}"
