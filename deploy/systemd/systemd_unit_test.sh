#!/bin/bash
# Runs systemd_unit_test.py (see there) with the files named in "$@".
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
exec "${PYTHON:-/usr/bin/python3}" deploy/systemd/systemd_unit_test.py "$@"
