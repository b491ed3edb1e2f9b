#!/usr/bin/env bash
# End to end: the `blkperf fleet` commands as a user runs them, against 8
# fake hosts (fleet/testing/fake_fleet_hosts, clocks hours apart): a run
# through a file_sd inventory written by `fleet inventory`, watch and split
# of a live run, Ctrl-C aborting everywhere, workload-shape flags, job
# groups and an SLO search forwarded to every host, job groups merged per
# group, fio's client/server JSON, and flag errors naming the flag.
set -euo pipefail
blkperf=$1
fake=$2
dir=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*" >&2; exit 1; }
fake_pid=
cleanup() { [[ -z $fake_pid ]] || { kill "$fake_pid" 2>/dev/null || true; wait "$fake_pid" 2>/dev/null || true; }; }
trap cleanup EXIT

start_fake() {  # fresh fake hosts; addresses in $dir/hosts.txt
  cleanup
  rm -f "$dir/hosts.txt"
  "$fake" --hosts=8 --address_file="$dir/hosts.txt" &
  fake_pid=$!
  for _ in $(seq 100); do [[ -f $dir/hosts.txt ]] && return; sleep 0.1; done
  fail "fake hosts did not start"
}
py() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# file_sd round trip: the control port travels in the blkperf_grpc label.
start_fake
"$blkperf" fleet inventory --hosts="@$dir/hosts.txt" --format=file_sd > "$dir/sd.json"
[[ $(py "$dir/sd.json" 'len(r)') == 8 ]] || fail "file_sd groups"
[[ $(py "$dir/sd.json" 'r[0]["targets"][0]') == 127.0.0.1:9477 ]] || fail "file_sd target"
"$blkperf" fleet run --hosts="$dir/sd.json" --runtime=1s --interval=300ms \
  --start_margin=200ms --run_id=sd-run --api_json > "$dir/run.json" 2> "$dir/run.err" \
  || fail "run exited $?: $(cat "$dir/run.err")"
[[ $(py "$dir/run.json" 'r["outcome"]') == completed ]] || fail outcome
[[ $(py "$dir/run.json" 'r["run_id"]') == sd-run ]] || fail run_id
[[ $(py "$dir/run.json" 'sorted(h["address"] for h in r["hosts"]) == sorted(open(sys.argv[1].replace("run.json","hosts.txt")).read().split())') == True ]] \
  || fail "hosts[] are not the inventory's control addresses"

# --report_file: the report there, whole; stdout empty (a Kubernetes Job's
# log mixes stdout and stderr).
"$blkperf" fleet report sd-run --hosts="@$dir/hosts.txt" --json \
  --report_file="$dir/kept.json" > "$dir/kept.out" 2> "$dir/kept.err" \
  || fail "report --report_file exited $?: $(cat "$dir/kept.err")"
[[ ! -s $dir/kept.out ]] || fail "stdout is not empty with --report_file: $(head -c 300 "$dir/kept.out")"
[[ $(py "$dir/kept.json" 'r["run_id"]') == sd-run ]] || fail "report_file: $(head -c 300 "$dir/kept.json")"
grep -q "report of run sd-run written to $dir/kept.json" "$dir/kept.err" || fail "report_file: $(cat "$dir/kept.err")"
ls "$dir"/kept.json.tmp.* 2>/dev/null && fail "a temporary report file was left"
# A finished run: `fleet watch` says it has ended; `fleet report` merges it
# again from the results the hosts keep, exactly as the run did.
"$blkperf" fleet watch sd-run --hosts="@$dir/hosts.txt" > "$dir/watch-done.txt" \
  2> "$dir/watch-done.err" || fail "watch of a finished run exited $?"
grep -q "run sd-run has ended on every host holding it" "$dir/watch-done.err" \
  || fail "watch of a finished run: $(cat "$dir/watch-done.err")"
"$blkperf" fleet report sd-run --hosts="@$dir/hosts.txt" --api_json > "$dir/again.json" \
  2> "$dir/again.err" || fail "report exited $?: $(cat "$dir/again.err")"
