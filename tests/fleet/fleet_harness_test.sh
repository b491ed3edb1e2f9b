#!/bin/bash
# Runs fleet_harness_test.py (see there) from the test's runfiles with the
# daemon and client binaries named in "$@".
set -euo pipefail
PYTHON="${PYTHON:-/usr/bin/python3}"
export PYTHONDONTWRITEBYTECODE=1
exec "${PYTHON}" tests/fleet/fleet_harness_test.py "$@"
