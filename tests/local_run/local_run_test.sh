#!/usr/bin/env bash
# End to end: `blkperfd run` as a user runs it, on a temporary file it creates.
# Checks the JSON result's arithmetic, a write then a verified read-back, the
# clear error for a target that cannot poll, and field-named flag errors.
set -euo pipefail
blkperfd=$1
dir=${TEST_TMPDIR:-$(mktemp -d)}
target=$dir/local_run.dat
fail() { echo "FAIL: $*" >&2; exit 1; }

json() {  # json FILE EXPR: evaluates EXPR with r = the parsed report
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# A counted random-read run moves exactly ios x bs bytes, without errors.
"$blkperfd" run --target="$target" --create_size=32m --allow_write \
  --io_count=3000 --qd=16 --status_interval=0 --json > "$dir/read.json"
[[ $(json "$dir/read.json" 'r["state"]') == finished ]] || fail "state"
[[ $(json "$dir/read.json" 'r["total"]["ios"]') == 3000 ]] || fail "ios"
[[ $(json "$dir/read.json" 'r["total"]["bytes"] == r["total"]["ios"] * 4096') == True ]] || fail "bytes"
[[ $(json "$dir/read.json" 'len(r["total"]["errors"])') == 0 ]] || fail "errors"
[[ $(json "$dir/read.json" 'r["error"]') == None ]] || fail "first error"
[[ $(json "$dir/read.json" 'r["total"]["latency"]["count"]') == 3000 ]] || fail "latency count"

# The text report carries the figures a user looks for.
"$blkperfd" run --target="$target" --io_count=500 --status_interval=0 > "$dir/read.txt"
for word in IOPS= BW= "IOs per syscall" "lat percentiles: p50=" p99.99= "cpu: usr="; do
  grep -q -- "$word" "$dir/read.txt" || fail "text report lacks $word"
done

# Sequential writes of every block with the pattern, then a verified read-back.
"$blkperfd" run --target="$target" --allow_write --op=write --bs=64k \
  --io_count=512 --verify --seed=99 --data_dir="$dir/data" --status_interval=0 \
  --json > "$dir/write.json"
[[ $(json "$dir/write.json" 'r["total"]["write_ios"]') == 512 ]] || fail "writes"
"$blkperfd" run --target="$target" --op=randread --verify --seed=99 --bs=64k \
  --io_count=2000 --data_dir="$dir/data" --status_interval=0 --json > "$dir/verify.json"
[[ $(json "$dir/verify.json" 'r["state"]') == finished ]] || fail "verify state"
[[ $(json "$dir/verify.json" 'len(r["total"]["errors"])') == 0 ]] || fail "verify found errors"
# ...and with another seed the check fails loudly, naming target and offset.
if "$blkperfd" run --target="$target" --op=randread --verify --seed=7 --bs=64k \
    --io_count=100 --data_dir="$dir/data" --status_interval=0 > "$dir/bad.txt" 2>&1; then
  fail "verify with the wrong seed passed"
fi
grep -q "verify mismatch at $target offset" "$dir/bad.txt" || fail "verify message"

# Writing without permission is refused before anything is written.
if "$blkperfd" run --target="$target" --op=randwrite --io_count=10 \
    --status_interval=0 > "$dir/perm.txt" 2>&1; then
  fail "a write without --allow_write ran"
fi
grep -q "PERMISSION_DENIED.*allow_write" "$dir/perm.txt" || fail "permission message"

# polled=on on a target that cannot poll: a clear error, not zero IOPS.
if "$blkperfd" run --target="$target" --polled=on --io_count=10 \
    --status_interval=0 > "$dir/poll.txt" 2>&1; then
  echo "note: this disk supports polled I/O; skipping the cannot-poll check" >&2
else
  grep -q "FAILED_PRECONDITION.*cannot do polled I/O" "$dir/poll.txt" || fail "poll message"
fi
"$blkperfd" run --target="$target" --polled=auto --io_count=100 \
  --status_interval=0 > "$dir/auto.txt"
grep -q "polled: auto fell back to interrupt-driven completions" "$dir/auto.txt" \
  || grep -q "polled completions" "$dir/auto.txt" || fail "auto fallback note"

# Latency parts: lat = slat + clat per I/O, so their sums agree exactly.
"$blkperfd" run --target="$target" --io_count=2000 --latency_mode=per_io \
  --status_interval=0 --json > "$dir/lat.json"
[[ $(json "$dir/lat.json" 'r["total"]["submit_latency"]["count"]') == 2000 ]] || fail "slat count"
[[ $(json "$dir/lat.json" 'r["total"]["completion_latency"]["count"]') == 2000 ]] || fail "clat count"

# Errors counted under continue_on_error: a distinct state and exit 3, with
# the total and the first 16 sites.
set +e
"$blkperfd" run --target="$target" --op=randread --verify --seed=7 --bs=64k \
  --continue_on_error --io_count=200 --data_dir="$dir/data" --status_interval=0 \
  --json > "$dir/coe.json"
code=$?
set -e
[[ $code == 3 ]] || fail "continue_on_error with errors exited $code, not 3"
[[ $(json "$dir/coe.json" 'r["state"]') == finished_with_errors ]] || fail "coe state"
[[ $(json "$dir/coe.json" 'r["error_total"] > 0') == True ]] || fail "coe total"
[[ $(json "$dir/coe.json" 'len(r["error_sites"])') == 16 ]] || fail "coe sites"

# Ctrl-C stops the run (async-signal-safe stop) and prints the result so far.
"$blkperfd" run --target="$target" --runtime=60s --status_interval=0 \
  > "$dir/int.txt" 2>&1 &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid" || fail "Ctrl-C: exit $?"
grep -q "state: stopped" "$dir/int.txt" || fail "Ctrl-C: $(cat "$dir/int.txt")"

# Past its ramp, a plain run keeps two control threads: main, waiting for
# the end, and the driver, which records the time series once per
# --series_interval (docs/results.md); no signal-watcher or other thread
# idles beside the submitters.
"$blkperfd" run --target="$target" --ramp=1s --runtime=3s --status_interval=0 \
  > /dev/null &
pid=$!
sleep 2
control=$(cat /proc/"$pid"/task/*/comm 2>/dev/null | grep -cv '^blkperf-sub\|^iou-' || true)
wait "$pid" || fail "the thread-count run exited $?"
[[ $control == 2 ]] || fail "past the ramp, $control control threads, not 2"

# Started on one CPU (taskset, as a container's cpuset would), its thread
# runs there by default and every thread of the process stays there: the
# control threads are kept off the busy CPU only among the daemon's own.
if ! command -v taskset > /dev/null; then fail "taskset (util-linux) is missing"; fi
own=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
taskset -c "$own" "$blkperfd" run --target="$target" --runtime=2s \
  --status_interval=0 --json > "$dir/own.json" &
pid=$!
sleep 1
masks=$(cat /proc/"$pid"/task/*/status 2>/dev/null | sed -n 's/^Cpus_allowed_list:\s*//p' | sort -u)
wait "$pid" || fail "a run under taskset exited $?"
[[ $(json "$dir/own.json" '[t["cpu"] for t in r["threads"]]') == "[$own]" ]] \
  || fail "under taskset -c $own the thread ran on $(json "$dir/own.json" '[t["cpu"] for t in r["threads"]]')"
[[ $masks == "$own" ]] || fail "under taskset -c $own threads were allowed: $masks"

# Bad input names the field (an A/B schedule's slice from a spec file:
# --ab is an experiment, tests/local_run/experiment_acceptance_test.sh).
echo '{"ab_strategies": ["none", "limits"], "ab_slice": "0.000000001s"}' > "$dir/ab_1ns.json"
for case in "--bs=4x|--bs" "--qd=0|queue_depth" "--bs=3000|block_size" \
            "--op=scribble|--op" "--split=fixed:1000|split" "--cpus=9999|cpus" \
            "--spec_file=$dir/ab_1ns.json --runtime=1s|ab_slice" \
            "--op=read --bs=64k --alignment=3k --direct=false|alignment" \
            "--io_timeout=1ms|io_timeout" "--latency_mode=sometimes|--latency_mode"; do
  flag=${case%|*}; field=${case#*|}
  # shellcheck disable=SC2086  # a case may hold several flags
  if "$blkperfd" run --target="$target" $flag --io_count=10 \
      --status_interval=0 > "$dir/bad.txt" 2>&1; then
    fail "$flag was accepted"
  fi
  grep -q "INVALID_ARGUMENT.*$field" "$dir/bad.txt" || fail "$flag: $(cat "$dir/bad.txt")"
done
echo "local run: all checks passed"
