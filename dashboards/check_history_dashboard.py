#!/usr/bin/env python3
"""Structural test of the results-history dashboard (blkperf_history.json)
and its PostgreSQL data source provisioning, as check_dashboard.py checks
the metrics dashboard: current schema, unique panel ids inside the grid and
not overlapping, known panel types, every query on the `datasource`
variable (a PostgreSQL data source), raw SQL over the results store's
tables only, bounded by the dashboard's time range and filtered by the
kernel, model and host variables, the promised panels present, and a
provisioning file without a password in it.

  python3 dashboards/check_history_dashboard.py       # exit 0 when all pass

expand(sql, values) gives a query as Grafana sends it (macros and
variables substituted): //tests/results:history_dashboard_test runs every
one against a real PostgreSQL store.
"""
import json
import os
import re
import sys

import yaml

from check_dashboard import (GRID_WIDTH, MIN_SCHEMA_VERSION, PANEL_TYPES,
                             Checker)

HERE = os.path.dirname(os.path.abspath(__file__))
PG_TYPE = "grafana-postgresql-datasource"
DATASOURCE = {"type": PG_TYPE, "uid": "${datasource}"}
VARIABLES = ("kernel", "model", "host")
TABLES = {"results", "tags"}
TIME_FILTER = re.compile(r"\$__unixEpochNanoFilter\(([a-z_.]+)\)")

# What the dashboard promises (issue 38): a predicate over (type, sql).
REQUIRED_PANELS = [
    ("IOPS over time by kernel release and device model", lambda t, s:
     t == "timeseries" and "iops AS value" in s and "kernel_release" in s and
     "target_model" in s),
    ("p99 over time by kernel release and device model", lambda t, s:
     t == "timeseries" and "p99_ns" in s and "kernel_release" in s and
     "target_model" in s),
    ("experiment verdicts", lambda t, s: "verdict" in s and
     "'% --vary'" in s),
]


def load():
    with open(os.path.join(HERE, "blkperf_history.json")) as f:
        return json.load(f)


def queries(d):
    """(where, sql, format) of every variable and panel query."""
    out = []
    for v in d["templating"]["list"]:
        if v.get("type") == "query":
            out.append((f"variable {v['name']}", v["query"], "table"))
    for p in d["panels"]:
        for t in p.get("targets", []):
            out.append((f"panel {p['title']!r}", t.get("rawSql", ""),
                        t.get("format")))
    return out


def expand(sql, values):
    """`sql` as Grafana sends it: the time filter over all time, each
    $variable a quoted list of `values[name]`."""
    sql = TIME_FILTER.sub(r"\1 BETWEEN 0 AND 9223372036854775807", sql)
    for name in VARIABLES:
        quoted = ",".join("'" + v.replace("'", "''") + "'"
                          for v in values.get(name, []))
        sql = sql.replace("$" + name, quoted or "NULL")
    return sql


def check_sql(c, where, sql, fmt, panel):
    c.check(sql.lstrip().upper().startswith("SELECT"),
            f"{where}: not a SELECT")
    c.check(";" not in sql, f"{where}: more than one statement")
    tables = set(re.findall(r"\b(?:FROM|JOIN)\s+([a-z_]+)", sql, re.I))
    tables.discard("jsonb_array_elements")
    c.check(tables and tables <= TABLES,
            f"{where}: reads {sorted(tables)}, not the store's tables")
    if not panel:
        return
    c.check(TIME_FILTER.search(sql),
            f"{where}: not bounded by the time range ($__unixEpochNanoFilter)")
    for name in ("kernel", "model"):
        c.check(f"IN (${name})" in sql, f"{where}: not filtered by ${name}")
    c.check(fmt in ("time_series", "table"), f"{where}: format {fmt}")
    if fmt == "time_series":
        for column in ('AS "time"', "AS metric", "AS value"):
            c.check(column in sql, f"{where}: time series without {column}")