python3 - "$dir/run.json" "$dir/again.json" <<'PY' || fail "fleet report differs from the run's merge"
import json, sys
run, again = (json.load(open(p)) for p in sys.argv[1:])
assert again["outcome"] == "completed" and again["run_id"] == "sd-run", again["outcome"]
a, b = run["merged"]["snapshot"]["total"], again["merged"]["snapshot"]["total"]
assert int(a["ios"]) > 0 and a["histogram"]["buckets"], a
for field in ("ios", "bytes", "read_ios", "histogram"):
    assert a[field] == b[field], field
assert sorted(h["address"] for h in run["hosts"]) == sorted(h["address"] for h in again["hosts"])
assert any("re-merged by `blkperf fleet report`" in n for n in again["merged"]["snapshot"]["notes"])
PY
# Unknown runs: errors about the run and the hosts, exit 1.
for cmd in abort report watch; do
  rc=0; "$blkperf" fleet "$cmd" no-such-run --hosts="@$dir/hosts.txt" > /dev/null 2> "$dir/nrun.err" || rc=$?
  [[ $rc == 1 ]] || fail "fleet $cmd no-such-run exited $rc"
  grep -q "run no-such-run is on none of the 8 hosts" "$dir/nrun.err" \
    && grep -q "8 hosts (.*): no workload of run no-such-run here" "$dir/nrun.err" \
    || fail "fleet $cmd no-such-run: $(cat "$dir/nrun.err")"
done

# `fleet abort RUN` from another process aborts a live run everywhere.
start_fake
"$blkperf" fleet run --hosts="@$dir/hosts.txt" --runtime=30s --interval=200ms \
  --start_margin=200ms --run_id=to-abort --json > "$dir/abort-run.json" 2> "$dir/abort-run.err" &
run_pid=$!
sleep 1.5
"$blkperf" fleet abort to-abort --hosts="@$dir/hosts.txt" > "$dir/abort.txt" 2>&1 \
  || fail "fleet abort exited $?: $(cat "$dir/abort.txt")"
[[ $(grep -c ": aborted$" "$dir/abort.txt") == 8 ]] || fail "abort lines: $(cat "$dir/abort.txt")"
rc=0; wait "$run_pid" || rc=$?
[[ $rc == 1 ]] || fail "the aborted run exited $rc"

