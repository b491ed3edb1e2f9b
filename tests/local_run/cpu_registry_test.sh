#!/usr/bin/env bash
# Issue 41 item 7: concurrent `blkperfd run`s without --cpus take different
# CPUs through the host's registry (here a private one, $BLKPERF_CPU_REGISTRY),
# a run that has to share a CPU says so, and --cpu_sharing=refuse refuses.
set -euo pipefail
blkperfd=$1
dir=${TEST_TMPDIR:-$(mktemp -d)}
export BLKPERF_CPU_REGISTRY=$dir/registry
target=$dir/cpu_registry.dat
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ $(nproc) -ge 2 ]] || fail "needs 2 CPUs in the affinity mask, has $(nproc)"

run() {  # run OUT [FLAGS...]: a light timed read of the target, text report
  local out=$1; shift
  "$blkperfd" run --target="$target" --qd=1 --rate_iops=200 --status_interval=0 \
    --data_dir="$dir/data" "$@" > "$out" 2> "$out.err"
}
held() {  # how many CPUs some process holds in the registry now
  local n=0 f
  for f in "$BLKPERF_CPU_REGISTRY"/cpus/cpu*; do
    [[ -e $f ]] || continue
    flock -n "$f" true || n=$((n + 1))
  done
  echo "$n"
}
wait_held() {  # wait_held N: until N CPUs are held (10 s at most)
  for _ in $(seq 100); do
    [[ $(held) -ge $1 ]] && return 0
    sleep 0.1
  done
  fail "registry never showed $1 CPUs held"
}
cpus_of() { sed -n 's/.* cpus=\([0-9,]*\).*/\1/p' "$1" | head -1; }

run "$dir/create.txt" --create_size=16m --allow_write --runtime=100ms
[[ $(held) == 0 ]] || fail "a finished run still holds a CPU"

run "$dir/a.txt" --runtime=6s & a=$!
wait_held 1
run "$dir/b.txt" --runtime=6s & b=$!
wait_held 2
# Both CPUs held: a third run shares one and says so; refusing exits 1.
run "$dir/c.txt" --runtime=200ms
if run "$dir/d.txt" --runtime=200ms --cpu_sharing=refuse; then
  fail "--cpu_sharing=refuse ran on a held CPU"
fi
wait "$a" "$b"

[[ -n $(cpus_of "$dir/a.txt") ]] || fail "no cpus= in a's report: $(cat "$dir/a.txt")"
[[ $(cpus_of "$dir/a.txt") != $(cpus_of "$dir/b.txt") ]] ||
  fail "two concurrent runs both on CPU $(cpus_of "$dir/a.txt")"
for r in a b; do
  ! grep -q "shares CPU" "$dir/$r.txt" || fail "run $r reports sharing: $(cat "$dir/$r.txt")"
done
grep -q "shares CPU $(cpus_of "$dir/c.txt") (held by pid" "$dir/c.txt" ||
  fail "the third run does not say it shares: $(cat "$dir/c.txt")"
grep -q "cpu_sharing: refuse: CPU" "$dir/d.txt.err" ||
  fail "the refusal does not name the CPU: $(cat "$dir/d.txt.err")"
set +e; run "$dir/e.txt" --cpu_sharing=bad --runtime=100ms; rc=$?; set -e
[[ $rc == 2 ]] && grep -q -- "--cpu_sharing" "$dir/e.txt.err" ||
  fail "a bad --cpu_sharing is not a usage error (rc $rc)"
[[ $(held) == 0 ]] || fail "CPUs still held after every run ended"
echo PASS
