#!/bin/bash
# Runs the Python test named first in "$@" (from the test's runfiles).
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
exec /usr/bin/python3 "$@"
