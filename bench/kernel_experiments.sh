#!/usr/bin/env bash
# The kernel experiments of docs/kernel-experiments.md, each one
# `blkperfd run --vary` call, run here on a filled zram, and their verdicts
# as a markdown table.
#
#   bench/kernel_experiments.sh --list                 # the documented commands
#   bench/kernel_experiments.sh                        # runs them, prints the table (about 4 min)
#   bench/kernel_experiments.sh --label quiet --write_doc   # ... and pastes it into the doc
#   bench/kernel_experiments.sh --only fixed_buffers,split
#   BLKPERFD=bazel-out/k8-opt/bin/daemon/blkperfd bench/kernel_experiments.sh ...
#
# --list prints the block docs/kernel-experiments.md shows between its
# "kernel_experiments.sh: commands" markers; tools/check_docs.py fails when
# the two differ, so every documented command is one this script runs.
# Each command runs as printed (the `run=` prefix expanded, `blkperfd` the
# built binary) plus `--json --status_interval=0 --experiment_seed=1`,
# bounded by `timeout 300`, BLKPERF_RESULTS_DB=none. --write_doc rewrites
# both marked blocks of the doc: the commands and the table (date, kernel,
# commit, load and --label in its first line), a single step for a quiet
# rerun.
#
# Target: /dev/zram0, taken under flock -x /tmp/blkperf-zram.lock, set to
# 1 GiB, filled with random data (an empty zram returns zero pages
# without decompressing) and reset at exit; a zram0 already set up is
# refused. zram0 splits a 128 KiB read in two (max_sectors_kb 124), which
# is what split=none,limits compares. huge_pages=on needs hugetlb pages:
# the script reserves 8 more in /proc/sys/vm/nr_hugepages for that
# experiment and puts the old count back. zram cannot poll: polled's row
# shows the product's refusal unless --poll_target names a device that
# can (read only; that row then names it). Needs root.
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=none
cd "$(dirname "$0")/.."

run='blkperfd run --target=/dev/zram0 --op=randread --bs=128k --qd=32 --submit_batch=8 --complete_batch=8 --cpus=1 --rounds=10 --round=500ms --ramp=200ms'
# name|flags after $run|what it compares
experiments=(
  'fixed_buffers|--vary=fixed_buffers=false,true|fixed vs plain buffers (t/io_uring -B1 / -B0)'
  'vectored|--nofixed_buffers --vary=vectored=false,true|READV vs READ (-V1 in newer t/io_uring)'
  'registered_files|--vary=registered_files=false,true|registered files (-F1 / -F0)'
  'huge_pages|--vary=huge_pages=off,on|hugetlb buffers (reserve /proc/sys/vm/nr_hugepages first)'
  'buffer_layout|--vary=buffer_layout=per_slot,one_region|one registered region vs one per slot (t/io_uring'"'"'s)'
  'request_cache|--vary=request_cache=shared,per_cpu|per-CPU request cache vs the shared one'
  'split|--vary=split=none,limits|avoiding bio splits: live arms; device requests per SQE in the JSON'
  'polled|--vary=polled=off,on|polled completions, where the device polls (zram cannot: refused)'
  'identical|--vary=qd=32,32|A/A: the machine'"'"'s own noise; should say equivalent or inconclusive'
)
doc=docs/kernel-experiments.md

# The documented block: the run= line and one line per experiment.
list_commands() {
  local e name flags what
  echo "run=\"$run\""
  for e in "${experiments[@]}"; do
    IFS='|' read -r name flags what <<< "$e"
    printf '%-52s # %s\n' "\$run $flags" "$what"
  done
}

label='' write_doc=0 only='' poll_target=''
usage="usage: $0 [--list] [--label TEXT] [--write_doc] [--only NAME,...] [--poll_target DEV]"
while (($#)); do
  case "$1" in
    --list) list_commands; exit 0 ;;
    --label) label=$2; shift 2 ;;
    --write_doc) write_doc=1; shift ;;
    --only) only=$2; shift 2 ;;
    --poll_target) poll_target=$2; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
names=$(printf '%s\n' "${experiments[@]}" | cut -d'|' -f1)
for n in ${only//,/ }; do
  grep -qx -- "$n" <<< "$names" || { echo "--only: no experiment '${n:0:40}' (one of: ${names//$'\n'/ })" >&2; exit 2; }
done
[[ -z $poll_target || -b $poll_target ]] || { echo "--poll_target must be a block device, not '${poll_target:0:60}'" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "$0 needs root (zram, huge pages)" >&2; exit 1; }

source bench/lib/zram.sh
binary="built from commit $(git rev-parse --short HEAD 2> /dev/null || echo unknown)"
[[ -n ${BLKPERFD:-} ]] && binary="BLKPERFD=$BLKPERFD"
if [[ -z ${BLKPERFD:-} ]]; then
  bazel build -c opt //daemon:blkperfd >&2
  BLKPERFD=bazel-bin/daemon/blkperfd
fi
work=$(mktemp -d /tmp/blkperf-kernel-experiments.XXXXXX)
cp "$BLKPERFD" "$work/blkperfd"  # a later bazel build may repoint bazel-bin
old_hugepages=$(cat /proc/sys/vm/nr_hugepages)
cleanup() {
  echo "$old_hugepages" > /proc/sys/vm/nr_hugepages
  zram_give_back
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
zram_take 1G

rows=$work/rows.md
: > "$rows"
for e in "${experiments[@]}"; do
  IFS='|' read -r name flags what <<< "$e"
  [[ -z $only || ,$only, == *,$name,* ]] || continue
  command="\$run $flags"
  # shellcheck disable=SC2086  # $run and $flags are word lists
  set -- ${run#blkperfd run } $flags
  if [[ $name == polled && -n $poll_target ]]; then
    set -- "$@" --target="$poll_target"
    command+=" --target=$poll_target"
  fi
  [[ $name == huge_pages ]] && echo $((old_hugepages + 8)) > /proc/sys/vm/nr_hugepages
  status=0
  timeout 300 "$work/blkperfd" run "$@" --json --status_interval=0 --experiment_seed=1 \
    > "$work/$name.json" 2> "$work/$name.err" || status=$?
  [[ $name == huge_pages ]] && echo "$old_hugepages" > /proc/sys/vm/nr_hugepages
  python3 bench/lib/experiment_table.py row --command "$command" --status "$status" \
    --json "$work/$name.json" --stderr "$work/$name.err" >> "$rows"
  echo "  $name: exit $status (load $(cut -d' ' -f1 /proc/loadavg))" >&2
done

table=$work/table.md
{
  echo "$(date -u '+%F %H:%M') UTC${label:+, $label}, blkperfd $binary, $(uname -r), $(nproc) CPUs; load before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg); \`bench/kernel_experiments.sh${label:+ --label $label}\`"
  echo
  python3 bench/lib/experiment_table.py header
  cat "$rows"
} > "$table"
cat "$table"
if ((write_doc)); then
  list_commands > "$work/commands"
  { echo '```sh'; cat "$work/commands"; echo '```'; } > "$work/commands.md"
  python3 bench/lib/experiment_table.py replace "$doc" commands "$work/commands.md"
  python3 bench/lib/experiment_table.py replace "$doc" table "$table"
  echo "rewrote the commands and the table in $doc" >&2
fi
