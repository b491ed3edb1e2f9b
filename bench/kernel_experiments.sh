#!/usr/bin/env bash
# The kernel experiments of docs/kernel-experiments.md, each one
# `blkperfd run --vary` call, run here on a filled zram, and their verdicts
# as a markdown table.
#
#   bench/kernel_experiments.sh --list                 # the documented commands
#   bench/kernel_experiments.sh                        # runs them, prints the table (about 3 min)
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
# Targets: /dev/zram0, taken under flock -x /tmp/blkperf-zram.lock, set to
# 1 GiB, filled with random data (an empty zram returns zero pages
# without decompressing) and reset at exit; a zram0 already set up is
# refused. zram is bio-based: its requests are never split, so
# split=none,limits there shows what limits' extra SQEs cost; the same
# experiment on $loop, a loop device over the script's own file with
# max_sectors_kb 128 (put back before it is detached at exit), shows what
# avoiding the kernel's splits gains. huge_pages=on needs hugetlb pages:
# the script reserves 8 more in /proc/sys/vm/nr_hugepages for that
# experiment and puts the old count back. zram cannot poll: polled's row
# shows the product's refusal unless --poll_target names a device that
# can (read only; that row then names it). Needs root.
set -euo pipefail
# Benchmarks keep no results in the user's store (docs/results.md).
export BLKPERF_RESULTS_DB=none
cd "$(dirname "$0")/.."

run='blkperfd run --target=/dev/zram0 --op=randread --bs=128k --qd=32 --submit_batch=8 --complete_batch=8 --cpus=1 --rounds=10 --round=500ms --ramp=200ms'
# shellcheck disable=SC2016  # $loop expands when the experiment runs
loop_run='blkperfd run --target=$loop --op=read --bs=1m --qd=4 --cpus=1 --rounds=10 --round=500ms --ramp=200ms'
# name|prefix (run or loop_run)|flags after it|what it compares
experiments=(
  'fixed_buffers|run|--vary=fixed_buffers=false,true|fixed vs plain buffers (t/io_uring -B1 / -B0)'
  'vectored|run|--nofixed_buffers --vary=vectored=false,true|READV vs READ (-V1 in newer t/io_uring)'
  'registered_files|run|--vary=registered_files=false,true|registered files (-F1 / -F0)'
  'huge_pages|run|--vary=huge_pages=off,on|hugetlb buffers (reserve /proc/sys/vm/nr_hugepages first)'
  'buffer_layout|run|--vary=buffer_layout=per_slot,one_region|one registered region vs one per slot (t/io_uring'"'"'s)'
  'request_cache|run|--vary=request_cache=shared,per_cpu|per-CPU request cache vs the shared one'
  'split_zram|run|--vary=split=none,limits|zram is bio-based: no splits to avoid, limits only adds SQEs'
  'split_loop|loop_run|--vary=split=none,limits|avoiding bio splits: 1 MiB reads, 128 KiB requests'
  'polled|run|--vary=polled=off,on|polled completions, where the device polls (zram cannot: refused)'
  'identical|run|--vary=qd=32,32|A/A: the machine'"'"'s own noise; should say equivalent or inconclusive'
)
doc=docs/kernel-experiments.md

# The documented block: the prefixes' lines and one line per experiment.
list_commands() {
  local e name prefix flags what
  echo "run=\"$run\""
  echo "# \$loop: a loop device over a file of random data in the page cache, max_sectors_kb 128"
  echo "loop_run=\"$loop_run\""
  for e in "${experiments[@]}"; do
    IFS='|' read -r name prefix flags what <<< "$e"
    printf '%-52s # %s\n' "\$$prefix $flags" "$what"
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
((!write_doc)) || [[ -z $only ]] || { echo "--write_doc with --only would leave the doc's table without the other experiments" >&2; exit 2; }
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
loop='' old_max_sectors=''
# $loop for split_loop: a loop device over 512 MiB of random data kept in
# the page cache (buffered: the loop workers copy from memory), its
# max_sectors_kb lowered to 128 so the kernel splits each 1 MiB read in 8
# unless the engine does. A loop device keeps max_sectors_kb across detach
# and attach: the old value is put back before it is detached.
add_loop() {
  dd if=/dev/urandom of="$work/loop.img" bs=1M count=512 status=none
  cat "$work/loop.img" > /dev/null
  loop=$(losetup -f --show --direct-io=off "$work/loop.img")
  local q=/sys/block/${loop#/dev/}/queue
  old_max_sectors=$(cat "$q/max_sectors_kb")
  echo 128 > "$q/max_sectors_kb"
}
remove_loop() {
  [[ -n $loop ]] || return 0
  [[ -z $old_max_sectors ]] || echo "$old_max_sectors" > "/sys/block/${loop#/dev/}/queue/max_sectors_kb" || true
  losetup -d "$loop" || true
  loop='' old_max_sectors=''
}
cleanup() {
  echo "$old_hugepages" > /proc/sys/vm/nr_hugepages
  remove_loop
  zram_give_back
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
zram_take 1G
[[ -n $only && ,$only, != *,split_loop,* ]] || add_loop

rows=$work/rows.md
: > "$rows"
for e in "${experiments[@]}"; do
  IFS='|' read -r name prefix flags what <<< "$e"
  [[ -z $only || ,$only, == *,$name,* ]] || continue
  command="\$$prefix $flags"
  base=$run
  [[ $prefix == loop_run ]] && base=${loop_run//\$loop/$loop}
  # shellcheck disable=SC2086  # $base and $flags are word lists
  set -- ${base#blkperfd run } $flags
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
