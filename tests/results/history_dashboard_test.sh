#!/usr/bin/env bash
# The PostgreSQL results store end to end and the history dashboard's SQL
# against it, on a PostgreSQL 15 server of the test's own
# (store/testing/with_postgres.sh; history_dashboard_test.py says what is
# checked).
set -euo pipefail
exec "$1" python3 "$2" "$3" "$4" "$(dirname "$5")"
