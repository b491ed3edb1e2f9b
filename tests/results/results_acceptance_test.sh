#!/usr/bin/env bash
# Issue 38's acceptance interface, as its script runs it: a 3 s
# `blkperfd run --json` carries environment.kernel_release == uname -r, a
# stamped environment.blkperf_version, environment.targets[0].scheduler and
# series[] with at least 3 entries; after a run with
# --results_db=DB.sqlite --tag=case=x, `blkperf results list
# --results_db=DB.sqlite --tag=case=x --json` lists it. Then show, export,
# delete, the default store's path and the refusal of a bad --tag.
set -euo pipefail
blkperfd=$1
blkperf=$2
dir=${TEST_TMPDIR:-$(mktemp -d)}
F=$dir/target.dat
DB=$dir/DB.sqlite
fail() { echo "FAIL: $*" >&2; exit 1; }
json() {  # json FILE EXPR: evaluates EXPR with r = the parsed JSON
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
dd if=/dev/urandom of="$F" bs=1M count=32 status=none

"$blkperfd" run --target="$F" --nodirect --runtime=3s --json --data_dir="$dir/data" \
  --results_db="$DB" --tag=case=x > "$dir/run.json" 2> "$dir/run.err"
[[ $(json "$dir/run.json" 'r["environment"]["kernel_release"]') == "$(uname -r)" ]] ||
  fail "environment.kernel_release is not uname -r"
version=$(json "$dir/run.json" 'r["environment"]["blkperf_version"]')
[[ -n $version && $version != unknown ]] || fail "blkperf_version '$version'"
commit=$(json "$dir/run.json" 'r["environment"]["blkperf_commit"]')
[[ -n $commit && $commit != unknown ]] || fail "blkperf_commit '$commit'"
scheduler=$(json "$dir/run.json" 'r["environment"]["targets"][0]["scheduler"]')
[[ -n $scheduler ]] || fail "no environment.targets[0].scheduler"
[[ $(json "$dir/run.json" 'len(r["series"]) >= 3') == True ]] || fail "series has fewer than 3 entries"
# The points are the run, cut by interval: their I/Os add up to the total.
[[ $(json "$dir/run.json" 'sum(p["read_ios"] for p in r["series"]) == r["total"]["read_ios"]') == True ]] ||
  fail "series read_ios do not add up to total.read_ios"
[[ $(json "$dir/run.json" 'all(p["p99_ns"] > 0 for p in r["series"][:3])') == True ]] ||
  fail "an interval without its own p99"
echo "environment: kernel $(uname -r), blkperf $version ($commit), scheduler $scheduler;" \
  "series: $(json "$dir/run.json" 'len(r["series"])') points"
grep -q "saved as" "$dir/run.err" || fail "no 'saved as' message: $(cat "$dir/run.err")"

"$blkperf" results list --results_db="$DB" --tag=case=x --json > "$dir/list.json"
[[ $(json "$dir/list.json" 'len(r["results"])') == 1 ]] || fail "results list --tag=case=x: $(cat "$dir/list.json")"
[[ $(json "$dir/list.json" 'r["results"][0]["tags"]') == "{'case': 'x'}" ]] || fail "tags"
[[ $(json "$dir/list.json" 'r["results"][0]["kernel_release"]') == "$(uname -r)" ]] || fail "listed kernel"
id=$(json "$dir/list.json" 'r["results"][0]["id"]')
"$blkperf" results list --results_db="$DB" --tag=case=y --json > "$dir/none.json"
[[ $(json "$dir/none.json" 'len(r["results"])') == 0 ]] || fail "--tag=case=y listed a run"

"$blkperf" results show "$id" --results_db="$DB" --json > "$dir/show.json"
[[ $(json "$dir/show.json" 'r["report"]["series"] == json.load(open(sys.argv[1].replace("show","run")))["series"]') == True ]] ||
  fail "results show does not give back the run's series"
"$blkperf" results show "$id" --results_db="$DB" | grep -q "^state: finished" || fail "results show text"
# blkperf compare takes store ids as well as report files: the kept run
# against its own --json report is the same spec and environment.
"$blkperf" compare "$id" "$dir/run.json" --results_db="$DB" > "$dir/compare.txt" ||
  fail "compare $id run.json: $(cat "$dir/compare.txt")"
grep -q "spec differences: none" "$dir/compare.txt" || fail "compare by id: $(head -3 "$dir/compare.txt")"
rc=0; "$blkperf" compare r0123456789abcdef "$dir/run.json" --results_db="$DB" 2> "$dir/err" || rc=$?
(( rc == 2 )) && grep -q r0123456789abcdef "$dir/err" || fail "compare: an unknown id: rc $rc $(cat "$dir/err")"
# A kept result in fio's json+ (issue 40: the store's export in fio's
# format): the run's read I/Os, and bins that add up to them.
"$blkperf" results show "$id" --results_db="$DB" --output_format=fio-json+ \
  --percentile_list=25:50:75:99 > "$dir/show_fio.json" || fail "results show --output_format=fio-json+"
python3 - "$dir/show_fio.json" "$dir/run.json" <<'PY' || fail "results show fio-json+: $(head -c 400 "$dir/show_fio.json")"
import json, sys
fio = json.load(open(sys.argv[1]))
run = json.load(open(sys.argv[2]))
read = fio["jobs"][0]["read"]
assert read["total_ios"] == run["total"]["read_ios"], (read["total_ios"], run["total"]["read_ios"])
assert read["iops"] > 0, read["iops"]
bins = read["clat_ns"]["bins"]
assert sum(bins.values()) == read["clat_ns"]["N"], (sum(bins.values()), read["clat_ns"]["N"])
assert sorted(read["clat_ns"]["percentile"]) == ["25.000000", "50.000000", "75.000000", "99.000000"], read["clat_ns"]["percentile"].keys()
PY
"$blkperf" results show "$id" --results_db="$DB" --output_format=ndjson 2> "$dir/show_bad.err" &&
  fail "results show --output_format=ndjson accepted"
grep -q "output_format" "$dir/show_bad.err" || fail "refusal does not name --output_format: $(cat "$dir/show_bad.err")"
"$blkperf" results export --results_db="$DB" --output_format=ndjson > "$dir/export.ndjson"
[[ $(wc -l < "$dir/export.ndjson") == 2 ]] || fail "export: one record per direction expected"
python3 - "$dir/export.ndjson" "$dir/run.json" <<'PY' || fail "export records"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
run = json.load(open(sys.argv[2]))
read = [r for r in rows if r["direction"] == "read"][0]
assert read["ios"] == run["total"]["read_ios"], read
assert read["tags"] == "case=x" and read["group"] == "total", read
PY
"$blkperf" results export --results_db="$DB" --output_format=csv | head -1 | grep -q '^id,created,' || fail "csv header"
"$blkperf" results delete "$id" --results_db="$DB" > /dev/null
"$blkperf" results list --results_db="$DB" --json > "$dir/after.json"
[[ $(json "$dir/after.json" 'len(r["results"])') == 0 ]] || fail "delete left the run"

# Default store: the user's data directory, unless BLKPERF_RESULTS_DB says
# otherwise (the test environment says none, .bazelrc).
[[ ${BLKPERF_RESULTS_DB:-} == none ]] || fail "tests run without BLKPERF_RESULTS_DB=none"
env -u BLKPERF_RESULTS_DB -u XDG_DATA_HOME HOME="$dir/home" "$blkperfd" run --target="$F" \
  --nodirect --runtime=200ms --data_dir="$dir/data" > /dev/null 2>&1
[[ -s $dir/home/.local/share/blkperf/results.sqlite ]] || fail "no store in the user's data directory"
HOME="$dir/home2" "$blkperfd" run --target="$F" --nodirect --runtime=200ms \
  --data_dir="$dir/data" > /dev/null 2>&1
[[ ! -e $dir/home2/.local/share/blkperf ]] || fail "BLKPERF_RESULTS_DB=none still wrote a store"

# `blkperf run` saves what the daemon measured, environment and series
# included (they travel in Snapshot.environment and Snapshot.series).
"$blkperfd" serve --listen=127.0.0.1:0 --port_file="$dir/port" \
  --data_dir="$dir/serve_data" --allow_read_paths="$dir/" --metrics_listen= \
  > "$dir/serve.log" 2>&1 &
serve=$!
trap 'kill $serve 2>/dev/null || true' EXIT
for _ in $(seq 100); do [[ -s $dir/port ]] && break; sleep 0.1; done
[[ -s $dir/port ]] || fail "blkperfd serve did not start: $(cat "$dir/serve.log")"
"$blkperf" run --server="127.0.0.1:$(cat "$dir/port")" --target="$F" --nodirect \
  --runtime=2s --quiet --results_db="$DB" --tag=case=remote > /dev/null 2> "$dir/remote.err" ||
  fail "blkperf run: $(cat "$dir/remote.err")"
"$blkperf" results list --results_db="$DB" --tag=case=remote --json > "$dir/remote.json"
[[ $(json "$dir/remote.json" 'len(r["results"])') == 1 ]] || fail "blkperf run not saved: $(cat "$dir/remote.err")"
[[ $(json "$dir/remote.json" 'r["results"][0]["source"]') == "blkperf run" ]] || fail "source"
rid=$(json "$dir/remote.json" 'r["results"][0]["id"]')
"$blkperf" results show "$rid" --results_db="$DB" --json > "$dir/remote_show.json"
[[ $(json "$dir/remote_show.json" 'r["report"]["environment"]["kernel_release"]') == "$(uname -r)" ]] ||
  fail "the remote result's environment"
[[ $(json "$dir/remote_show.json" 'len(r["report"]["series"]) >= 2') == True ]] || fail "the remote result's series"
# `blkperf status` of the finished workload saves it too, once: its record
# id is stable per workload of the daemon's boot, so it is the record
# `blkperf run` saved, and a second status adds nothing.
wid=$(sed -n 's/^blkperf: started workload \([^ ]*\) on .*/\1/p' "$dir/remote.err")
[[ -n $wid ]] || fail "no workload id in: $(cat "$dir/remote.err")"
for _ in 1 2; do
  "$blkperf" status "$wid" --server="127.0.0.1:$(cat "$dir/port")" \
    --results_db="$dir/status.sqlite" --tag=case=status > /dev/null 2> "$dir/status.err" ||
    fail "blkperf status: $(cat "$dir/status.err")"
done
"$blkperf" results list --results_db="$dir/status.sqlite" --json > "$dir/status.json"
[[ $(json "$dir/status.json" 'len(r["results"])') == 1 ]] || fail "status saved $(cat "$dir/status.json")"
[[ $(json "$dir/status.json" 'r["results"][0]["source"]') == "blkperf status" ]] || fail "status source"
[[ $(json "$dir/status.json" 'r["results"][0]["id"]') == "$rid" ]] || fail "status and run ids differ"
"$blkperf" status "$wid" --server="127.0.0.1:$(cat "$dir/port")" --results_db="$DB" \
  > /dev/null 2>&1 || fail "blkperf status into the run's store"
"$blkperf" results list --results_db="$DB" --json > "$dir/all.json"
[[ $(json "$dir/all.json" 'len(r["results"])') == 1 ]] || fail "status of a saved run added a record"

# A fleet run on two daemons: the merged result's series adds up both
# hosts' intervals exactly; the store gets the merged result and each host.
"$blkperfd" serve --listen=127.0.0.1:0 --port_file="$dir/port2" \
  --data_dir="$dir/serve_data2" --allow_read_paths="$dir/" --metrics_listen= \
  > "$dir/serve2.log" 2>&1 &
serve2=$!
trap 'kill $serve $serve2 2>/dev/null || true' EXIT
for _ in $(seq 100); do [[ -s $dir/port2 ]] && break; sleep 0.1; done
[[ -s $dir/port2 ]] || fail "second blkperfd serve did not start: $(cat "$dir/serve2.log")"
"$blkperf" fleet run --hosts="127.0.0.1:$(cat "$dir/port"),127.0.0.1:$(cat "$dir/port2")" \
  --target="$F" --nodirect --runtime=3s --run_id=acc-fleet --json \
  --results_db="$DB" --tag=case=fleet > "$dir/fleet.json" 2> "$dir/fleet.err" ||
  fail "fleet run: $(cat "$dir/fleet.err")"
python3 - "$dir/fleet.json" <<'PY' || fail "the fleet's merged series: $(cat "$dir/fleet.err")"
import json, sys
r = json.load(open(sys.argv[1]))
merged = r["merged"]
hosts = [{"points": h["report"]["series"]} for h in r["hosts"]]
assert len(hosts) == 2, len(hosts)
assert merged["series_hosts"] == 2, merged.get("series_hosts")
points = merged["series"]
assert len(points) >= 2, points
for k, p in enumerate(points):
    ios = sum(int(h["points"][k].get("read_ios", 0)) for h in hosts)
    assert int(p.get("read_ios", 0)) == ios, (k, p, ios)
    assert int(p.get("p99_ns", 0)) > 0, p
    # The merged p99 lies within the hosts' own (a merge, not a mean).
    host_p99 = [int(h["points"][k].get("p99_ns", 0)) for h in hosts]
    assert min(host_p99) <= int(p.get("p99_ns", 0)) <= max(host_p99), (p, host_p99)
    assert "histogram" not in p and all("histogram" not in h["points"][k] for h in hosts)
print("fleet series:", len(points), "points of", merged["series_hosts"], "hosts")
PY
"$blkperf" results list --results_db="$DB" --tag=case=fleet --json > "$dir/fleet_list.json"
[[ $(json "$dir/fleet_list.json" 'len(r["results"])') == 3 ]] || fail "fleet records: $(cat "$dir/fleet_list.json")"
[[ $(json "$dir/fleet_list.json" 'sorted(x["hostname"] for x in r["results"])[0]') == "fleet of 2 hosts" ]] ||
  fail "no merged fleet record"
kill $serve $serve2; wait $serve $serve2 2>/dev/null || true

set +e
"$blkperfd" run --target="$F" --nodirect --runtime=200ms --tag=novalue \
  --results_db="$DB" > /dev/null 2> "$dir/badtag.err"
rc=$?
set -e
[[ $rc == 2 ]] || fail "bad --tag exited $rc, not 2"
grep -q -- "--tag" "$dir/badtag.err" || fail "bad --tag error does not name the flag"
echo PASS
