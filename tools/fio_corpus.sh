#!/bin/bash
# Imports every job file of fio's examples/ directory with `blkperf
# import-fio` and prints one line per file: "imported" or the refusal
# (which names file, line and option). Fails if a refusal does not name a
# line, or if import-fio crashes. docs/fio.md records the result.
#
#   tools/fio_corpus.sh BLKPERF FIO_SOURCE_DIR     # e.g. fio-3.33 from
#   # bench/lib/tio_build.sh (Debian's source package, outside the repo)
set -euo pipefail
blkperf=$1
examples=$2/examples
imported=0 refused=0
for job in "$examples"/*.fio; do
  name=$(basename "$job")
  set +e
  err=$(cd "$examples" && "$blkperf" import-fio "$name" 2>&1 >/dev/null)
  rc=$?
  set -e
  if [[ $rc -eq 0 ]]; then
    imported=$((imported + 1))
    echo "| $name | imported |"
  elif [[ $rc -eq 2 && $err =~ $name:[0-9]+:\ |has\ no\ job\ section ]]; then
    refused=$((refused + 1))
    why=$(grep -v '^fio job:' <<<"$err" | head -1 | sed "s/^blkperf: //; s/|/\\\\|/g")
    echo "| $name | refused: $why |"
  else
    echo "FAIL: $name: rc=$rc $err" >&2
    exit 1
  fi
done
echo "imported $imported, refused $refused of $((imported + refused))"
