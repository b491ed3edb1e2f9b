#!/usr/bin/env python3
"""Structural test of the Grafana dashboard and provisioning files.

Checks that blkperf.json is a well-formed current-schema dashboard (unique
panel ids, grid positions inside the 24-column grid and not overlapping,
known panel types, the datasource taken from the `datasource` variable,
`instance`, `run` and `workload` variables), that every panel, annotation and
variable query is one of the expressions in queries.txt (which the
end-to-end test evaluates against a real Prometheus), that queries.txt lists
exactly the dashboard's and the rules' expressions, that every workload
series is filtered by the variables, that the panels the dashboard promises
exist (the fleet row's and the job groups' included), that tables sort by a
column they show, as a number, that rate panels have per-second units, that a
workload state never reads "in force", that the Data source variable defaults to the
provisioned datasource, and that the provisioning files are usable.

  python3 dashboards/check_dashboard.py   # exit 0 when all checks pass
"""
import json
import os
import re
import sys

import yaml

import make_dashboard
import queries

HERE = os.path.dirname(os.path.abspath(__file__))
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
PANEL_TYPES = {"row", "timeseries", "heatmap", "state-timeline", "stat",
               "table", "bargauge", "gauge"}
GRID_WIDTH = 24
MIN_SCHEMA_VERSION = 36  # Grafana 9; blkperf.json targets 10.x/11.x (39)

# What the dashboard promises (issue 5): a description, and a predicate
# over (panel type, [expressions]) that some panel must satisfy.
REQUIRED_PANELS = [
    ("IOPS", lambda t, e: any("rate(blkperf_ios_total" in x and
                              "by (instance, workload, op)" in x for x in e)),
    ("bandwidth", lambda t, e: any("rate(blkperf_bytes_total" in x for x in e)),
    ("latency percentiles", lambda t, e: any(
        "histogram_quantile(" in x and "blkperf_io_latency_seconds_bucket" in x
        for x in e)),
    ("latency heatmap", lambda t, e: t == "heatmap" and any(
        "blkperf_io_latency_seconds_bucket" in x for x in e)),
    ("per-CPU IOPS", lambda t, e: any("rate(blkperf_ios_total" in x and
                                      "cpu)" in x for x in e)),
    ("I/Os per syscall", lambda t, e: any(
        "blkperf_io_uring_enter_calls_total" in x for x in e)),
    ("split pieces per I/O", lambda t, e: any(
        "blkperf_split_pieces_total" in x and "blkperf_split_ios_total" in x
        for x in e)),
    ("device requests per SQE", lambda t, e: any(
        "blkperf_device_requests_total" in x for x in e)),
    ("request cache hit rate", lambda t, e: any(
        "blkperf_request_cache_hits_total" in x and
        "blkperf_request_cache_misses_total" in x for x in e)),
    ("errors", lambda t, e: any("blkperf_io_errors_total" in x for x in e)),
    # Submitted and not yet completed, averaged (issue 45), not the
    # post-reap residual blkperf_ios_in_flight.
    ("in-flight I/Os", lambda t, e: any("blkperf_inflight_ios_mean" in x
                                        for x in e)),
    ("split strategy in force", lambda t, e: any(
        "blkperf_workload_info" in x and "split_strategy" in x for x in e)),
    # Per strategy, a workload of one strategy too: it exports no
    # blkperf_split_io_latency_seconds (it would repeat its own histogram).
    ("latency by split strategy", lambda t, e: any(
        "rate(blkperf_split_io_latency_seconds_bucket" in x and
        " or histogram_quantile(" in x and
        "group_left (strategy)" in x for x in e)),
    # Per job group (issue 45): IOPS and latency of each group.
    ("per-group IOPS", lambda t, e: any(
        "rate(blkperf_group_ios_total" in x and
        "by (instance, workload, group)" in x for x in e)),
    ("per-group latency percentiles", lambda t, e: any(
        x.startswith("histogram_quantile(") and
        "rate(blkperf_group_io_latency_seconds_bucket" in x and
        "by (instance, workload, group, le)" in x for x in e)),
    # The fleet row (issue 8).
    ("fleet IOPS", lambda t, e: any(
        re.match(r"sum(?: by \(op\))? \(\(rate\(blkperf_ios_total\{", x)
        for x in e)),
    ("fleet latency percentiles (merged histogram)", lambda t, e: any(
        x.startswith("histogram_quantile(") and
        "sum by (le) ((rate(blkperf_io_latency_seconds_bucket{" in x
        for x in e)),
    ("top-k slowest hosts", lambda t, e: any(
        x.startswith("topk(") and "histogram_quantile(" in x and
        "by (instance, le)" in x for x in e)),
    ("hosts up", lambda t, e: any(x.startswith('sum(up{job="blkperf"')
                                  for x in e)),
    ("intended-time latency percentiles", lambda t, e: any(
        "histogram_quantile(" in x and
        "blkperf_io_intended_latency_seconds_bucket" in x for x in e)),
    ("late I/Os", lambda t, e: any("rate(blkperf_late_ios_total" in x
                                   for x in e)),
    ("SLO search curve (rate -> p50, p99, p99.9)", lambda t, e: t == "table"
     and any("blkperf_slo_step_asked_iops" in x for x in e) and
     all(any(f'percentile="{q}"' in x for x in e)
         for q in ("50", "99", "99.9"))),
    ("SLO search answer and knee", lambda t, e: any(
        "blkperf_slo_best_iops" in x for x in e) and any(
        "blkperf_slo_knee_iops" in x for x in e)),
]