# Host identity and cohorts: file_sd labels (rack a: hosts 0-3, rack b:
# 4-7) and the daemons' kernels (the fake alternates two) reach hosts[];
# --cohort_by merges each cohort exactly (ios and every histogram bucket
# the sums of its hosts').
start_racks() {  # fresh fake hosts, file_sd in $dir/racks.json
  start_fake
  python3 - "$dir/hosts.txt" "$dir/racks.json" <<'PY'
import json, sys
hosts = open(sys.argv[1]).read().split()
groups = [{"targets": [h.rsplit(":", 1)[0] + ":9477"],
           "labels": {"blkperf_grpc": h.rsplit(":", 1)[1], "rack": "ab"[i // 4]}}
          for i, h in enumerate(hosts)]
json.dump(groups, open(sys.argv[2], "w"))
PY
}
for by in label:rack kernel_release device_model; do
  start_racks
  "$blkperf" fleet run --hosts="$dir/racks.json" --runtime=1s --interval=300ms \
    --start_margin=200ms --run_id="cohort-${by%%:*}" --api_json --cohort_by="$by" \
    > "$dir/cohort.json" 2> "$dir/cohort.err" || fail "cohort run exited $?: $(cat "$dir/cohort.err")"
  python3 - "$dir/cohort.json" "$by" <<'PY' || fail "cohorts by $by: $(head -c 2000 "$dir/cohort.json")"
import collections, json, sys
r, by = json.load(open(sys.argv[1])), sys.argv[2]
hosts = {h["address"]: h for h in r["hosts"]}
assert len(hosts) == 8
assert all(h["labels"]["rack"] in ("a", "b") and "blkperf_grpc" not in h["labels"] for h in hosts.values())
assert sorted(h["kernel_release"] for h in hosts.values()) == ["6.1.0-fake"] * 4 + ["6.12.0-fake"] * 4
keys = {"label:rack": lambda h: h["labels"]["rack"],
        "kernel_release": lambda h: h["kernel_release"],
        # hosts[].report's environment: the disk model of each target.
        "device_model": lambda h: ",".join(t["model"] for t in h["report"]["snapshot"]["environment"]["targets"])}
key = keys[by]
assert sorted(key(h) for h in hosts.values())[0] != sorted(key(h) for h in hosts.values())[-1]
assert r["cohort_by"] == by and len(r["cohorts"]) == 2, r["cohorts"]
def buckets(t):
    return collections.Counter({b["index"]: int(b["count"]) for b in t["histogram"].get("buckets", [])})
for c in r["cohorts"]:
    members = [hosts[a] for a in c["hosts"]]
    assert len(members) == 4 and all(key(h) == c["value"] for h in members), c["hosts"]
    total = c["merged"]["snapshot"]["total"]
    parts = [h["report"]["snapshot"]["total"] for h in members]
    assert int(total["ios"]) == sum(int(p["ios"]) for p in parts) > 0
    want = collections.Counter()
    for p in parts:
        want.update(buckets(p))
    assert buckets(total) == want
# The cohorts compared, hosts as the unit: each host's IOPS a sample, the
# ratio that of the cohorts' medians (geometric mean of the middle two of 4).
cmp = r["cohort_comparison"]
assert cmp["by"] == by and cmp["unit"] == "host", cmp
base, other = cmp["cohorts"]
assert base["baseline"] and not other["baseline"] and len(other["iops"]["samples"]) == 4
def median(v):
    v = sorted(v)
    return (v[1] * v[2]) ** 0.5
ratio = median(other["iops"]["samples"]) / median(base["iops"]["samples"])
assert abs(other["iops"]["ratio"] - ratio) < 1e-6 * ratio, (other["iops"], ratio)
assert other["iops"]["ci"][0] <= other["iops"]["ratio"] <= other["iops"]["ci"][1]
assert other["verdict"] in ("faster", "slower", "equivalent", "inconclusive")
PY
done
# Each host its own target (file_sd label blkperf_targets), the others the
# spec's --target; a label whose path count is not the spec's target count
# fails that host's arming, naming the label.
start_fake
python3 - "$dir/hosts.txt" "$dir/own.json" <<'PY'
import json, sys
hosts = open(sys.argv[1]).read().split()
groups = [{"targets": [h.rsplit(":", 1)[0] + ":9477"],
           "labels": {"blkperf_grpc": h.rsplit(":", 1)[1],
                      **({"blkperf_targets": f"/data/host{i}.dat"} if i < 4 else {}),
                      **({"blkperf_targets": "/data/a,/data/b"} if i == 7 else {})}}
          for i, h in enumerate(hosts)]
json.dump(groups, open(sys.argv[2], "w"))
PY
rc=0
"$blkperf" fleet run --hosts="$dir/own.json" --runtime=1s --interval=300ms --min_hosts=7 \
  --start_margin=200ms --run_id=own-targets --api_json --target=/data/shared.dat \
  > "$dir/own.out" 2> "$dir/own.err" || rc=$?
[[ $rc == 3 ]] || fail "own-targets run exited $rc, not 3: $(cat "$dir/own.err")"
python3 - "$dir/own.out" "$dir/hosts.txt" <<'PY' || fail "own targets: $(head -c 3000 "$dir/own.out")"
import json, sys
r = json.load(open(sys.argv[1]))
order = open(sys.argv[2]).read().split()
paths = {h["address"]: [t["path"] for t in h["report"]["spec"]["targets"]] for h in r["hosts"]}
assert len(paths) == 7, paths
for i, a in enumerate(order[:7]):
    assert paths[a] == ([f"/data/host{i}.dat"] if i < 4 else ["/data/shared.dat"]), (a, paths[a])
(x,) = r["excluded"]
assert x["address"] == order[7] and "label blkperf_targets" in x["reason"] and "gives 2 path(s); the spec has 1" in x["reason"], x
PY

start_racks
"$blkperf" fleet run --hosts="$dir/racks.json" --runtime=1s --interval=300ms \
  --start_margin=200ms --run_id=cohort-text --cohort_by=label:rack > "$dir/cohort.txt" 2>&1 \
  || fail "cohort text run: $(cat "$dir/cohort.txt")"
grep -q "^cohort label:rack=a (4 hosts: .*): IOPS=" "$dir/cohort.txt" \
  && grep -q "^    kernel 6.1.0-fake daemon fake labels{rack=a}" "$dir/cohort.txt" \
  || fail "text cohorts/identity: $(cat "$dir/cohort.txt")"

# watch and split a live run.
start_fake
"$blkperf" fleet run --hosts="@$dir/hosts.txt" --runtime=3s --interval=300ms \
  --start_margin=200ms --run_id=live > "$dir/live.txt" 2>&1 &
run_pid=$!
sleep 1
"$blkperf" fleet split live limits --hosts="@$dir/hosts.txt" --start_margin=100ms \
  > "$dir/split.txt" || fail "split: $(cat "$dir/split.txt")"
[[ $(grep -c ": split limits at monotonic" "$dir/split.txt") == 8 ]] || fail "split lines"
"$blkperf" fleet watch live --hosts="@$dir/hosts.txt" --interval=300ms \
  > "$dir/watch.txt" || fail "watch exited $?"
grep -q "running=8/8" "$dir/watch.txt" || fail "watch lines: $(cat "$dir/watch.txt")"
wait "$run_pid" || fail "live run exited $?"
grep -q "completed=8" "$dir/live.txt" || fail "live run report"
grep -q "fleet IOPS=.*running=8/8" "$dir/live.txt" || fail "no live lines"

# Ctrl-C aborts everywhere: exit 1, outcome aborted, every host aborted.
start_fake
"$blkperf" fleet run --hosts="@$dir/hosts.txt" --runtime=30s --interval=200ms \
  --start_margin=200ms --run_id=intr --api_json > "$dir/intr.json" 2> "$dir/intr.err" &
run_pid=$!
sleep 1.5
kill -INT "$run_pid"
rc=0; wait "$run_pid" || rc=$?
[[ $rc == 1 ]] || fail "interrupted run exited $rc"
[[ $(py "$dir/intr.json" 'r["outcome"]') == aborted ]] || fail "not aborted"
[[ $(py "$dir/intr.json" 'all(h["report"]["state"] == "WORKLOAD_STATE_ABORTED" for h in r["hosts"])') == True ]] \
  || fail "a host was not aborted"

# Workload-shape flags (cli/shape_flags.cc, the one flag set of
# blkperfd run, blkperf run and blkperf fleet run) reach every host's spec:
# offsets, mixes per direction, the open-loop rate, syncs; then job groups;
# then an SLO search.
start_fake
"$blkperf" fleet run --hosts="@$dir/hosts.txt" --runtime=1s --interval=300ms \
  --start_margin=200ms --run_id=shaped --api_json --op=randrw --allow_write \
  --distribution=zipf:1.2 --random_percent=80 --bssplit=4k/70:64k/30,8k \
  --rate_iops=20000 --arrivals=poisson --fdatasync=16 \
  > "$dir/shaped.json" 2> "$dir/shaped.err" \
  || fail "shaped run exited $?: $(cat "$dir/shaped.err")"
[[ $(py "$dir/shaped.json" 'r["outcome"]') == completed ]] || fail "shaped outcome"
[[ $(py "$dir/shaped.json" 'len(r["hosts"])') == 8 ]] || fail "shaped hosts"
shaped_spec_ok='all(
  s["distribution"] == "zipf:1.2" and s["random_percent"] == 80 and
  [(b["block_size"], b["percent"]) for b in s["read_bssplit"]] == [(4096, 70), (65536, 30)] and
  [(b["block_size"], b["percent"]) for b in s["write_bssplit"]] == [(8192, 100)] and
  s["rate_iops"] == "20000" and s["arrivals"] == "ARRIVALS_POISSON" and
  s["fdatasync_every"] == 16
  for s in (h["report"]["spec"] for h in r["hosts"]))'
[[ $(py "$dir/shaped.json" "$shaped_spec_ok") == True ]] \
  || fail "a host's spec lacks the shape flags: $(py "$dir/shaped.json" 'r["hosts"][0]["report"]["spec"]')"

start_fake
"$blkperf" fleet run --hosts="@$dir/hosts.txt" --runtime=1s --interval=300ms \
  --start_margin=200ms --run_id=grouped --api_json \
  --groups="hot: op=randread cpus=0 distribution=pareto:0.2; paced: op=read cpus=1 bs=128k rate_bw=64m" \
  > "$dir/grouped.json" 2> "$dir/grouped.err" \
  || fail "grouped run exited $?: $(cat "$dir/grouped.err")"
grouped_spec_ok='all(
  [(g["name"], g["cpus"], g["op"]) for g in s["groups"]] ==
    [("hot", [0], "OP_RANDREAD"), ("paced", [1], "OP_READ")] and
  s["groups"][0]["distribution"] == "pareto:0.2" and
  s["groups"][1]["block_size"] == 131072 and
  s["groups"][1]["rate_bw"] == str(64 << 20)
  for s in (h["report"]["spec"] for h in r["hosts"]))'
[[ $(py "$dir/grouped.json" 'len(r["hosts"])') == 8 ]] || fail "grouped hosts"
[[ $(py "$dir/grouped.json" "$grouped_spec_ok") == True ]] \
  || fail "a host's spec lacks the groups: $(py "$dir/grouped.json" 'r["hosts"][0]["report"]["spec"]')"
# The merged report carries each group merged across the hosts: counts and
# every histogram bucket the sum of the hosts' (and the groups' the total).
python3 - "$dir/grouped.json" <<'PY' || fail "merged groups: $(py "$dir/grouped.json" 'r["merged"]["snapshot"]["groups"]')"
import collections, json, sys
r = json.load(open(sys.argv[1]))
merged = r["merged"]["snapshot"]
hosts = [h["report"]["snapshot"] for h in r["hosts"]]
assert len(hosts) == 8, len(hosts)
assert [g["name"] for g in merged["groups"]] == ["hot", "paced"], merged["groups"]
def buckets(h):
    return {b["index"]: int(b["count"]) for b in h.get("buckets", [])}
for i, g in enumerate(merged["groups"]):
    parts = [s["groups"][i] for s in hosts]
    assert all(p["name"] == g["name"] for p in parts)
    assert g["threads"] == parts[0]["threads"] == [i], g["threads"]
    for field in ("ios", "bytes", "read_ios"):
        want = sum(int(p["total"][field]) for p in parts)
        assert want > 0 and int(g["total"][field]) == want, (g["name"], field)
    want = collections.Counter()
    for p in parts:
        want.update(buckets(p["total"]["histogram"]))
    got = buckets(g["total"]["histogram"])
    assert got and got == dict(want), (g["name"], got, dict(want))
assert sum(int(g["total"]["ios"]) for g in merged["groups"]) == int(merged["total"]["ios"])
PY
start_fake
"$blkperf" fleet run --hosts="@$dir/hosts.txt" --runtime=1s --interval=300ms \
  --start_margin=200ms --run_id=grouped-text \
  --groups="hot: op=randread cpus=0; paced: op=read cpus=1 bs=128k rate_bw=64m" \
  > "$dir/grouped.txt" 2>&1 || fail "grouped text run exited $?: $(cat "$dir/grouped.txt")"
grep -q "^  group hot: randread" "$dir/grouped.txt" && grep -q "^  group paced: read" "$dir/grouped.txt" \
  || fail "text report lacks the groups: $(cat "$dir/grouped.txt")"

start_fake
"$blkperf" fleet run --hosts="@$dir/hosts.txt" --interval=300ms \
  --start_margin=200ms --run_id=slo --api_json --slo='p99.9<=250us' \
  --slo_precision=0.1 --slo_step=1s --slo_settle=100ms \
  > "$dir/slo.json" 2> "$dir/slo.err" \
  || fail "slo run exited $?: $(cat "$dir/slo.err")"
slo_spec_ok='all(
  s["slo"]["objective"] == "p99.9<=250us" and s["slo"]["precision"] == 0.1 and
  s["slo"]["step"] == "1s" and s["slo"]["settle"] == "0.100s"
  for s in (h["report"]["spec"] for h in r["hosts"]))'