def check_grid(c, panels):
    ids, rects = set(), []
    for p in panels:
        where = f"panel {p.get('id')} {p.get('title')!r}"
        c.check(p.get("title"), f"{where}: no title")
        c.check(p.get("type") in PANEL_TYPES, f"{where}: type {p.get('type')}")
        c.check(isinstance(p.get("id"), int) and p["id"] not in ids,
                f"{where}: id missing or repeated")
        ids.add(p.get("id"))
        g = p.get("gridPos", {})
        if not c.check(all(isinstance(g.get(k), int) for k in "hwxy"),
                       f"{where}: gridPos needs integer h, w, x, y"):
            continue
        c.check(g["x"] >= 0 and g["y"] >= 0 and g["w"] > 0 and g["h"] > 0 and
                g["x"] + g["w"] <= GRID_WIDTH, f"{where}: gridPos {g} outside")
        for other, o in rects:
            c.check(not (g["x"] < o["x"] + o["w"] and o["x"] < g["x"] + g["w"]
                         and g["y"] < o["y"] + o["h"] and
                         o["y"] < g["y"] + g["h"]), f"{where} overlaps {other}")
        rects.append((where, g))


def check_dashboard(c, d):
    for key in ("title", "uid", "panels", "templating", "time",
                "schemaVersion"):
        c.check(key in d, f"dashboard has no {key}")
    c.check(d.get("schemaVersion", 0) >= MIN_SCHEMA_VERSION, "old schemaVersion")
    c.check("id" not in d or d["id"] is None, "a fixed database id")
    variables = {v["name"]: v for v in d["templating"]["list"]}
    ds = variables.get("datasource", {})
    c.check(ds.get("type") == "datasource" and ds.get("query") == PG_TYPE,
            "no datasource variable picking a PostgreSQL data source")
    for name in VARIABLES:
        v = variables.get(name)
        if c.check(v is not None, f"no {name} variable"):
            c.check(v["type"] == "query" and v["datasource"] == DATASOURCE,
                    f"variable {name}: not a query on ${{datasource}}")
            c.check(v.get("multi") and v.get("includeAll"),
                    f"variable {name}: want multi-value with All")
            check_sql(c, f"variable {name}", v["query"], "table", panel=False)
    check_grid(c, d["panels"])
    found = []
    for p in d["panels"]:
        where = f"panel {p.get('title')!r}"
        c.check(p.get("datasource") == DATASOURCE,
                f"{where}: datasource is not ${{datasource}}")
        targets = p.get("targets", [])
        c.check(len(targets) >= 1, f"{where}: no queries")
        for t in targets:
            c.check(t.get("datasource") == DATASOURCE and t.get("rawQuery"),
                    f"{where}: not raw SQL on ${{datasource}}")
            check_sql(c, where, t.get("rawSql", ""), t.get("format"), True)
            found.append((p.get("type"), t.get("rawSql", "")))
    for name, predicate in REQUIRED_PANELS:
        c.check(any(predicate(t, s) for t, s in found), f"no panel shows {name}")


def check_provisioning(c):
    path = os.path.join(HERE, "provisioning/datasources/blkperf_history.yml")
    with open(path) as f:
        text = f.read()
    sources = yaml.safe_load(text).get("datasources", [])
    c.check(len(sources) == 1 and sources[0].get("type") == PG_TYPE,
            "history provisioning: want one PostgreSQL data source")
    if sources:
        secure = sources[0].get("secureJsonData", {})
        c.check(all(str(v).startswith("$") for v in secure.values()),
                "history provisioning: a password written in the file")
        c.check("password" not in json.dumps(sources[0].get("jsonData", {})),
                "history provisioning: a password in jsonData")


def main():
    c = Checker()
    d = load()
    check_dashboard(c, d)
    check_provisioning(c)
    for e in c.errors:
        print("FAIL:", e, file=sys.stderr)
    if c.errors:
        return 1
    print(f"OK: {len(d['panels'])} panels, {len(queries(d))} queries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
