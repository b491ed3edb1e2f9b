#!/bin/bash
# Runs start_test.py (see there) with the files named in "$@".
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
exec "${PYTHON:-/usr/bin/python3}" deploy/start_test.py "$@"
