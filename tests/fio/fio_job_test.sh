#!/bin/bash
# fio job files in: `blkperf import-fio` and `blkperfd run --fio_job`.
#   fio_job_test.sh BLKPERFD BLKPERF FIO_JSON_CHECK_PY
set -euo pipefail
blkperfd=$(realpath "$1")
blkperf=$(realpath "$2")
check=$(realpath "$3")
dir=$(mktemp -d "${TEST_TMPDIR:-/tmp}/fio_job.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail() { echo "FAIL: $*"; exit 1; }

echo "== import-fio: rw=randwrite bs=8k iodepth=7"
printf '[job]\nrw=randwrite\nbs=8k\niodepth=7\n' > acceptance.fio
"$blkperf" import-fio acceptance.fio > spec.json 2> notes.txt
python3 - spec.json <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
assert spec["op"] == "OP_RANDWRITE", spec["op"]
assert spec["block_size"] == 8192, spec["block_size"]
assert spec["queue_depth"] == 7, spec["queue_depth"]
print("spec: op OP_RANDWRITE, block_size 8192, queue_depth 7")
PY
grep -q "names no ioengine" notes.txt || fail "no note on the missing ioengine"

echo "== import-fio: zonemode=zbd on line 3"
printf '[job]\nrw=read\nzonemode=zbd\n' > zoned.fio
set +e
"$blkperf" import-fio zoned.fio > /dev/null 2> err.txt
rc=$?
set -e
[[ $rc -ne 0 ]] || fail "zonemode=zbd imported"
grep -q "zoned.fio:3: option 'zonemode'" err.txt || fail "message: $(cat err.txt)"

echo "== an output option: refused, or dropped and listed with --fio_job_lenient"
printf '[job]\nrw=read\nwrite_bw_log=bw\n' > logs.fio
if "$blkperf" import-fio logs.fio > /dev/null 2> err.txt; then
  fail "write_bw_log imported without --fio_job_lenient"
fi
grep -q "logs.fio:3: option 'write_bw_log'" err.txt || fail "$(cat err.txt)"
"$blkperf" --fio_job_lenient import-fio logs.fio > /dev/null 2> err.txt
grep -q "dropped logs.fio:3: option 'write_bw_log'" err.txt || fail "$(cat err.txt)"

echo "== blkperfd run --fio_job: [global], include, \${VAR}, percentile_list"
truncate -s 64M target.dat
printf 'ioengine=io_uring\nfixedbufs=1\n' > common.inc
cat > run.fio <<JOB
[global]
include common.inc
filename=$dir/target.dat
time_based=1
runtime=1
percentile_list=25:75:99
[reader]
rw=randread
bs=\${BS}
iodepth=4
JOB
BS=16k "$blkperfd" run --fio_job=run.fio --status_interval=0 \
  --output_format=fio-json+ > run.json 2> notes.txt
python3 "$check" acceptance run.json
python3 - run.json <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]
opts, clat = job["job options"], job["read"]["clat_ns"]
assert opts["bs"] == "16384" and opts["iodepth"] == "4", opts
assert opts["iodepth_batch_submit"] == "1", opts      # fio's default batch
assert opts["fixedbufs"] == "1", opts
assert sorted(clat["percentile"]) == ["25.000000", "75.000000", "99.000000"], clat["percentile"]
assert job["read"]["io_bytes"] == 16384 * job["read"]["total_ios"]
print("run: bs, iodepth, fixedbufs and the job's percentile_list honoured")
PY
echo PASS
