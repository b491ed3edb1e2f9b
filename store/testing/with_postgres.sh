#!/usr/bin/env bash
# Runs a command against a PostgreSQL server of its own: initdb in a new
# temporary directory (Debian's postgresql-15, tools/setup.sh), a server on
# the first free port of 42150-42159 on 127.0.0.1 (or
# $BLKPERF_TEST_PG_PORTS="first last"), password authentication over TCP with
# the password only in a pgpass file, then stops the server and removes
# everything. As root the server runs as `nobody` (PostgreSQL refuses root).
# A missing PostgreSQL is a failure, never a skip.
#
#   with_postgres.sh COMMAND [ARGS...]
#
# COMMAND sees BLKPERF_TEST_POSTGRES=postgresql://blkperf@127.0.0.1:PORT
# (no database: append /NAME; `postgres` exists), PGPASSFILE (libpq's own
# source of the password) and BLKPERF_TEST_POSTGRES_PSQL (a psql binary).
set -euo pipefail

bindir=$(pg_config --bindir 2>/dev/null || true)
if [[ ! -x "${bindir}/initdb" ]]; then
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
fi
if [[ ! -x "${bindir}/initdb" || ! -x "${bindir}/pg_ctl" ]]; then
  echo "with_postgres: no PostgreSQL server binaries (initdb, pg_ctl);" \
    "install postgresql-15 (tools/setup.sh)" >&2
  exit 1
fi

dir=$(mktemp -d /tmp/blkperf-pg.XXXXXX)
as_owner=()
if [[ $(id -u) -eq 0 ]]; then
  chown nobody "${dir}"
  as_owner=(runuser -u nobody --)
fi
cleanup() {
  (cd "${dir}" && "${as_owner[@]}" "${bindir}/pg_ctl" -D "${dir}/data" \
    -m immediate stop) >/dev/null 2>&1 || true
  rm -rf "${dir}"
}
trap cleanup EXIT

password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
printf '%s\n' "${password}" >"${dir}/pwfile"
chmod 0644 "${dir}/pwfile"
cd "${dir}"
if ! "${as_owner[@]}" "${bindir}/initdb" -D "${dir}/data" -U blkperf \
  --pwfile="${dir}/pwfile" --auth-local=trust --auth-host=scram-sha-256 \
  --encoding=UTF8 --no-locale >"${dir}/initdb.log" 2>&1; then
  cat "${dir}/initdb.log" >&2
  exit 1
fi
rm -f "${dir}/pwfile"

read -r first last <<<"${BLKPERF_TEST_PG_PORTS:-42150 42159}"
port=""
for p in $(seq "${first}" "${last}"); do
  if "${as_owner[@]}" "${bindir}/pg_ctl" -D "${dir}/data" -l "${dir}/server.log" \
    -w -t 60 -o "-p ${p} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off" \
    start >/dev/null 2>&1; then
    port=${p}
    break
  fi
done
if [[ -z "${port}" ]]; then
  echo "with_postgres: no port of ${first}-${last} took the server:" >&2
  cat "${dir}/server.log" >&2 || true
  exit 1
fi

# Only libpq's own source has the password; the URI never does.
pgpass="${dir}/client.pgpass"
printf '127.0.0.1:%s:*:blkperf:%s\n' "${port}" "${password}" >"${pgpass}"
chmod 0600 "${pgpass}"
export PGPASSFILE="${pgpass}"
export BLKPERF_TEST_POSTGRES="postgresql://blkperf@127.0.0.1:${port}"
export BLKPERF_TEST_POSTGRES_PSQL="${bindir}/psql"
unset PGPASSWORD PGHOST PGPORT PGUSER PGDATABASE PGSERVICE

cd - >/dev/null
"$@"
