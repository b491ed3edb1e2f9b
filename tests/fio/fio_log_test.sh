#!/bin/bash
# `blkperfd run`'s fio logs, against real fio's logs of the same job.
#   fio_log_test.sh BLKPERFD
set -euo pipefail
blkperfd=$(realpath "$1")
command -v fio >/dev/null || { echo "FAIL: fio missing (tools/setup.sh installs it)"; exit 1; }
dir=$(mktemp -d "${TEST_TMPDIR:-/tmp}/fio_log.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail() { echo "FAIL: $*"; exit 1; }
truncate -s 64M target.dat
logs=(--write_iops_log=b --write_bw_log=b --write_lat_log=b --log_avg_msec=200
      --write_hist_log=b --log_hist_msec=500)

echo "== blkperfd run with every fio log"
"$blkperfd" run --target="$dir/target.dat" --nodirect --runtime=2s --ramp=1s \
  --force_async --qd=4 --status_interval=0 "${logs[@]}" \
  --output_format=fio-json+ > b.json
echo "== fio on the same job, same log options"
fio --name=f --filename="$dir/target.dat" --rw=randread --bs=4k \
  --ioengine=io_uring --iodepth=4 --runtime=1 --time_based \
  --write_iops_log=f --write_bw_log=f --write_lat_log=f --log_avg_msec=200 \
  --write_hist_log=f --log_hist_msec=500 --output-format=terse > /dev/null

python3 - <<'PY'
import json
def rows(path):
    return [[c.strip() for c in line.split(",")] for line in open(path) if line.strip()]
for kind in ("iops", "bw", "lat", "slat", "clat", "clat_hist"):
    b, f = rows("b_%s.1.log" % kind), rows("f_%s.1.log" % kind)
    assert b, "b_%s.1.log is empty" % kind
    widths = {len(r) for r in b}
    assert widths == {len(f[0])}, (kind, widths, len(f[0]))
    for r in b:
        [int(c) for c in r]
        if kind != "clat_hist":  # averaged: block size 0, priority 0
            assert r[2] == "0" and r[3:] == ["0", "0"], r
    times = [int(r[0]) for r in b]
    assert times == sorted(times), (kind, times)
    print("%s: %d lines of %d columns, as fio's" % (kind, len(b), len(f[0])))
read = json.load(open("b.json"))["jobs"][0]["read"]
hist = sum(sum(int(c) for c in r[3:]) for r in rows("b_clat_hist.1.log"))
assert hist == read["clat_ns"]["N"] == read["total_ios"], (hist, read["total_ios"])
print("clat_hist: the bins of every window add up to the run's %d I/Os" % hist)
# iops x window length over the windows gives back the I/O count (each
# value is truncated to a whole I/O per second: at most 1 per window-second).
t, ios = 0, 0.0
for r in rows("b_iops.1.log"):
    ios += int(r[1]) * (int(r[0]) - t) / 1000.0
    t = int(r[0])
assert abs(ios - read["total_ios"]) <= 0.01 * read["total_ios"] + 20, (ios, read["total_ios"])
print("iops log: windows integrate to %.0f of %d I/Os" % (ios, read["total_ios"]))
PY

echo "== refusals"
check_refused() {
  local want=$1; shift
  set +e
  "$blkperfd" run --target="$dir/target.dat" --nodirect --runtime=1s "$@" > /dev/null 2> err.txt
  local rc=$?
  set -e
  [[ $rc -eq 2 ]] && grep -q -- "$want" err.txt || fail "$* gave rc=$rc: $(cat err.txt)"
}
check_refused "--write_iops_log: needs --log_avg_msec" --write_iops_log=x
check_refused "--log_avg_msec: 5 is under" --write_bw_log=x --log_avg_msec=5
check_refused "--write_lat_log: blkperf's latencies are not kept per direction" \
  --op=randrw --read_percent=100 --write_lat_log=x --log_avg_msec=100
check_refused "cannot create fio log /nonexistent-dir/x_iops.1.log" \
  --write_iops_log=/nonexistent-dir/x --log_avg_msec=100
echo PASS