[[ $(py "$dir/slo.json" 'len(r["hosts"])') == 8 ]] || fail "slo hosts"
[[ $(py "$dir/slo.json" "$slo_spec_ok") == True ]] \
  || fail "a host's spec lacks the SLO search: $(py "$dir/slo.json" 'r["hosts"][0]["report"]["spec"]')"

# --help lists the fleet flags (it said "No flags matched." before).
"$blkperf" fleet run --help > "$dir/help.txt" 2>&1 || true
grep -q -- "--cohort_by" "$dir/help.txt" && grep -q -- "--min_hosts" "$dir/help.txt" \
  && ! grep -q "No flags matched" "$dir/help.txt" || fail "--help: $(tail -5 "$dir/help.txt")"

# fio's client/server JSON: every host's job with its hostname and port,
# then "All clients" from the exact merge: counts and clat bins the sums of
# the hosts', its percentiles fio's rank over the merged bins, its rates
# over the overlap window and saying so.
start_fake
"$blkperf" fleet run --hosts="@$dir/hosts.txt" --runtime=1s --interval=300ms \
  --start_margin=200ms --run_id=fio --output_format=fio-json+ \
  --percentile_list=25:50:75:99 > "$dir/fio.json" 2> "$dir/fio.err" \
  || fail "fio-json+ run exited $?: $(cat "$dir/fio.err")"
