#!/usr/bin/env bash
# The fleet's policies at FLEET_POLICY_HOSTS (default 10,000) fake hosts
# (issue 44: "unchanged at this size, and tested there"). One fake fleet
# (testing/fake_fleet_processes.sh, 2,000 hosts a process) with faults:
# host i refuses every Arm when i % 1000 == 999 and is lost (every call
# UNAVAILABLE) 300 ms into each run when i % 1000 == 500. Five runs:
#  1. --min_hosts=99% --on_host_loss=continue: partial; the refusing hosts
#     excluded as arm_failed, the lost ones as lost, every other host
#     completed; the merge the exact sum over the hosts included, the
#     overlap window their common one.
#  2. --on_host_loss=abort: the first lost host aborts the run everywhere;
#     no host left armed or running, every host told (AbortRun answered).
#  3. --min_hosts=100%: quorum not met, nothing starts, every armed host
#     released.
#  4. a --lease shorter than arming the fleet takes: nothing starts, the
#     error says to raise --lease, every armed host released.
#  5. Ctrl-C (SIGINT) while collecting: aborted everywhere, and `fleet
#     abort` afterwards finds the run aborted on every reachable host.
#
#   fleet/scale_policies_test.sh BLKPERF FAKE_FLEET_HOSTS
set -euo pipefail
blkperf=$1
fake=$2
hosts=${FLEET_POLICY_HOSTS:-10000}
dir=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/testing/fake_fleet_processes.sh"
trap stop_fake_fleet EXIT
start_fake_fleet "$fake" "$hosts" 2000 "$dir" --refuse_arm_every=1000 \
  --lost_every=1000 --lost_after=300ms
echo "$hosts fake hosts up ($SECONDS s)"

# run NAME EXPECTED_EXIT FLAG...: a fleet run into $dir/NAME.json.
run() {
  local name=$1 expected=$2 rc=0
  shift 2
  "$blkperf" fleet run --hosts="@$dir/hosts.txt" --run_id="$name" --quiet \
    --api_json "$@" > "$dir/$name.json" 2> "$dir/$name.err" || rc=$?
  [[ $rc == "$expected" ]] || { cat "$dir/$name.err" >&2; fail "$name exited $rc, not $expected"; }
  echo "$name: exit $rc ($SECONDS s)"
}

# check NAME: run NAME's JSON checked by the python on stdin, after
# $dir/fleet.py's common part.
check() {
  cat "$dir/fleet.py" - | python3 - "$dir/$1.json" "$dir/hosts.txt" "$1" \
    || fail "$1: checks"
}

# What every check knows: the addresses by host index and the faults'.
cat > "$dir/fleet.py" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
addresses = open(sys.argv[2]).read().split()
name = sys.argv[3]
refusing = {a for i, a in enumerate(addresses) if i % 1000 == 999}
lost = {a for i, a in enumerate(addresses) if i % 1000 == 500}
errors = []
def expect(ok, what):
    if not ok: errors.append(what)
def done():
    for e in errors: print(f"FAIL: {name}: {e}", file=sys.stderr)
    sys.exit(1 if errors else 0)
def states(entries):
    return {e["address"]: e["state"] for e in entries}
def expect_released(report):
    """Not started; the refusing hosts not armed; every other host told."""
    expect(report["outcome"] == "not_started", f"outcome {report['outcome']}")
    expect(report["hosts"] == [], "hosts[] not empty")
    ex = states(report["excluded"])
    expect(len(ex) == len(addresses), f"{len(ex)} excluded")
    expect(all(ex[a] == "arm_failed" for a in refusing), "a refusing host not arm_failed")
    others = [s for a, s in ex.items() if a not in refusing]
    expect(set(others) <= {"aborted", "arm_failed"}, f"states {set(others)}")
    expect(others.count("aborted") > 0, "no host released")
PY

run p1 3 --runtime=1s --min_hosts=99% --on_host_loss=continue
check p1 <<'PY'
r = report
expect(r["outcome"] == "partial", f"outcome {r['outcome']}")
ex = states(r["excluded"])
expect(set(ex) == refusing | lost, "excluded hosts are not the faulty ones")
expect(all(ex[a] == "arm_failed" for a in refusing), "refusing hosts not arm_failed")
expect(all(ex[a] == "lost" for a in lost), "lost hosts not lost")
included = r["hosts"]
expect(len(included) == len(addresses) - len(refusing) - len(lost), f"{len(included)} included")
expect(all(h["state"] == "completed" for h in included), "an included host did not complete")
merged = int(r["merged"]["snapshot"]["total"]["ios"])
expect(merged == sum(int(h["report"]["snapshot"]["total"]["ios"]) for h in included) and merged > 0,
       "merged ios are not the exact sum")
