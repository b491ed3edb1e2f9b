#!/usr/bin/env bash
# A host that cannot be used fails fast and says why, once: a name that
# does not resolve, a port where nothing listens, a plaintext daemon for a
# TLS client and the reverse, a client certificate from another CA, the
# daemon's certificate naming another host, and a role the identity lacks.
# Each `fleet run` must end within BOUND_S seconds (before: 4 x
# --connect_timeout, about 20 s, with one generic message), name the cause
# in its own words, and print no gRPC core log lines. Ports 21500-21509.
set -euo pipefail
blkperf=$(readlink -f "$1") blkperfd=$(readlink -f "$2")
dir=${TEST_TMPDIR:-$(mktemp -d)}
BOUND_S=4
fail() { echo "FAIL: $*" >&2; exit 1; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

cd "$dir"
ossl() { openssl "$@" 2>/dev/null; }
ca() {  # ca NAME
  ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1.key" \
    -out "$1.crt" -days 2 -subj "/CN=$1"
}
leaf() {  # leaf NAME CA SAN USAGE
  ossl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1.key" \
    -out "$1.csr" -subj "/CN=$1"
  printf 'subjectAltName=%s\nextendedKeyUsage=%s\n' "$3" "$4" > "$1.ext"
  ossl x509 -req -in "$1.csr" -CA "$2.crt" -CAkey "$2.key" -CAcreateserial \
    -out "$1.crt" -days 2 -extfile "$1.ext"
}
ca ca; ca other
leaf server ca "DNS:localhost,IP:127.0.0.1" serverAuth
leaf elsewhere ca "DNS:elsewhere.example" serverAuth
leaf orch ca "URI:spiffe://t.example/orch" clientAuth
leaf viewer ca "URI:spiffe://t.example/viewer" clientAuth
leaf stranger other "URI:spiffe://t.example/orch" clientAuth
printf 'operator spiffe://t.example/orch\nviewer spiffe://t.example/viewer\n' > roles

serve() {  # serve PORT [flags]: a daemon on 127.0.0.1:PORT
  local port=$1; shift
  mkdir -p "d$port"
  "$blkperfd" serve --listen="127.0.0.1:$port" --metrics_listen= \
    --data_dir="$dir/d$port" --port_file="$dir/d$port/port" "$@" > "d$port/log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do [[ -s d$port/port ]] && return; sleep 0.1; done
  fail "daemon on $port did not start: $(cat "d$port/log")"
}
serve 21501 --tls_cert=server.crt --tls_key=server.key --tls_client_ca=ca.crt --roles_file=roles
serve 21502
serve 21504 --tls_cert=server.crt --tls_key=server.key --tls_client_ca=ca.crt --roles_file=roles
serve 21505 --tls_cert=server.crt --tls_key=server.key --tls_client_ca=ca.crt --roles_file=roles
serve 21503 --tls_cert=elsewhere.crt --tls_key=elsewhere.key --tls_client_ca=ca.crt --roles_file=roles

tls() { echo "--tls_ca=ca.crt --tls_cert=$1.crt --tls_key=$1.key"; }
expect() {  # expect WORDS HOSTS CLIENT_FLAGS
  local words=$1 hosts=$2 flags=$3 rc=0 start end
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$blkperf" $flags fleet run --hosts="$hosts" --runtime=1s --start_margin=200ms \
    > out.txt 2> err.txt || rc=$?
  end=$(date +%s.%N)
  [[ $rc == 1 ]] || fail "$hosts ($flags) exited $rc: $(cat out.txt err.txt)"
  grep -qF -- "$words" out.txt || fail "$hosts ($flags): report lacks '$words': $(cat out.txt err.txt)"
  ! grep -q "^grpc \|ssl_transport_security\|Handshake failed" err.txt \
    || fail "gRPC core log lines on stderr: $(cat err.txt)"
  python3 -c 'import sys; t = float(sys.argv[2]) - float(sys.argv[1]); print(f"{t:.2f}s: {sys.argv[4]}"); sys.exit(t > float(sys.argv[3]))' \
    "$start" "$end" "$BOUND_S" "$words" || fail "$hosts took longer than ${BOUND_S}s"
}
expect "the name no-such-host.invalid does not resolve" no-such-host.invalid:21501 "$(tls orch)"
expect "connection refused, nothing listens on that port" 127.0.0.1:21509 "$(tls orch)"
expect "serves plaintext (started without --tls_cert)" 127.0.0.1:21502 "$(tls orch)"
expect "does not answer in plaintext: it serves TLS" 127.0.0.1:21501 ""
expect "refused this client's certificate (--tls_cert): it is not signed by a CA in the daemon's --tls_client_ca" \
  127.0.0.1:21501 "--tls_ca=ca.crt --tls_cert=stranger.crt --tls_key=stranger.key"
expect 'names none of "127.0.0.1" in its subject alternative names (see --tls_server_name)' \
  127.0.0.1:21503 "$(tls orch)"
expect "ArmWorkload needs role operator" 127.0.0.1:21501 "$(tls viewer)"
# The daemon whose certificate names elsewhere.example is reached by that name.
"$blkperf" $(tls orch) --tls_server_name=elsewhere.example --server=127.0.0.1:21503 caps \
  > /dev/null || fail "--tls_server_name did not reach the daemon"
# Three hosts failing alike: one line for the cause, naming the three.
"$blkperf" $(tls orch) fleet watch some-run \
  --hosts=127.0.0.1:21507,127.0.0.1:21508,127.0.0.1:21509 > /dev/null 2> err.txt || true
[[ $(grep -c "connection refused" err.txt) == 1 ]] && grep -q "3 hosts (127.0.0.1:21507, 127.0.0.1:21508, 127.0.0.1:21509)" err.txt \
  || fail "errors not collapsed per cause: $(cat err.txt)"
# A bad spec refused by every host: one line for the three.
"$blkperf" $(tls orch) fleet run --hosts=127.0.0.1:21501,127.0.0.1:21504,127.0.0.1:21505 \
  --runtime=1s --qd=5000 > out.txt 2> err.txt || true
[[ $(grep -c "^  excluded" out.txt) == 1 ]] && grep -q "excluded 3 hosts (127.0.0.1:21501, 127.0.0.1:21504, 127.0.0.1:21505) \[arm_failed\]: .*spec.queue_depth 5000" out.txt \
  || fail "identical refusals not collapsed: $(cat out.txt err.txt)"
echo PASS
