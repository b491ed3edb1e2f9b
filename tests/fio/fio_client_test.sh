#!/bin/bash
# `blkperf run|status --output_format=fio-json|fio-json+` against a real
# `blkperfd serve` on loopback (port 0: the daemon picks a free one).
#   fio_client_test.sh BLKPERFD BLKPERF FIO_JSON_CHECK_PY
set -euo pipefail
blkperfd=$(realpath "$1")
blkperf=$(realpath "$2")
check=$(realpath "$3")
dir=$(mktemp -d "${TEST_TMPDIR:-/tmp}/fio_client.XXXXXX")
daemon=""
cleanup() {
  if [[ -n $daemon ]]; then kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
truncate -s 64M "$dir/target.dat"
"$blkperfd" serve --listen=127.0.0.1:0 --port_file="$dir/port" \
  --allow_read_paths="$dir/" --data_dir="$dir" 2> "$dir/daemon.log" &
daemon=$!
for _ in $(seq 100); do [[ -s $dir/port ]] && break; sleep 0.1; done
[[ -s $dir/port ]] || { echo "FAIL: no port file"; cat "$dir/daemon.log"; exit 1; }
server=127.0.0.1:$(cat "$dir/port")

echo "== blkperf run --output_format=fio-json+"
"$blkperf" --server="$server" --quiet run --target="$dir/target.dat" \
  --nodirect --runtime=2s --force_async --qd=8 --output_format=fio-json+ \
  > "$dir/run.json"
python3 "$check" acceptance "$dir/run.json"
grep -q '"latency_mode" : "per_io"' "$dir/run.json" ||
  { echo "FAIL: blkperf run's fio format did not default to per_io"; exit 1; }

echo "== blkperf status w1 --output_format=fio-json"
"$blkperf" --server="$server" status w1 --output_format=fio-json \
  > "$dir/status.json"
python3 - "$dir/run.json" "$dir/status.json" <<'PY'
import json, sys
run, status = (json.load(open(p))["jobs"][0]["read"] for p in sys.argv[1:])
assert "bins" not in status["clat_ns"], "fio-json has bins"
for k in ("total_ios", "io_bytes"):
    assert run[k] == status[k] and run[k] > 0, (k, run[k], status[k])
assert run["clat_ns"]["percentile"] == status["clat_ns"]["percentile"]
print("status: the same totals and percentiles as run's report")
PY

echo "== blkperf run --fio_job (the client reads the job file)"
printf '[global]\nioengine=io_uring\ntime_based=1\nruntime=1\n[w]\nrw=randread\nbs=8k\niodepth=3\nfilename=%s\n' \
  "$dir/target.dat" > "$dir/job.fio"
"$blkperf" --server="$server" --quiet run --fio_job="$dir/job.fio" \
  --output_format=fio-json > "$dir/fio_job.json" 2> "$dir/notes"
python3 - "$dir/fio_job.json" <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]
assert job["job options"]["bs"] == "8192", job["job options"]
assert job["job options"]["iodepth"] == "3", job["job options"]
assert job["read"]["total_ios"] > 0
print("run --fio_job: bs 8192, iodepth 3, %d reads" % job["read"]["total_ios"])
PY

echo "== blkperf run writes fio's logs from the daemon's snapshots"
(cd "$dir" && "$blkperf" --server="$server" --quiet run --target="$dir/target.dat" \
  --nodirect --runtime=2s --ramp=500ms --force_async --qd=4 \
  --write_iops_log=c --write_bw_log=c --write_lat_log=c --log_avg_msec=200 \
  --write_hist_log=c --log_hist_msec=500 --output_format=fio-json+ > "$dir/logged.json")
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
def rows(kind):
    return [[int(c) for c in line.split(",")] for line in open("%s/c_%s.1.log" % (d, kind)) if line.strip()]
read = json.load(open(d + "/logged.json"))["jobs"][0]["read"]
assert read["total_ios"] > 0
for kind in ("iops", "bw", "lat", "slat", "clat"):
    r = rows(kind)
    assert len(r) >= 5 and all(len(x) == 5 and x[2:] == [0, 0, 0] for x in r), (kind, r)
    assert [x[0] for x in r] == sorted(x[0] for x in r), kind
hist = rows("clat_hist")
assert len(hist) >= 3 and all(len(x) == 3 + 29 * 64 for x in hist), len(hist)
total = sum(sum(x[3:]) for x in hist)
assert total == read["clat_ns"]["N"] == read["total_ios"], (total, read["total_ios"])
t, ios = 0, 0.0
for x in rows("iops"):
    ios += x[1] * (x[0] - t) / 1000.0
    t = x[0]
assert abs(ios - read["total_ios"]) <= 0.01 * read["total_ios"] + 20, (ios, read["total_ios"])
# bw_*/iops_* come from the run's per-second series.
assert read["iops_samples"] >= 1 and read["iops_min"] <= read["iops_mean"] <= read["iops_max"], read
print("run logs: %d windows, hist bins add up to the run's %d I/Os" % (len(hist), total))
PY
for args in "start --write_iops_log=x --log_avg_msec=100" \
            "run --write_iops_log=x" \
            "run --op=randrw --write_lat_log=x --log_avg_msec=100"; do
  set +e
  # shellcheck disable=SC2086
  "$blkperf" --server="$server" $args --target="$dir/target.dat" --runtime=1s > /dev/null 2> "$dir/err"
  rc=$?
  set -e
  [[ $rc -eq 2 ]] || { echo "FAIL: '$args' exited $rc: $(cat "$dir/err")"; exit 1; }
done
grep -q "latencies are not kept per direction" "$dir/err" ||
  { echo "FAIL: randrw lat log refusal: $(cat "$dir/err")"; exit 1; }

echo "== a job file's log options: blkperf run writes them, start refuses them"
printf '[global]\nioengine=io_uring\ntime_based=1\nruntime=1\n[w]\nrw=randread\nfilename=%s\nwrite_iops_log\nwrite_hist_log=jh\nlog_avg_msec=200\nlog_hist_msec=250\n' \
  "$dir/target.dat" > "$dir/logs.fio"
(cd "$dir" && "$blkperf" --server="$server" --quiet run --fio_job="$dir/logs.fio" \
  --output_format=fio-json > "$dir/job_logs.json" 2> "$dir/notes")
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
reads = json.load(open(d + "/job_logs.json"))["jobs"][0]["read"]["total_ios"]
iops = [l for l in open(d + "/w_iops.1.log") if l.strip()]   # named after the job
hist = [[int(c) for c in l.split(",")] for l in open(d + "/jh_clat_hist.1.log") if l.strip()]
assert len(iops) >= 3 and len(hist) >= 2, (len(iops), len(hist))
assert sum(sum(r[3:]) for r in hist) == reads, reads
print("job file logs: %d iops lines, hist bins add up to %d reads" % (len(iops), reads))
PY
set +e
"$blkperf" --server="$server" start --fio_job="$dir/logs.fio" > /dev/null 2> "$dir/err"
rc=$?
set -e
[[ $rc -ne 0 ]] && grep -q "log options" "$dir/err" ||
  { echo "FAIL: start with a job file's logs: rc=$rc $(cat "$dir/err")"; exit 1; }

echo "== a bad --output_format is a usage error"
set +e
"$blkperf" --server="$server" status w1 --output_format=xml > /dev/null 2> "$dir/err"
rc=$?
set -e
[[ $rc -eq 2 ]] && grep -q "output_format 'xml'" "$dir/err" ||
  { echo "FAIL: rc=$rc $(cat "$dir/err")"; exit 1; }
echo PASS