# Series that are per daemon, not per workload.
DAEMON_METRICS = {"up", "blkperf_build_info"}
SELECTOR = re.compile(r"\b((?:blkperf_[a-z_]+)|up)\b(\{[^}]*\})?(?!\s*\()")


class Checker:
    def __init__(self):
        self.errors = []

    def check(self, ok, message):
        if not ok:
            self.errors.append(message)
        return ok


def check_selectors(c, where, expr):
    """Every series selector filters by instance; workload series by run
    too, and by the Workload variable's (instance, workload) keys: each is
    `and on (instance, workload)` the PICKED filter, whose own
    blkperf_workload_info selector is the only one without it. A bare
    `workload=~"$workload"` would sum the same id of different hosts."""
    unkeyed = expr.replace(make_dashboard.PICKED, "PICKED")
    c.check(make_dashboard.WORKLOAD_KEY not in unkeyed,
            f"{where}: the workload key outside the PICKED filter")
    workload_series = False
    for m in SELECTOR.finditer(unkeyed):
        name, matchers = m.group(1), m.group(2) or ""
        if name in ("by", "on"):
            continue
        c.check('instance=~"$instance"' in matchers,
                f"{where}: {name} is not filtered by $instance")
        per_daemon = name in DAEMON_METRICS or name.startswith(
            "blkperf_process_")
        if per_daemon:
            continue
        workload_series = True
        c.check('run_id=~"$run"' in matchers,
                f"{where}: {name} is not filtered by $run")
        c.check("$workload" not in matchers,
                f"{where}: {name} matches a bare workload id")
        rest = unkeyed[m.end():]
        keyed = re.match(r"(?:\[[^\]]*\]\))?(?: offset \$__interval)? and on "
                         r"\(instance, workload\) PICKED\)", rest)
        c.check(keyed is not None,
                f"{where}: {name} is not keyed by (instance, workload)")
    if workload_series:
        c.check("$workload" in expr, f"{where}: not filtered by $workload")


