#!/usr/bin/env bash
# What mutual TLS costs the control plane, side by side with plaintext
# (loopback), in interleaved rounds (the order alternates each round):
#   handshake  wall time of one `blkperf caps` (process start, connect, TLS
#              handshake with client certificate, one call), median per
#              kind; the difference is what TLS adds to a fresh connection;
#   watch      IOPS of the same workload run through `blkperf run` with a
#              watch stream at --interval (default 10 ms, 100 snapshots/s
#              with histograms) over TLS and over plaintext; the median of
#              the per-round TLS/plain ratios.
#
#   bench/tls_overhead.sh                                # 5 rounds x 5 s
#   bench/tls_overhead.sh --rounds 3 --runtime 3 --bin bazel-bin
#
# Everything lives in a temporary directory under the repository, removed
# at exit: a throwaway PKI made with openssl, a 256 MiB target file, two
# daemons on ephemeral loopback ports. The workload: 4 KiB random reads,
# queue depth 32, one submitter on the last CPU.
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=${BLKPERF_RESULTS_DB:-none}
cd "$(dirname "$0")/.."

rounds=5
runtime=5
interval=10ms
calls=20
bin=""
cpu=$(( $(nproc) - 1 ))
usage="usage: $0 [--rounds N] [--runtime S] [--interval D] [--calls N] [--cpu C] [--bin DIR]"
while (($#)); do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --calls) calls=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
if [[ -z $bin ]]; then
  bazel build -c opt //daemon:blkperfd //client:blkperf >&2
  bin=$(bazel info -c opt bazel-bin 2>/dev/null)
fi
blkperfd=$bin/daemon/blkperfd
blkperf=$bin/client/blkperf

work=$(mktemp -d "$(pwd)/.bench.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
openssl req -x509 "${ec[@]}" -days 2 -keyout "$work/ca.key" -out "$work/ca.pem" -subj /CN=bench-ca 2>/dev/null
for name in server client; do
  san=$([[ $name == server ]] && echo IP:127.0.0.1 || echo DNS:bench.client)
  openssl req "${ec[@]}" -keyout "$work/$name.key" -out "$work/$name.csr" -subj "/CN=$name" 2>/dev/null
  echo "subjectAltName=$san" > "$work/$name.ext"
  openssl x509 -req -in "$work/$name.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" \
    -CAcreateserial -days 2 -out "$work/$name.pem" -extfile "$work/$name.ext" 2>/dev/null
done
echo "admin bench.client" > "$work/roles"
head -c $((256 << 20)) /dev/urandom > "$work/target.dat"

start_daemon() {  # name extra-flags...
  local name=$1; shift
  "$blkperfd" serve --listen=127.0.0.1:0 --port_file="$work/$name.port" --metrics_listen= \
    --data_dir="$work/data-$name" --allow_read_paths="$work/" "$@" 2> "$work/$name.log" &
  pids+=($!)
  for _ in $(seq 100); do [[ -s $work/$name.port ]] && return; sleep 0.1; done
  echo "daemon $name did not start" >&2; cat "$work/$name.log" >&2; exit 1
}
start_daemon plain
start_daemon tls --tls_cert="$work/server.pem" --tls_key="$work/server.key" \
  --tls_client_ca="$work/ca.pem" --roles_file="$work/roles"
plain=(--server="127.0.0.1:$(cat "$work/plain.port")")
tls=(--server="127.0.0.1:$(cat "$work/tls.port")" --tls_ca="$work/ca.pem"
     --tls_cert="$work/client.pem" --tls_key="$work/client.key")

caps_us() {  # client flags...
  local t0 t1
  t0=$(date +%s%N); "$blkperf" "$@" caps > /dev/null; t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000 ))
}
run_iops() {  # client flags...
  "$blkperf" "$@" --interval="$interval" --quiet --report_json run \
    --target="$work/target.dat" --runtime="${runtime}s" --cpus="$cpu" --qd=32 --bs=4k \
    > "$work/run.json"
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"]["iops"])' "$work/run.json"
}
median() { python3 -c 'import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

plain_us=(); tls_us=()
for ((i = 0; i < calls; i++)); do
  if ((i % 2)); then tls_us+=("$(caps_us "${tls[@]}")"); plain_us+=("$(caps_us "${plain[@]}")")
  else plain_us+=("$(caps_us "${plain[@]}")"); tls_us+=("$(caps_us "${tls[@]}")"); fi
done
ratios=(); plain_iops=(); tls_iops=()
for ((r = 0; r < rounds; r++)); do
  if ((r % 2)); then t=$(run_iops "${tls[@]}"); p=$(run_iops "${plain[@]}")
  else p=$(run_iops "${plain[@]}"); t=$(run_iops "${tls[@]}"); fi
  plain_iops+=("$p"); tls_iops+=("$t")
  ratios+=("$(python3 -c "print($t / $p)")")
  echo "round $((r + 1)): plain ${p} IOPS, tls ${t} IOPS, ratio $(python3 -c "print(round($t / $p, 4))")" >&2
done
echo "caps (connect + handshake + 1 call), median of $calls: plain $(median "${plain_us[@]}") us, tls $(median "${tls_us[@]}") us"
echo "watch at $interval during a ${runtime}s 4k randread qd32 run, $rounds rounds:" \
  "plain median $(median "${plain_iops[@]}") IOPS, tls median $(median "${tls_iops[@]}") IOPS," \
  "median tls/plain ratio $(median "${ratios[@]}")"
