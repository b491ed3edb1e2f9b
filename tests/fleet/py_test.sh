#!/bin/bash
# Runs the Python test named first in "$@" (from the test's runfiles) with
# the rest of "$@" as its arguments.
set -euo pipefail
PYTHON="${PYTHON:-/usr/bin/python3}"
export PYTHONDONTWRITEBYTECODE=1
exec "${PYTHON}" "$@"
