#!/bin/bash
# The dashboard JSON and queries.txt are what their generators produce, and
# the dashboard and provisioning files are structurally sound.
set -euo pipefail
PYTHON="${PYTHON:-/usr/bin/python3}"
export PYTHONDONTWRITEBYTECODE=1
"${PYTHON}" dashboards/make_dashboard.py --check
"${PYTHON}" dashboards/queries.py --check
"${PYTHON}" dashboards/check_dashboard.py