python3 - "$dir/fio.json" "$dir/hosts.txt" <<'PY' || fail "fio client_stats: $(head -c 3000 "$dir/fio.json")"
import collections, json, sys
r = json.load(open(sys.argv[1]))
hosts = open(sys.argv[2]).read().split()
assert "jobs" not in r and r["disk_util"] == [], list(r)
stats = r["client_stats"]
assert len(stats) == len(hosts) + 1, len(stats)
per_host, merged = stats[:-1], stats[-1]
assert sorted(f"{j['hostname']}:{j['port']}" for j in per_host) == sorted(hosts)
assert merged["jobname"] == "All clients", merged["jobname"]
for key in ("total_ios", "io_bytes"):
    assert merged["read"][key] == sum(j["read"][key] for j in per_host), key
clat = [j["read"]["clat_ns"] for j in per_host]
assert merged["read"]["clat_ns"]["N"] == sum(c["N"] for c in clat) > 0
assert merged["read"]["clat_ns"]["min"] == min(c["min"] for c in clat)
assert merged["read"]["clat_ns"]["max"] == max(c["max"] for c in clat)
want = collections.Counter()
for c in clat:
    want.update({int(k): v for k, v in c["bins"].items()})
bins = {int(k): v for k, v in merged["read"]["clat_ns"]["bins"].items()}
assert bins == dict(want), (bins, dict(want))
total, running, ordered = sum(bins.values()), 0, sorted(bins.items())
pct = merged["read"]["clat_ns"]["percentile"]
assert sorted(pct) == ["25.000000", "50.000000", "75.000000", "99.000000"], pct
for key, value in pct.items():
    i, running = 0, ordered[0][1]
    while running < float(key) / 100 * total:
        i += 1
        running += ordered[i][1]
    assert value == ordered[i][0], (key, value, ordered[i][0])
