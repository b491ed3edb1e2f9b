#!/usr/bin/env bash
# Steady state end to end (docs/results.md "Steady state"): `blkperfd run`
# with an open-loop rate on a cached file stops once its series holds
# iops:10% (state finished, long before its runtime) and the stored result
# keeps what was found; gate mode measures only the series after
# attainment; a bad criterion is refused naming the field (exit 2); a
# remote `blkperf run` gets the spec field to the daemon and the result back
# with end_reason. About 15 s.
set -euo pipefail
blkperfd=$1
blkperf=$2
dir=${TEST_TMPDIR:-$(mktemp -d)}
F=$dir/target.dat
DB=$dir/DB.sqlite
fail() { echo "FAIL: $*" >&2; exit 1; }
json() {  # json FILE EXPR: evaluates EXPR with r = the parsed JSON
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
dd if=/dev/urandom of="$F" bs=1M count=16 status=none
common=(--target="$F" --nodirect --rate_iops=5000 --series_interval=250ms
        --steady_state=iops:10% --steady_state_window=1s)

# Stop: the run ends at attainment, not at 20 s.
"$blkperfd" run "${common[@]}" --runtime=20s --json --data_dir="$dir/data" \
  --results_db="$DB" --tag=case=stop > "$dir/stop.json" 2> "$dir/stop.err" ||
  fail "stop run: $(cat "$dir/stop.err")"
[[ $(json "$dir/stop.json" 'r["state"]') == finished ]] || fail "stop: state"
[[ $(json "$dir/stop.json" 'r["steady_state"]["attained"]') == True ]] || fail "stop: not attained"
[[ $(json "$dir/stop.json" 'r["steady_state"]["mode"]') == stop ]] || fail "stop: mode"
[[ $(json "$dir/stop.json" 'r["steady_state"]["window"]["met"] and r["steady_state"]["window"]["samples"] == 4') == True ]] ||
  fail "stop: the window's figures"
[[ $(json "$dir/stop.json" 'r["elapsed_seconds"] < r["steady_state"]["attained_at_seconds"] + 1 < 20') == True ]] ||
  fail "stop: ran $(json "$dir/stop.json" 'r["elapsed_seconds"]') s"
echo "stop: attained at $(json "$dir/stop.json" 'r["steady_state"]["attained_at_seconds"]') s," \
  "ended at $(json "$dir/stop.json" 'r["elapsed_seconds"]') s"
"$blkperf" results list --results_db="$DB" --tag=case=stop --json > "$dir/list.json"
id=$(json "$dir/list.json" 'r["results"][0]["id"]')
"$blkperf" results show "$id" --results_db="$DB" --json > "$dir/show.json"
[[ $(json "$dir/show.json" 'r["report"]["steady_state"] == json.load(open(sys.argv[1].replace("show","stop")))["steady_state"]') == True ]] ||
  fail "the stored result's steady_state differs from the run's"
"$blkperf" results show "$id" --results_db="$DB" | grep -q "steady state: iops:10% .* attained at" ||
  fail "results show text has no steady state line"

# Gate: the totals are the series' points from attainment on.
"$blkperfd" run "${common[@]}" --runtime=3s --steady_state_mode=gate --json \
  --data_dir="$dir/data" --results_db=none > "$dir/gate.json" 2> "$dir/gate.err" ||
  fail "gate run: $(cat "$dir/gate.err")"
python3 - "$dir/gate.json" <<'PY' || fail "gate: $(head -c 600 "$dir/gate.json")"
import json, sys
r = json.load(open(sys.argv[1]))
ss = r["steady_state"]
assert r["state"] == "finished" and ss["attained"] and ss["mode"] == "gate", ss
at = ss["attained_at_seconds"]
after = sum(p["read_ios"] for p in r["series"] if p["start_seconds"] >= at - 1e-9)
before = sum(p["read_ios"] for p in r["series"] if p["start_seconds"] < at - 1e-9)
assert before > 0 and after == r["total"]["read_ios"], (before, after, r["total"]["read_ios"])
end = max(p["start_seconds"] + p["length_seconds"] for p in r["series"])
assert abs(r["elapsed_seconds"] - (end - at)) < 1e-3, (r["elapsed_seconds"], end, at)
print(f"gate: attained at {at} s, measured {after} I/Os over {r['elapsed_seconds']} s")
PY

# Bad input names the field, exit 2.
set +e
"$blkperfd" run "${common[@]}" --steady_state=iops:0% --runtime=2s \
  --data_dir="$dir/data" --results_db=none > /dev/null 2> "$dir/bad.err"
rc=$?
set -e
[[ $rc == 2 ]] || fail "a bad criterion exited $rc: $(cat "$dir/bad.err")"
grep -q "spec.steady_state.criterion" "$dir/bad.err" || fail "the refusal: $(cat "$dir/bad.err")"

# Remote: the spec field travels to the daemon, the result and the reason
# back.
"$blkperfd" serve --listen=127.0.0.1:0 --port_file="$dir/port" \
  --data_dir="$dir/serve_data" --allow_read_paths="$dir/" --metrics_listen= \
  > "$dir/serve.log" 2>&1 &
serve=$!
trap 'kill $serve 2>/dev/null || true' EXIT
for _ in $(seq 100); do [[ -s $dir/port ]] && break; sleep 0.1; done
[[ -s $dir/port ]] || fail "blkperfd serve did not start: $(cat "$dir/serve.log")"
"$blkperf" run --server="127.0.0.1:$(cat "$dir/port")" "${common[@]}" --runtime=20s \
  --quiet --results_db=none > "$dir/remote.txt" 2> "$dir/remote.err" ||
  fail "blkperf run: $(cat "$dir/remote.err")"
grep -q "steady state: iops:10% .* attained at .* the run ended there" "$dir/remote.txt" ||
  fail "remote report: $(cat "$dir/remote.txt")"
wid=$(sed -n 's/^blkperf: started workload \([^ ]*\) on .*/\1/p' "$dir/remote.err")
[[ -n $wid ]] || fail "no workload id in: $(cat "$dir/remote.err")"
"$blkperf" status "$wid" --server="127.0.0.1:$(cat "$dir/port")" --results_db=none \
  > "$dir/status.txt" 2>&1 || fail "blkperf status: $(cat "$dir/status.txt")"
grep -q "steady state iops:10% attained at" "$dir/status.txt" ||
  fail "no end_reason in status: $(cat "$dir/status.txt")"
echo PASS
