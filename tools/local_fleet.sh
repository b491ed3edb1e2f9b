#!/usr/bin/env bash
# A fleet on this machine, in one command: N `blkperfd serve` daemons, each
# in a network namespace of its own (its own address, reached over a veth
# pair), all with mutual TLS (a CA, a certificate per daemon with its
# address as IP SAN, an operator client certificate and a roles file, made
# here with openssl); then one `blkperf fleet run` against them through a
# file_sd inventory that gives each host its own target file (the label
# blkperf_targets), its report on stdout; then everything is torn down
# (daemons, namespaces, files), whatever happens. Root (network namespaces).
#
#   tools/local_fleet.sh 4                          # 4 hosts, 5 s of 4 KiB random reads
#   tools/local_fleet.sh 3 --runtime=2s --json      # extra flags go to `fleet run`
#   tools/local_fleet.sh 8 --split=fixed:4096 --bs=64k
#
# Each daemon reads a 64 MiB file of its own, in its data directory (page
# cache, so this measures the daemons and the fleet machinery, not a disk).
# Exit status: `fleet run`'s (0 completed, 3 partial, 1 failed, 2 usage).
#
# Environment: BLKPERFD, BLKPERF (the binaries; default bazel-bin's, built
# with `bazel build //daemon:blkperfd //client:blkperf`), LOCAL_FLEET_PREFIX
# (namespace names, default blkperf-lf-PID), LOCAL_FLEET_NET (the first two
# bytes of the addresses, default 10.213; the third is random per run).
set -euo pipefail
usage() { echo "usage: tools/local_fleet.sh N [fleet run flags...]  (N hosts, 1..64)" >&2; exit 2; }
[[ $# -ge 1 && $1 =~ ^[0-9]+$ && $1 -ge 1 && $1 -le 64 ]] || usage
hosts=$1; shift
[[ $(id -u) == 0 ]] || { echo "local_fleet: needs root (network namespaces)" >&2; exit 1; }
root=$(cd "$(dirname "$0")/.." && pwd)
blkperfd=${BLKPERFD:-$root/bazel-bin/daemon/blkperfd}
blkperf=${BLKPERF:-$root/bazel-bin/client/blkperf}
for b in "$blkperfd" "$blkperf"; do
  [[ -x $b ]] || { echo "local_fleet: $b is missing: bazel build //daemon:blkperfd //client:blkperf" >&2; exit 1; }
done
prefix=${LOCAL_FLEET_PREFIX:-blkperf-lf-$$}
net=${LOCAL_FLEET_NET:-10.213}.$((RANDOM % 256))
tag=$(printf '%04x' $((RANDOM % 65536)))  # veth names (15 bytes at most)
work=$(mktemp -d "${TMPDIR:-/tmp}/blkperf-local-fleet.XXXXXX")
pids=() namespaces=() groups=()

teardown() {
  local rc=$?
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  for ns in "${namespaces[@]}"; do ip netns delete "$ns" 2>/dev/null || true; done
  rm -rf "$work"
  exit "$rc"
}
trap teardown EXIT
trap 'exit 130' INT TERM

# Certificates: one CA; per daemon its address as IP SAN (what the
# orchestrator dials and checks); the operator's URI SAN, which the roles
# file grants.
ossl() { openssl "$@" 2>/dev/null; }
leaf() {  # leaf NAME SAN USAGE
  ossl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$work/$1.key" -out "$work/$1.csr" -subj "/CN=$1"
  printf 'subjectAltName=%s\nextendedKeyUsage=%s\n' "$2" "$3" > "$work/$1.ext"
  ossl x509 -req -in "$work/$1.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" \
    -CAcreateserial -out "$work/$1.crt" -days 1 -extfile "$work/$1.ext"
}
ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -keyout "$work/ca.key" -out "$work/ca.crt" -days 1 -subj "/CN=local fleet CA"
leaf operator "URI:spiffe://local-fleet/operator" clientAuth
echo "operator spiffe://local-fleet/operator" > "$work/roles"

addresses=()
for i in $(seq 1 "$hosts"); do
  ns=$prefix-$i
  ip netns add "$ns"
  namespaces+=("$ns")
  outer=$net.$((4 * i - 3)) inner=$net.$((4 * i - 2))
  ip link add "lf${tag}h$i" type veth peer name "lf${tag}p$i"
  ip link set "lf${tag}p$i" netns "$ns"
  ip addr add "$outer/30" dev "lf${tag}h$i"
  ip link set "lf${tag}h$i" up
  ip -n "$ns" addr add "$inner/30" dev "lf${tag}p$i"
  ip -n "$ns" link set "lf${tag}p$i" up
  ip -n "$ns" link set lo up
  leaf "d$i" "IP:$inner" serverAuth
  mkdir "$work/d$i"
  head -c $((64 << 20)) /dev/zero > "$work/d$i/target"
  ip netns exec "$ns" "$blkperfd" serve --listen="$inner:7777" \
    --tls_cert="$work/d$i.crt" --tls_key="$work/d$i.key" \
    --tls_client_ca="$work/ca.crt" --roles_file="$work/roles" \
    --metrics_listen= --data_dir="$work/d$i" --allow_read_paths="$work/d$i/target" \
    --port_file="$work/d$i/port" > "$work/d$i.log" 2>&1 &
  pids+=($!)
  addresses+=("$inner:7777")
  # file_sd: the (unused) metrics address, the control port, the host's
  # own target.
  groups+=("{\"targets\": [\"$inner:9477\"], \"labels\": {\"blkperf_grpc\": \"7777\", \"blkperf_targets\": \"$work/d$i/target\", \"host\": \"h$i\"}}")
done
(IFS=,; echo "[${groups[*]}]") > "$work/fleet.json"
for i in $(seq 1 "$hosts"); do
  for _ in $(seq 100); do [[ -s $work/d$i/port ]] && break; sleep 0.1; done
  [[ -s $work/d$i/port ]] || { echo "local_fleet: daemon $i did not start: $(cat "$work/d$i.log")" >&2; exit 1; }
done
echo "local_fleet: $hosts daemons with mutual TLS in namespaces $prefix-1..$hosts:" \
  "$(IFS=,; echo "${addresses[*]}")" >&2

rc=0
"$blkperf" --tls_ca="$work/ca.crt" --tls_cert="$work/operator.crt" \
  --tls_key="$work/operator.key" fleet run --hosts="$work/fleet.json" \
  --direct=false --runtime=5s "$@" || rc=$?
exit "$rc"
