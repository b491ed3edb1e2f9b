#!/usr/bin/env bash
# Runs blkperf's whole test suite and ends with the line "N passed, N failed"
# counting every test target and fuzzer run of every stage. Installs what is
# missing first. Exits non-zero if anything failed.
#
#   tools/test.sh            # CI (.ci/run): all four stages
#   tools/test.sh --quick    # stage 1 only, for developers
#   FUZZ_SECONDS=300 tools/test.sh   # fuzz longer (default 45 s each)
#
# Stages:
#   1. bazel test //...                       unit and end-to-end tests (gcc)
#   2. bazel test --config=asan UNIT_TESTS     ASan+UBSan, first error fails
#   3. bazel test --config=tsan TSAN_TESTS     TSan, see TSAN_TESTS below
#   4. each fuzzer (--config=fuzz, clang) for FUZZ_SECONDS from its corpus
# Other arguments go to every bazel test.
set -uo pipefail
cd "$(dirname "$0")/.."

quick=0
args=()
for a in "$@"; do
  if [[ $a == --quick ]]; then quick=1; else args+=("$a"); fi
done

# Unit tests: everything but the end-to-end runs under tests/ and the
# fleet's namespaced e2e runs (those start daemons and Prometheus; stage 1
# covers them).
UNIT_TESTS=(//bazel/... //base/... //model/... //cli/... //report/...
  //daemon/... //client/... //wire/...
  //fleet:orchestrator_test //fleet:calls_test //fleet:clock_sync_test
  //fleet:merge_test //fleet:inventory_test //fleet:report_test)
# Debian's Abseil, gRPC and protobuf are built without TSan, so their
# synchronization is invisible to it: a test is only meaningful under TSan
# when the threads it races synchronize through code compiled here
# (std::atomic, std::mutex, std::thread, liburing's inline ring barriers).
# These are the engine's multi-threaded pieces: the request cache, the
# histogram, and the submitter threads of a workload (plain and shaped
# loops, job groups).
TSAN_TESTS=(
  //base:pi_mutex_test
  //daemon/engine/ring:request_cache_test
  //model:histogram_test
  //daemon/engine:workload_test
  //daemon/engine:shape_workload_test
)
FUZZERS=(
  //cli:spec_flags_fuzzer
  //daemon/engine/spec:spec_validation_fuzzer
  //model:split_strategy_fuzzer
  //daemon/service:blkperf_service_fuzzer
  //daemon/security:certificate_names_fuzzer
)
FUZZ_SECONDS=${FUZZ_SECONDS:-45}

tools/setup.sh
passed=0
failed=0
status=0
log=$(mktemp)
work=$(mktemp -d)
trap 'rm -rf "$log" "$work"' EXIT

# bazel test with `args`, adding its targets' outcomes to the counts.
run_bazel_test() {
  local stage=$1
  shift
  echo "=== test.sh: ${stage}" >&2
  bazel test --test_output=errors "$@" ${args[@]+"${args[@]}"} 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local p f
  p=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log" || true)
  f=$(grep -cE '^//[^ ]+ +(FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD|FLAKY)' "$log" || true)
  if [[ $rc -ne 0 && $f -eq 0 ]]; then f=1; fi
  passed=$((passed + p))
  failed=$((failed + f))
  if [[ $rc -ne 0 ]]; then status=1; fi
  echo "=== test.sh: ${stage}: ${p} passed, ${f} failed" >&2
}

# Runs one fuzzer for FUZZ_SECONDS: new inputs go to a scratch copy, the
# checked-in corpus is only read. A crash leaves its input under $work.
run_fuzzer() {
  local target=$1
  local pkg=${target#//}
  pkg=${pkg%%:*}
  local name=${target##*:}
  local out="${work}/${name}"
  mkdir -p "${out}/corpus"
  echo "=== test.sh: fuzz ${target} for ${FUZZ_SECONDS}s" >&2
  if "${fuzz_bin}/${pkg}/${name}" \
        -max_total_time="${FUZZ_SECONDS}" -timeout=30 -rss_limit_mb=4096 \
        -print_final_stats=1 -artifact_prefix="${out}/" \
        "${out}/corpus" "${pkg}/${name}_corpus" >"${out}/log" 2>&1; then
    passed=$((passed + 1))
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|Done )' \
      "${out}/log" >&2
  else
    failed=$((failed + 1))
    status=1
    tail -n 60 "${out}/log" >&2
    echo "=== test.sh: ${target} FAILED; reproducer(s):" >&2
    ls "${out}"/crash-* "${out}"/leak-* "${out}"/timeout-* "${out}"/oom-* 2>/dev/null >&2
    mkdir -p /tmp/blkperf-fuzz-failures
    cp "${out}"/crash-* "${out}"/leak-* "${out}"/timeout-* "${out}"/oom-* \
      /tmp/blkperf-fuzz-failures/ 2>/dev/null
  fi
}

# A test that skips itself (no loop device, FUSE, zram or second CPU) is a
# PASSED target to bazel. CI runs as root on a machine that has all of
# them, so as root a target with a skipped case counts as failed: a skip
# there hides a test that did not run. Others only get the list.
check_skips() {
  local logs target reasons n=0
  logs=$(bazel info ${args[@]+"${args[@]}"} bazel-testlogs 2>/dev/null) || return 0
  while IFS= read -r f; do
    [[ -n $f ]] || continue
    target=${f#"$logs"/}
    target=${target%/test.log}
    target="//${target%/*}:${target##*/}"
    # gtest prints "<file>:<line>: Skipped" and then the reason.
    reasons=$(grep -A1 -E ': Skipped$' "$f" | grep -vE ': Skipped$|^--$' |
      sort -u | head -3 | tr '\n' ';' | head -c 400)
    echo "=== test.sh: ${target} skipped: $(grep -cE '^\[  SKIPPED \] .* \([0-9]+ ms\)$' "$f") case(s): ${reasons}" >&2
    n=$((n + 1))
  done < <(grep -rlE --include=test.log '^\[  SKIPPED \] [A-Za-z]' "$logs" 2>/dev/null | sort)
  if ((n > 0)) && [[ $(id -u) -eq 0 ]]; then
    echo "=== test.sh: ${n} target(s) skipped cases as root: counted failed" >&2
    passed=$((passed - n))
    failed=$((failed + n))
    status=1
  fi
}

# The package structure (docs/development.md, "Layout"): no client or
# shared package includes daemon/ headers, no package cycle.
# The reference in docs/ against the proto's spec fields and the spec flags,
# and docs/kernel-experiments.md's commands against bench/kernel_experiments.sh.
for check in tools/check_architecture.py tools/check_docs.py; do
  echo "=== test.sh: ${check}" >&2
  if python3 "${check}" .; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    status=1
  fi
done
run_bazel_test "stage 1: bazel test //..." //...
check_skips
if [[ $quick -eq 0 ]]; then
  run_bazel_test "stage 2: ASan+UBSan unit tests" --config=asan --build_tests_only "${UNIT_TESTS[@]}"
  run_bazel_test "stage 3: TSan engine tests" --config=tsan --build_tests_only \
    "--test_env=TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=${PWD}/bazel/tsan.supp" \
    "${TSAN_TESTS[@]}"
  echo "=== test.sh: stage 4: fuzzers" >&2
  if bazel build --config=fuzz "${FUZZERS[@]}" &&
     fuzz_bin=$(bazel info --config=fuzz bazel-bin); then
    for f in "${FUZZERS[@]}"; do run_fuzzer "$f"; done
  else
    failed=$((failed + ${#FUZZERS[@]}))
    status=1
  fi
fi

echo "${passed} passed, ${failed} failed"
exit "$status"
