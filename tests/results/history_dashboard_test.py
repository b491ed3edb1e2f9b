#!/usr/bin/env python3
"""The PostgreSQL results store end to end, and the history dashboard's SQL
against it (run by history_dashboard_test.sh under
store/testing/with_postgres.sh, which starts the server):

- `blkperfd run` saves two runs and an experiment to
  --results_db=postgresql://... (credentials from the pgpass file only);
- `blkperf results list --json` on the same URI lists them;
- a URI with a password is refused (exit 2) and the password is never
  echoed; a server that is down spools the result, the next run writes it;
- every query of dashboards/blkperf_history.json (variables' and panels')
  runs as Grafana sends it and returns the stored runs: the IOPS panel's
  values are the listed runs' IOPS, the verdicts panel has the experiment's
  arm.

  history_dashboard_test.py BLKPERFD BLKPERF DASHBOARDS_DIR
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

blkperfd, blkperf, dashboards = sys.argv[1:4]
sys.path.insert(0, dashboards)
import check_history_dashboard  # noqa: E402

SERVER = os.environ["BLKPERF_TEST_POSTGRES"]
PSQL = os.environ["BLKPERF_TEST_POSTGRES_PSQL"]
DB = SERVER + "/history"
TMP = os.environ.get("TEST_TMPDIR") or tempfile.mkdtemp()


def fail(message):
    print("FAIL:", message, file=sys.stderr)
    sys.exit(1)


# Nothing of this test reaches the user's spool.
os.environ["BLKPERF_SPOOL_DIR"] = os.path.join(TMP, "spool0")


def run(args, expect=0, **kw):
    p = subprocess.run(args, capture_output=True, text=True, **kw)
    if p.returncode != expect:
        fail(f"{args[:3]} exited {p.returncode}, want {expect}:\n{p.stderr}")
    return p


def psql(uri, sql):
    """Rows of `sql` as dicts (header from the result)."""
    p = run([PSQL, uri, "--no-psqlrc", "-v", "ON_ERROR_STOP=1", "--csv",
             "-c", sql])
    return list(csv.DictReader(io.StringIO(p.stdout)))


psql(SERVER + "/postgres", "CREATE DATABASE history")
target = os.path.join(TMP, "target.dat")
with open(target, "wb") as f:
    f.write(os.urandom(16 << 20))
common = ["--target=" + target, "--nodirect", "--status_interval=0",
          "--data_dir=" + os.path.join(TMP, "data")]

# Two runs and an experiment, into PostgreSQL.
for case, rate in (("a", "3000"), ("b", "6000")):
    p = run([blkperfd, "run", *common, "--runtime=2s", "--rate_iops=" + rate,
             "--results_db=" + DB, "--tag=case=" + case])
    if "saved as" not in p.stderr:
        fail(f"run {case} not saved: {p.stderr}")
run([blkperfd, "run", *common, "--vary=rate_iops=2000,4000", "--rounds=3",
     "--round=200ms", "--results_db=" + DB, "--tag=case=experiment"])

listed = json.loads(run([blkperf, "results", "list", "--results_db=" + DB,
                         "--json"]).stdout)["results"]
if len(listed) != 3:
    fail(f"results list on PostgreSQL: {len(listed)} results, want 3")
runs = {r["tags"].get("case"): r for r in listed}
if set(runs) != {"a", "b", "experiment"}:
    fail(f"listed tags {sorted(runs)}")
if runs["experiment"]["source"] != "blkperfd run --vary":
    fail(f"experiment source {runs['experiment']['source']}")
shown = json.loads(run([blkperf, "results", "show", runs["a"]["id"],
                        "--results_db=" + DB, "--json"]).stdout)
if len(shown["report"]["series"]) < 2:
    fail("the stored run's series did not come back")

# A password in the URI: refused before anything runs, never echoed.
host_port = SERVER.split("@", 1)[1]
p = run([blkperfd, "run", *common, "--runtime=100ms",
         "--results_db=postgresql://blkperf:Sekr1t@" + host_port + "/history"],
        expect=2)
if "Sekr1t" in p.stderr + p.stdout or ".pgpass" not in p.stderr:
    fail(f"password URI: {p.stderr}")
if os.listdir(os.environ["BLKPERF_SPOOL_DIR"]) if os.path.isdir(
        os.environ["BLKPERF_SPOOL_DIR"]) else []:
    fail("a refused URI's result was spooled")

# The store down: the result is spooled, the next run writes it.
spool = os.path.join(TMP, "spool")
env = dict(os.environ, BLKPERF_SPOOL_DIR=spool)
p = run([blkperfd, "run", *common, "--runtime=200ms", "--tag=case=down",
         "--results_db=postgresql://blkperf@127.0.0.1:1/history"], env=env)
if "written when the store takes results again" not in p.stderr:
    fail(f"down store: {p.stderr}")
p = run([blkperfd, "run", *common, "--runtime=200ms", "--tag=case=up",
         "--results_db=" + DB], env=env)
if "wrote 1 spooled" not in p.stderr:
    fail(f"spooled result not written: {p.stderr}")
for case in ("down", "up"):
    got = json.loads(run([blkperf, "results", "list", "--results_db=" + DB,
                          "--tag=case=" + case, "--json"]).stdout)["results"]
    if len(got) != 1:
        fail(f"case={case}: {len(got)} results")

# The dashboard's queries as Grafana sends them.
listed = json.loads(run([blkperf, "results", "list", "--results_db=" + DB,
                         "--json"]).stdout)["results"]
dashboard = check_history_dashboard.load()
values = {}
for v in dashboard["templating"]["list"]:
    if v.get("type") == "query":
        rows = psql(DB, v["query"])
        values[v["name"]] = [list(r.values())[0] for r in rows]
        if not values[v["name"]]:
            fail(f"variable {v['name']}: no values")
uname = os.uname().release
if uname not in values["kernel"]:
    fail(f"kernel variable {values['kernel']} lacks {uname}")
for where, sql, fmt in check_history_dashboard.queries(dashboard):
    if where.startswith("variable"):
        continue
    rows = psql(DB, check_history_dashboard.expand(sql, values))
    print(f"{where}: {len(rows)} rows")
    if not rows:
        fail(f"{where}: no rows")
    if fmt == "time_series" and set(rows[0]) != {"time", "metric", "value"}:
        fail(f"{where}: columns {list(rows[0])}")
    if "IOPS by kernel" in where:
        # The list prints 6 significant digits.
        want = sorted(r["iops"] for r in listed
                      if r["source"] == "blkperfd run")
        got = sorted(float(r["value"]) for r in rows)
        if len(got) != len(want) or len(want) != 4 or any(
                abs(g - w) > 1e-5 * w for g, w in zip(got, want)):
            fail(f"{where}: values {got}, the runs' IOPS {want}")
        if rows[0]["metric"] != f"{uname} / {runs['a']['target_model']}":
            fail(f"{where}: metric {rows[0]['metric']}")
    if "verdicts" in where:
        if len(rows) != 1 or rows[0]["arm"] != "4000" or not rows[0]["verdict"]:
            fail(f"{where}: {rows}")
print("PASS")
