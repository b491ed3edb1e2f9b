#!/bin/bash
# The dashboard JSONs and queries.txt are what their generators produce, and
# the dashboards and provisioning files are structurally sound.
set -euo pipefail
PYTHON="${PYTHON:-/usr/bin/python3}"
export PYTHONDONTWRITEBYTECODE=1
"${PYTHON}" dashboards/make_dashboard.py --check
"${PYTHON}" dashboards/queries.py --check
"${PYTHON}" dashboards/check_dashboard.py
# The results-history dashboard (PostgreSQL; its SQL runs against a real
# store in //tests/results:history_dashboard_test).
"${PYTHON}" dashboards/make_history_dashboard.py --check
(cd dashboards && "${PYTHON}" check_history_dashboard.py)
