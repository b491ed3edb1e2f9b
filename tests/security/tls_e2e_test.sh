#!/bin/bash
# End to end with the real binaries, as the acceptance script checks:
#  1. `blkperfd serve --listen=0.0.0.0:0` without TLS exits non-zero, naming
#     --insecure_listen;
#  2. with TLS flags, `blkperf caps` without a client certificate fails and
#     with one succeeds; a client whose identity has no role is refused by
#     name; the audit log records the refusals.
# Certificates are made here with openssl, under $TEST_TMPDIR.
set -u
BLKPERFD="$1"
BLKPERF="$2"
DIR="$(mktemp -d "${TEST_TMPDIR:-/tmp}/tls_e2e.XXXXXX")"
DAEMON_PID=""
cleanup() {
  if [[ -n "$DAEMON_PID" ]]; then kill "$DAEMON_PID" 2>/dev/null; wait "$DAEMON_PID" 2>/dev/null; fi
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [[ -f "$DIR/daemon.log" ]] && tail -20 "$DIR/daemon.log"; exit 1; }

# 1. Non-loopback without TLS is refused.
"$BLKPERFD" serve --listen=0.0.0.0:0 --metrics_listen= --data_dir="$DIR/data" \
    >"$DIR/refused.log" 2>&1
rc=$?
[[ $rc -ne 0 ]] || fail "serve --listen=0.0.0.0:0 without TLS exited 0"
grep -q -- "--insecure_listen" "$DIR/refused.log" ||
  fail "the refusal does not name --insecure_listen: $(cat "$DIR/refused.log")"
echo "ok: --listen=0.0.0.0:0 without TLS refused (exit $rc)"

# 2. A CA, a server certificate for 127.0.0.1, two client certificates.
pki() { openssl "$@" 2>/dev/null || fail "openssl $*"; }
ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
pki req -x509 "${ec[@]}" -days 2 -keyout "$DIR/ca.key" -out "$DIR/ca.pem" -subj /CN=test-ca
sign() {  # name san
  pki req "${ec[@]}" -keyout "$DIR/$1.key" -out "$DIR/$1.csr" -subj "/CN=$1"
  echo "subjectAltName=$2" >"$DIR/$1.ext"
  pki x509 -req -in "$DIR/$1.csr" -CA "$DIR/ca.pem" -CAkey "$DIR/ca.key" \
      -CAcreateserial -days 2 -out "$DIR/$1.pem" -extfile "$DIR/$1.ext"
}
sign server IP:127.0.0.1
sign alice DNS:alice.test
sign mallory DNS:mallory.test
echo "operator alice.test" >"$DIR/roles"

"$BLKPERFD" serve --listen=0.0.0.0:0 --port_file="$DIR/port" --metrics_listen= \
    --data_dir="$DIR/data" --tls_cert="$DIR/server.pem" --tls_key="$DIR/server.key" \
    --tls_client_ca="$DIR/ca.pem" --roles_file="$DIR/roles" \
    --audit_log="$DIR/audit.log" >"$DIR/daemon.log" 2>&1 &
DAEMON_PID=$!
for _ in $(seq 100); do [[ -s "$DIR/port" ]] && break; sleep 0.1; done
[[ -s "$DIR/port" ]] || fail "the TLS daemon did not start"
SERVER="127.0.0.1:$(cat "$DIR/port")"

if "$BLKPERF" caps --server="$SERVER" --tls_ca="$DIR/ca.pem" >"$DIR/nocert.out" 2>&1; then
  fail "caps without a client certificate succeeded"
fi
grep -q UNAUTHENTICATED "$DIR/nocert.out" || fail "no UNAUTHENTICATED: $(cat "$DIR/nocert.out")"
echo "ok: caps without a client certificate: $(head -1 "$DIR/nocert.out")"

if "$BLKPERF" caps --server="$SERVER" >"$DIR/plain.out" 2>&1; then
  fail "caps in plaintext against the TLS daemon succeeded"
fi
echo "ok: caps in plaintext fails"

"$BLKPERF" caps --server="$SERVER" --tls_ca="$DIR/ca.pem" --tls_cert="$DIR/alice.pem" \
    --tls_key="$DIR/alice.key" >"$DIR/alice.out" 2>&1 || fail "caps as alice: $(cat "$DIR/alice.out")"
grep -q "mutual TLS.*alice.test (operator)" "$DIR/alice.out" ||
  fail "caps does not show the caller: $(cat "$DIR/alice.out")"
echo "ok: caps with a client certificate: $(grep 'access' "$DIR/alice.out")"

if "$BLKPERF" caps --server="$SERVER" --tls_ca="$DIR/ca.pem" --tls_cert="$DIR/mallory.pem" \
    --tls_key="$DIR/mallory.key" >"$DIR/mallory.out" 2>&1; then
  fail "caps as mallory (no role) succeeded"
fi
grep -q 'PERMISSION_DENIED.*"dns:mallory.test"' "$DIR/mallory.out" ||
  fail "mallory's refusal does not name her: $(cat "$DIR/mallory.out")"
echo "ok: an identity without a role is refused by name"

grep -q '"identity":"dns:mallory.test".*"outcome":"PERMISSION_DENIED' "$DIR/audit.log" ||
  fail "the audit log lacks mallory's refusal: $(cat "$DIR/audit.log")"
grep -q '"outcome":"UNAUTHENTICATED' "$DIR/audit.log" ||
  fail "the audit log lacks the unauthenticated refusal"
echo "ok: refusals are in the audit log"
echo PASS
