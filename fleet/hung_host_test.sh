#!/usr/bin/env bash
# A hung host holds a fleet run for seconds, not call_timeout x retries: real
# daemons on loopback, one of them SIGSTOPped (its listening socket still
# accepts TCP connections; nothing answers).
#  1. Stopped mid-run under --on_host_loss=continue: the run ends partial
#     (exit 3) within HUNG_BOUND_S of the stop (--call_timeout 3s: lost once
#     silent for it, plus one poll's budget of 1 s and slack; before, one poll
#     round waited 4 x 3 s plus backoff: 12.7 s), naming the host as hung or
#     paused, and the live lines go on meanwhile (a round a second).
#  2. Stopped before the run, SIGTERM (Ctrl-C) while the others are armed and
#     the orchestrator waits on it (--arm_timeout 20s): the run is aborted
#     everywhere and exits within INTR_BOUND_S (before: at --arm_timeout).
set -euo pipefail
blkperf=$(readlink -f "$1") blkperfd=$(readlink -f "$2")
dir=${TEST_TMPDIR:-$(mktemp -d)}
HUNG_BOUND_S=8 INTR_BOUND_S=3
fail() { echo "FAIL: $*" >&2; exit 1; }
pids=() run_pid=
cleanup() {
  [[ -z $run_pid ]] || kill "$run_pid" 2>/dev/null || true
  for p in "${pids[@]}"; do
    kill -CONT "$p" 2>/dev/null || true
    kill "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
}
trap cleanup EXIT
cd "$dir"
now() { date +%s.%N; }
within() {  # within START BOUND WHAT: fails when more than BOUND s passed
  python3 -c 'import sys, time
t = float(sys.argv[3]) - float(sys.argv[1])
print(f"{t:.2f}s (bound {sys.argv[2]}s): {sys.argv[4]}")
sys.exit(t > float(sys.argv[2]))' "$1" "$2" "$(now)" "$3" || fail "$3 took longer than $2 s"
}

# One shared read-only target, three daemons on ports of the kernel's choice.
head -c $((8 << 20)) /dev/urandom > target
hosts=()
for n in 1 2 3; do
  mkdir -p "d$n"
  "$blkperfd" serve --listen=127.0.0.1:0 --metrics_listen= --data_dir="$dir/d$n" \
    --allow_read_paths="$dir/target" --port_file="$dir/d$n/port" > "d$n/log" 2>&1 &
  pids+=($!)
done
for n in 1 2 3; do
  for _ in $(seq 100); do [[ -s d$n/port ]] && break; sleep 0.1; done
  [[ -s d$n/port ]] || fail "daemon $n did not start: $(cat "d$n/log")"
  hosts+=("127.0.0.1:$(cat "d$n/port")")
done
all=$(IFS=,; echo "${hosts[*]}")
hung=${hosts[2]} hung_pid=${pids[2]}
spec=(--target="$dir/target" --direct=false --qd=1 --bs=4k --rate_iops=500)

# 1. Hung mid-run.
"$blkperf" --call_timeout=3s fleet run --hosts="$all" --on_host_loss=continue \
  --runtime=4s --interval=250ms --start_margin=300ms --run_id=hung-mid "${spec[@]}" \
  > mid.txt 2> mid.err &
run_pid=$!
for _ in $(seq 100); do grep -q "running=3/3" mid.err && break; sleep 0.1; done
grep -q "running=3/3" mid.err || fail "the run did not start: $(cat mid.txt mid.err)"
kill -STOP "$hung_pid"
stopped=$(now)
rc=0; wait "$run_pid" || rc=$?
run_pid=
within "$stopped" "$HUNG_BOUND_S" "a run with a host stopped mid-run ended"
kill -CONT "$hung_pid"
[[ $rc == 3 ]] || fail "the run exited $rc, not 3 (partial): $(cat mid.txt mid.err)"
grep -F "$hung" mid.txt | grep -q "no answer for .* (--call_timeout 3s): the daemon is hung, paused or overloaded" \
  || fail "the report does not name $hung as hung: $(cat mid.txt)"
[[ $(grep -c "running=" mid.err) -ge 4 ]] \
  || fail "the live lines stopped while the host was silent: $(cat mid.err)"

# 2. Interrupted while arming, one host stopped throughout.
kill -STOP "$hung_pid"
"$blkperf" fleet run --hosts="$all" --arm_timeout=20s --lease=60s --runtime=4s \
  --start_margin=300ms --run_id=hung-arm "${spec[@]}" > arm.txt 2> arm.err &
run_pid=$!
armed() {  # armed HOST: run hung-arm is armed there
  "$blkperf" --server="$1" list --api_json 2>/dev/null | python3 -c '
import json, sys
sys.exit(not any(w.get("run_id") == "hung-arm" and w["state"] == "WORKLOAD_STATE_ARMED"
                 for w in json.load(sys.stdin).get("workloads", [])))'
}
for _ in $(seq 100); do armed "${hosts[0]}" && armed "${hosts[1]}" && break; sleep 0.1; done
armed "${hosts[0]}" && armed "${hosts[1]}" || fail "hosts 1 and 2 did not arm: $(cat arm.err)"
kill -TERM "$run_pid"
interrupted=$(now)
rc=0; wait "$run_pid" || rc=$?
run_pid=
within "$interrupted" "$INTR_BOUND_S" "an interrupted arming ended"
kill -CONT "$hung_pid"
[[ $rc == 1 ]] || fail "the interrupted run exited $rc, not 1: $(cat arm.txt arm.err)"
grep -q "interrupted (SIGINT/SIGTERM) while arming" arm.txt \
  || fail "the report does not say it was interrupted: $(cat arm.txt arm.err)"
for h in "${hosts[0]}" "${hosts[1]}"; do
  "$blkperf" --server="$h" list --api_json | python3 -c '
import json, sys
w = [w for w in json.load(sys.stdin)["workloads"] if w.get("run_id") == "hung-arm"]
assert [x["state"] for x in w] == ["WORKLOAD_STATE_ABORTED"], w' \
    || fail "$h still holds run hung-arm"
done
echo "PASS"