def check_dashboard(c, d, listed):
    for key in ("title", "uid", "panels", "templating", "annotations", "time",
                "schemaVersion", "refresh"):
        c.check(key in d, f"dashboard has no {key}")
    c.check(isinstance(d.get("schemaVersion"), int) and
            d["schemaVersion"] >= MIN_SCHEMA_VERSION,
            f"schemaVersion {d.get('schemaVersion')} < {MIN_SCHEMA_VERSION}")
    c.check("id" not in d or d["id"] is None,
            "a shared dashboard has no fixed database id")

    variables = {v["name"]: v for v in d["templating"]["list"]}
    ds = variables.get("datasource")
    if c.check(ds is not None, "no datasource variable"):
        c.check(ds["type"] == "datasource" and ds["query"] == "prometheus",
                "datasource variable is not a Prometheus datasource picker")
    for name in ("instance", "run", "workload"):
        v = variables.get(name)
        if not c.check(v is not None, f"no {name} variable"):
            continue
        c.check(v["type"] == "query" and v["datasource"] == DATASOURCE,
                f"variable {name}: not a query on ${{datasource}}")
        c.check(v.get("includeAll") and v.get("multi") and
                v.get("allValue") == ".*",
                f"variable {name}: want multi-value with All = .*")
    # The Workload variable lists "INSTANCE/WORKLOAD" keys, never bare ids.
    workload = variables.get("workload", {})
    c.check(workload.get("definition") ==
            f"query_result({make_dashboard.WORKLOAD_KEY})" and
            workload.get("regex") == '/key="([^"]+)"/',
            "variable workload: want the (instance, workload) keys")

    ids = set()
    rects = []
    panel_exprs = []
    for p in d["panels"]:
        title = p.get("title", "")
        where = f"panel {p.get('id')} {title!r}"
        c.check(title, f"{where}: no title")
        c.check(p.get("type") in PANEL_TYPES, f"{where}: type {p.get('type')}")
        c.check(isinstance(p.get("id"), int) and p["id"] not in ids,
                f"{where}: id missing or repeated")
        ids.add(p.get("id"))
        g = p.get("gridPos", {})
        if c.check(all(isinstance(g.get(k), int) for k in "hwxy"),
                   f"{where}: gridPos needs integer h, w, x, y"):
            c.check(g["x"] >= 0 and g["y"] >= 0 and g["w"] > 0 and
                    g["h"] > 0 and g["x"] + g["w"] <= GRID_WIDTH,
                    f"{where}: gridPos {g} outside the grid")
            for other_where, o in rects:
                overlap = (g["x"] < o["x"] + o["w"] and o["x"] < g["x"] + g["w"]
                           and g["y"] < o["y"] + o["h"] and
                           o["y"] < g["y"] + g["h"])
                c.check(not overlap, f"{where} overlaps {other_where}")
            rects.append((where, g))
        if p.get("type") == "row":
            c.check(not p.get("targets"), f"{where}: a row has no queries")
            continue
        c.check(p.get("datasource") == DATASOURCE,
                f"{where}: datasource is not ${{datasource}}")
        targets = p.get("targets", [])
        c.check(targets, f"{where}: no queries")
        refs = [t.get("refId") for t in targets]
        c.check(len(set(refs)) == len(refs) and all(refs),
                f"{where}: refIds missing or repeated: {refs}")
        exprs = []
        for t in targets:
            expr = t.get("expr", "")
            exprs.append(expr)
            twhere = f"{where} target {t.get('refId')}"
            c.check(t.get("datasource") == DATASOURCE,
                    f"{twhere}: datasource is not ${{datasource}}")
            c.check(expr in listed,
                    f"{twhere}: expression is not in queries.txt: {expr}")
            check_selectors(c, twhere, expr)
            if p["type"] == "heatmap":
                c.check(t.get("format") == "heatmap",
                        f"{twhere}: heatmap target needs format heatmap")
        panel_exprs.append((p["type"], exprs))

    for name, predicate in REQUIRED_PANELS:
        c.check(any(predicate(t, e) for t, e in panel_exprs),
                f"no panel shows {name}")

    switch = [a for a in d["annotations"]["list"] if "expr" in a]
    c.check(any("blkperf_split_strategy_switches_total" in a["expr"]
                for a in switch), "no annotation marks strategy switches")
    for a in switch:
        c.check(a.get("datasource") == DATASOURCE,
                f"annotation {a.get('name')}: datasource is not ${{datasource}}")
        c.check(a["expr"] in listed,
                f"annotation {a.get('name')}: not in queries.txt")
        check_selectors(c, f"annotation {a.get('name')}", a["expr"])


def check_provisioning(c):
    with open(os.path.join(HERE, "provisioning/datasources/blkperf.yml")) as f:
        ds = yaml.safe_load(f)
    c.check(ds.get("apiVersion") == 1, "datasource provisioning: apiVersion")
    sources = ds.get("datasources", [])
    c.check(len(sources) == 1 and sources[0].get("type") == "prometheus" and
            sources[0].get("url", "").startswith("http"),
            "datasource provisioning: want one prometheus datasource with url")
    with open(os.path.join(HERE, "provisioning/dashboards/blkperf.yml")) as f:
        dp = yaml.safe_load(f)
    c.check(dp.get("apiVersion") == 1, "dashboard provisioning: apiVersion")
    providers = dp.get("providers", [])
    c.check(len(providers) == 1 and providers[0].get("type") == "file" and
            providers[0].get("options", {}).get("path"),
            "dashboard provisioning: want one file provider with a path")


