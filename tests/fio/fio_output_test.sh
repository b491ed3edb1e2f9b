#!/bin/bash
# blkperfd run --output_format=fio-json|fio-json+ as fio's consumers read it.
#   fio_output_test.sh BLKPERFD FIO_JSON_CHECK_PY
set -euo pipefail
blkperfd=$(realpath "$1")
check=$(realpath "$2")
for tool in fio fio_jsonplus_clat2csv python3; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool missing (tools/setup.sh installs it)"; exit 1; }
done
python3 -c 'import six' || { echo "FAIL: python3-six missing (tools/setup.sh)"; exit 1; }

dir=$(mktemp -d "${TEST_TMPDIR:-/tmp}/fio_output.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
truncate -s 64M target.dat
# PerfKitBenchmarker's percentile list (its fio job adds 25 and 75).
pkb_list=1:5:10:20:25:30:40:50:60:70:75:80:90:95:99:99.5:99.9:99.95:99.99

echo "== the acceptance interface"
"$blkperfd" run --target="$dir/target.dat" --nodirect --runtime=2s \
  --latency_mode=per_io --output_format=fio-json+ > accept.json
python3 "$check" acceptance accept.json
fio_jsonplus_clat2csv accept.json accept_csv
fio_jsonplus_clat2csv --validate accept.json accept_csv

echo "== a job with a spread of completion latencies (io-wq), default latency_mode"
"$blkperfd" run --target="$dir/target.dat" --nodirect --runtime=2s \
  --force_async --qd=8 --output_format=fio-json+ \
  --percentile_list="$pkb_list" > spread.json
python3 "$check" acceptance spread.json
grep -q '"latency_mode" : "per_io"' spread.json ||
  { echo "FAIL: fio formats do not default to per_io latency"; exit 1; }
fio_jsonplus_clat2csv spread.json spread_csv
fio_jsonplus_clat2csv --validate spread.json spread_csv
python3 "$check" clat2csv spread.json spread_csv_job0
python3 "$check" pkb spread.json

echo "== the same job under real fio: every key and type fio emits"
fio --name=spread --filename="$dir/target.dat" --rw=randread --bs=4k \
  --ioengine=io_uring --iodepth=8 --runtime=2 --time_based \
  --output-format=json+ > fio.json
python3 "$check" schema fio.json spread.json
# Without PKB's list the default list lacks 25/75: the parser check fails.
if python3 "$check" pkb accept.json >/dev/null; then
  echo "FAIL: the PKB parser check passed on fio's default percentile list"
  exit 1
fi

echo "== batch latency says so; plain fio-json has no bins"
"$blkperfd" run --target="$dir/target.dat" --nodirect --runtime=1s \
  --latency_mode=batch --output_format=fio-json > batch.json
grep -q '"latency_mode" : "batch"' batch.json ||
  { echo "FAIL: a batch run does not say so"; exit 1; }
if grep -q '"bins"' batch.json; then echo "FAIL: fio-json carries bins"; exit 1; fi
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' batch.json

echo "== bad values exit 2 naming the flag"
set +e
"$blkperfd" run --target="$dir/target.dat" --output_format=xml > /dev/null 2> err.txt
rc=$?
set -e
[[ $rc -eq 2 ]] && grep -q "output_format 'xml'" err.txt ||
  { echo "FAIL: --output_format=xml gave rc=$rc: $(cat err.txt)"; exit 1; }
set +e
"$blkperfd" run --target="$dir/target.dat" --output_format=fio-json \
  --percentile_list=0:50 > /dev/null 2> err.txt
rc=$?
set -e
[[ $rc -eq 2 ]] && grep -q "percentile_list" err.txt ||
  { echo "FAIL: --percentile_list=0:50 gave rc=$rc: $(cat err.txt)"; exit 1; }
echo PASS