begin = max(int(h["window"]["begin_ns"]) for h in included)
end = min(int(h["window"]["end_ns"]) for h in included)
expect((int(r["window"]["begin_ns"]), int(r["window"]["end_ns"])) == (begin, end),
       "the overlap window is not the included hosts' common one")
done()
PY

# A 30 s run: the abort lands well inside it however long a poll round
# over 10,000 hosts takes on a loaded machine.
run p2 1 --runtime=30s --interval=500ms --min_hosts=99% --on_host_loss=abort
check p2 <<'PY'
r = report
expect(r["outcome"] == "aborted", f"outcome {r['outcome']}")
expect("lost" in r["abort_reason"] and "--on_host_loss=abort" in r["abort_reason"],
       f"abort reason {r['abort_reason']!r}")
every = states(r["hosts"]) | states(r["excluded"])
expect(len(every) == len(addresses), f"{len(every)} hosts reported")
left = {s for s in every.values() if s in ("armed", "running", "pending")}
expect(not left, f"hosts left {left}")
expect(list(every.values()).count("aborted") > len(addresses) // 2, "most hosts not aborted")
expect(all(every[a] == "lost" for a in lost), "a lost host is not lost")
done()
PY

run p3 1 --runtime=1s --min_hosts=100%
check p3 <<'PY'
expect(report["abort_reason"].startswith(
    f"quorum not met: {len(addresses) - len(refusing)} of {len(addresses)} hosts armed"),
    f"abort reason {report['abort_reason']!r}")
expect_released(report)
done()
PY

# Lease 1.9 s: arming the fleet (well over 1.1 s at this size) plus twice
# the 400 ms margin leaves the first host's lease ending before Go.
run p4 1 --runtime=1s --min_hosts=1 --arm_timeout=1s --start_margin=400ms --lease=1900ms
check p4 <<'PY'
expect(float(report["steps_seconds"]["arm"]) >= 1.1,
       "arming took under 1.1 s: the lease check was not reached at this size")
expect("is too short" in report["abort_reason"] and "raise --lease" in report["abort_reason"],
       f"abort reason {report['abort_reason']!r}")
expect_released(report)
done()
PY

# Ctrl-C once the first live line (after the first poll round) is out.
"$blkperf" fleet run --hosts="@$dir/hosts.txt" --run_id=p5 --runtime=60s \
  --interval=500ms --min_hosts=99% --on_host_loss=continue \
  > "$dir/p5.txt" 2> "$dir/p5.err" &
pid=$!
for _ in $(seq 1200); do
  grep -q "^fleet IOPS=" "$dir/p5.err" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
grep -q "^fleet IOPS=" "$dir/p5.err" || { cat "$dir/p5.err" >&2; fail "p5: no live line"; }
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[[ $rc == 1 ]] || { cat "$dir/p5.err" >&2; fail "p5 (Ctrl-C) exited $rc, not 1"; }
grep -q "^fleet run p5: aborted (interrupted (SIGINT/SIGTERM))" "$dir/p5.txt" \
  || fail "p5: $(head -1 "$dir/p5.txt")"
echo "p5: interrupted ($SECONDS s)"
rc=0
"$blkperf" fleet abort p5 --hosts="@$dir/hosts.txt" > "$dir/p5-abort.txt" \
  2> "$dir/p5-abort.err" || rc=$?
[[ $rc == 0 ]] || { cat "$dir/p5-abort.err" >&2; fail "fleet abort p5 exited $rc"; }
holding=$(wc -l < "$dir/p5-abort.txt")
aborted=$(grep -c ": aborted$" "$dir/p5-abort.txt" || true)
expected=$(python3 -c "n=$hosts; print(n - sum(1 for i in range(n) if i % 1000 in (999, 500)))")
[[ $holding == "$expected" && $aborted == "$expected" ]] \
  || fail "p5: $aborted of $holding hosts holding the run aborted, $expected expected"
echo "PASS ($SECONDS s)"