def check_tables(c, d):
    """A table's default sort column is one it shows: not a query's
    "Value #X" that its organize step renames away, and a label column
    (a string) only if a transformation makes it a number."""
    for p in d["panels"]:
        if p.get("type") != "table":
            continue
        steps = p.get("transformations", [])
        renamed = {}
        numbers = set()
        for t in steps:
            if t["id"] == "organize":
                renamed.update(t["options"].get("renameByName", {}))
            if t["id"] == "convertFieldType":
                numbers |= {conv["targetField"]
                            for conv in t["options"].get("conversions", [])
                            if conv.get("destinationType") == "number"}
        for sort in p.get("options", {}).get("sortBy", []):
            name = sort.get("displayName")
            where = f"table {p.get('title')!r}: sortBy {name!r}"
            if c.check(name not in renamed, f"{where} is renamed to "
                       f"{renamed.get(name)!r} before the table sorts"):
                c.check(name in renamed.values() or name in numbers,
                        f"{where} is a label column sorted as a string")


# Units of a per-second rate (Grafana's unit ids).
PER_SECOND_UNITS = {"iops", "cps", "ops", "Bps", "percentunit"}


def check_units(c, d):
    """A panel drawing rates of counters (no ratio, no percentile) has a
    per-second unit: errors or late I/Os per second are not `short`."""
    for p in d["panels"]:
        if p.get("type") in ("row", "heatmap"):
            continue
        exprs = [t.get("expr", "") for t in p.get("targets", [])]
        rates = exprs and all("rate(" in x and " / " not in x and
                              "histogram_quantile(" not in x for x in exprs)
        unit = p.get("fieldConfig", {}).get("defaults", {}).get("unit")
        if rates:
            c.check(unit in PER_SECOND_UNITS,
                    f"panel {p.get('title')!r}: rates in unit {unit!r}")


def check_state_texts(c, d):
    """A state timeline's value text says what its series is: "in force"
    is the split strategy's, a workload's state is "current"."""
    for p in d["panels"]:
        if p.get("type") != "state-timeline":
            continue
        texts = {o["text"] for m in p["fieldConfig"]["defaults"]["mappings"]
                 for o in m.get("options", {}).values()}
        exprs = " ".join(t.get("expr", "") for t in p.get("targets", []))
        if "blkperf_workload_state" in exprs and "split_strategy" not in exprs:
            c.check("in force" not in texts,
                    f"panel {p.get('title')!r}: a state shown as 'in force'")


def check_default_datasource(c, d):
    """The Data source variable opens on the provisioned datasource."""
    with open(os.path.join(HERE, "provisioning/datasources/blkperf.yml")) as f:
        uids = [s.get("uid") for s in yaml.safe_load(f)["datasources"]]
    ds = next((v for v in d["templating"]["list"]
               if v["name"] == "datasource"), {})
    c.check(ds.get("current", {}).get("value") in uids,
            f"datasource variable: default {ds.get('current')} is not the "
            f"provisioned datasource {uids}")


def check_min_step(c, d):
    """Every query using $__rate_interval has prometheus.yml's scrape
    interval as its Min step, so its window does not depend on the
    datasource's Scrape interval setting."""
    with open(os.path.join(HERE, "prometheus.yml")) as f:
        scrape = yaml.safe_load(f)["global"]["scrape_interval"]
    for p in d["panels"]:
        for t in p.get("targets", []):
            if "$__rate_interval" in t.get("expr", ""):
                c.check(t.get("interval") == scrape,
                        f"panel {p.get('title')}/{t.get('refId')}: Min step "
                        f"{t.get('interval')!r}, not the scrape interval "
                        f"{scrape!r}")


def main():
    c = Checker()
    with open(os.path.join(HERE, "blkperf.json")) as f:
        dashboard = json.load(f)
    entries = queries.load()
    listed = {expr for _, expr in entries}
    check_dashboard(c, dashboard, listed)
    check_min_step(c, dashboard)
    check_tables(c, dashboard)
    check_units(c, dashboard)
    check_state_texts(c, dashboard)
    check_default_datasource(c, dashboard)
    # queries.txt lists exactly what the dashboard and the rules use.
    c.check(entries == queries.collect(),
            "queries.txt is stale: run python3 dashboards/queries.py")
    check_provisioning(c)
    for e in c.errors:
        print("FAIL:", e, file=sys.stderr)
    if c.errors:
        return 1
    panels = sum(1 for p in dashboard["panels"] if p["type"] != "row")
    print(f"OK: {panels} panels, {len(entries)} listed expressions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