assert merged["read"]["iops"] > 0 and "overlap window" in merged["blkperf"]["rates"]
assert all("rates" not in j["blkperf"] for j in per_host)
assert all(j["blkperf"]["latency_mode"] == "per_io" for j in stats)
PY

# --fio_job: the client reads the job file and every host runs its spec
# (block size, depth, runtime from the file; a flag overrides the file);
# an option blkperf cannot honour is a usage error naming file and line.
printf '[global]\nioengine=io_uring\ntime_based=1\nruntime=1\n[w]\nrw=randread\nbs=8k\niodepth=7\n' \
  > "$dir/job.fio"
start_fake
"$blkperf" fleet run --hosts="@$dir/hosts.txt" --fio_job="$dir/job.fio" --qd=5 \
  --interval=300ms --start_margin=200ms --run_id=fio-job --output_format=fio-json \
  > "$dir/fio_job.json" 2> "$dir/fio_job.err" \
  || fail "--fio_job run exited $?: $(cat "$dir/fio_job.err")"
python3 - "$dir/fio_job.json" <<'PY' || fail "--fio_job spec: $(head -c 3000 "$dir/fio_job.json")"
import json, sys
stats = json.load(open(sys.argv[1]))["client_stats"]
hosts = [j for j in stats if j["jobname"] != "All clients"]
assert len(hosts) == 8, len(hosts)
for j in hosts:
    o = j["job options"]
    assert (o["rw"], o["bs"], o["iodepth"], o["runtime"]) == ("randread", "8192", "5", "1"), o
    assert j["blkperf"]["latency_mode"] == "per_io"
PY
printf '[job]\nrw=read\nzonemode=zbd\n' > "$dir/zoned.fio"
rc=0
"$blkperf" fleet run --hosts=a:1 --fio_job="$dir/zoned.fio" > /dev/null 2> "$dir/err.txt" || rc=$?
[[ $rc == 2 ]] || fail "--fio_job with zonemode exited $rc, not 2"
grep -q "zoned.fio:3: option 'zonemode'" "$dir/err.txt" || fail "zonemode refusal: $(cat "$dir/err.txt")"

# Flag errors name the flag and exit 2 (usage) before any call.
expect_error() {  # [RC=n] expect_error WORDS ARGS...
  local words=$1; shift
  local rc=0
  "$blkperf" fleet "$@" > /dev/null 2> "$dir/err.txt" || rc=$?
  [[ $rc == "${RC:-2}" ]] || fail "$* exited $rc, not ${RC:-2}"
  grep -q -- "$words" "$dir/err.txt" || fail "error for $* lacks '$words': $(cat "$dir/err.txt")"
}
expect_error "--json conflicts with --output_format" run --hosts=a:1 --json --output_format=fio-json
expect_error "--api_json conflicts with --output_format" run --hosts=a:1 --api_json --output_format=fio-json+
expect_error "percentile_list" run --hosts=a:1 --output_format=fio-json --percentile_list=0:50
expect_error "min_hosts" run --hosts=a:1 --min_hosts=0
expect_error "on_host_loss" run --hosts=a:1 --on_host_loss=maybe
expect_error "run_id" run --hosts=a:1 --run_id='bad id'
expect_error "hosts entry 2" run --hosts=a:1,b
expect_error "duplicate host" inventory --hosts=a:1,a:1
expect_error "hosts is empty" run
expect_error "unknown fleet command" launch --hosts=a:1
# A bad shape flag names the flag, before any call too.
expect_error "bssplit" run --hosts=a:1 --bssplit=4k/70:64k/20
expect_error "arrivals" run --hosts=a:1 --arrivals=bursty
expect_error "groups" run --hosts=a:1 --groups="hot op=randread"
# Unreadable TLS files: once, before any host is called (not a usage error).
RC=1 expect_error "--tls_ca" run --hosts=a:1 --tls_ca="$dir/no-such-ca.pem"
# Abseil's own flag errors are usage errors too.
expect_error "unknown flag --runtim (did you mean --runtime?)" run --hosts=127.0.0.1:1 --runtim=2s
expect_error "flag --qd" run --hosts=127.0.0.1:1 --qd=four
expect_error "run_id" abort 'bad id' --hosts=a:1
expect_error "cohort_by \"rack\" is not kernel_release, device_model or label:NAME" run --hosts=a:1 --cohort_by=rack
echo PASS
