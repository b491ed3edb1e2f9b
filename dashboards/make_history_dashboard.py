#!/usr/bin/env python3
"""Generates blkperf_history.json: the results store's history dashboard on
Grafana's PostgreSQL data source (docs/results.md). IOPS and p99 of every
stored run over time by kernel release and device model, the median per
(kernel, model), the latest results and the experiments' verdicts.

  python3 dashboards/make_history_dashboard.py          # writes the JSON
  python3 dashboards/make_history_dashboard.py --check  # exit 1 if stale

The panels' SQL is in PANELS below; history_dashboard_test.sh runs every
query (and every variable's) against a real PostgreSQL store.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "blkperf_history.json")
DATASOURCE = {"type": "grafana-postgresql-datasource", "uid": "${datasource}"}

# Runs measured on one host (an experiment's record is one round of its
# baseline; a fleet's merged record adds hosts up), in the time range and
# the variables' kernels, models and hosts.
RUNS = ("source NOT LIKE '% --vary' AND hostname NOT LIKE 'fleet of %'"
        " AND $__unixEpochNanoFilter(created_unix_ns)"
        " AND kernel_release IN ($kernel) AND target_model IN ($model)"
        " AND hostname IN ($host)")
TIME = "to_timestamp(created_unix_ns / 1e9) AS \"time\""
KEY = "kernel_release || ' / ' || target_model AS metric"

VARIABLES = [
    ("kernel", "Kernel",
     "SELECT DISTINCT kernel_release FROM results ORDER BY 1"),
    ("model", "Device model",
     "SELECT DISTINCT target_model FROM results ORDER BY 1"),
    ("host", "Host",
     "SELECT DISTINCT hostname FROM results"
     " WHERE hostname NOT LIKE 'fleet of %' ORDER BY 1"),
]

# (title, type, format, unit, sql, width, height)
PANELS = [
    ("IOPS by kernel and device model", "timeseries", "time_series", "iops",
     f"SELECT {TIME}, {KEY}, iops AS value FROM results WHERE {RUNS}"
     " ORDER BY 1", 12, 9),
    ("p99 latency by kernel and device model", "timeseries", "time_series",
     "s",
     f"SELECT {TIME}, {KEY}, p99_ns / 1e9 AS value FROM results"
     f" WHERE {RUNS} ORDER BY 1", 12, 9),
    ("Median by kernel and device model", "table", "table", "none",
     "SELECT kernel_release, target_model, count(*) AS runs,"
     " percentile_cont(0.5) WITHIN GROUP (ORDER BY iops) AS median_iops,"
     " percentile_cont(0.5) WITHIN GROUP (ORDER BY p99_ns) / 1e9"
     " AS median_p99_seconds"
     f" FROM results WHERE {RUNS} GROUP BY 1, 2 ORDER BY 1, 2", 24, 8),
    ("Experiment verdicts", "table", "table", "none",
     "SELECT to_timestamp(r.created_unix_ns / 1e9) AS \"time\", r.id,"
     " r.hostname, r.kernel_release, r.target_model,"
     " r.report_json::jsonb #>> '{experiment,field}' AS field,"
     " r.report_json::jsonb #>> '{experiment,metric}' AS metric,"
     " arm ->> 'value' AS arm, arm ->> 'verdict' AS verdict,"
     " (arm -> (r.report_json::jsonb #>> '{experiment,metric}')"
     " ->> 'ratio')::float AS ratio,"
     " (arm -> (r.report_json::jsonb #>> '{experiment,metric}')"
     " -> 'ci' ->> 0)::float AS ci_low,"
     " (arm -> (r.report_json::jsonb #>> '{experiment,metric}')"
     " -> 'ci' ->> 1)::float AS ci_high"
     " FROM results r,"
     " jsonb_array_elements(r.report_json::jsonb #> '{experiment,arms}') AS arm"
     " WHERE r.source LIKE '% --vary'"
     " AND NOT (arm ->> 'baseline')::boolean"
     " AND $__unixEpochNanoFilter(r.created_unix_ns)"
     " AND r.kernel_release IN ($kernel) AND r.target_model IN ($model)"
     " AND r.hostname IN ($host)"
     " ORDER BY 1 DESC LIMIT 200", 24, 8),
    ("Latest results", "table", "table", "none",
     f"SELECT {TIME}, id, run_id, source, hostname, kernel_release,"
     " target_model, state, iops, bytes_per_second, p99_ns / 1e9"
     " AS p99_seconds, spec_summary,"
     " (SELECT string_agg(key || '=' || value, ',' ORDER BY key) FROM tags"
     " WHERE result_id = results.id) AS tags"
     " FROM results WHERE $__unixEpochNanoFilter(created_unix_ns)"
     " AND kernel_release IN ($kernel) AND target_model IN ($model)"
     " ORDER BY created_unix_ns DESC LIMIT 200", 24, 10),
]


def variable(name, label, sql):
    return {
        "name": name, "label": label, "type": "query",
        "datasource": DATASOURCE, "query": sql, "definition": sql,
        "refresh": 2, "multi": True, "includeAll": True,
        "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
        "sort": 1,
    }


def panel(pid, title, kind, fmt, unit, sql, grid):
    p = {
        "id": pid, "title": title, "type": kind, "datasource": DATASOURCE,
        "gridPos": grid,
        "targets": [{"refId": "A", "datasource": DATASOURCE,
                     "editorMode": "code", "rawQuery": True, "format": fmt,
                     "rawSql": sql}],
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "options": {},
    }
    if kind == "timeseries":
        p["fieldConfig"]["defaults"]["custom"] = {
            "drawStyle": "line", "showPoints": "always", "lineWidth": 1}
    return p


def dashboard():
    panels, x, y, row_h = [], 0, 0, 0
    for pid, (title, kind, fmt, unit, sql, w, h) in enumerate(PANELS, 1):
        if x + w > 24:
            x, y, row_h = 0, y + row_h, 0
        panels.append(panel(pid, title, kind, fmt, unit, sql,
                            {"h": h, "w": w, "x": x, "y": y}))
        x, row_h = x + w, max(row_h, h)
    ds = {"name": "datasource", "label": "Results store", "type": "datasource",
          "query": "grafana-postgresql-datasource", "current": {},
          "hide": 0, "refresh": 1}
    return {
        "title": "blkperf results history",
        "uid": "blkperf-history",
        "description": "The blkperf results store (PostgreSQL): every saved "
                       "run's IOPS and p99 by kernel release and device "
                       "model, and the experiments' verdicts. docs/results.md",
        "tags": ["blkperf"],
        "editable": True,
        "schemaVersion": 39,
        "time": {"from": "now-90d", "to": "now"},
        "refresh": "",
        "annotations": {"list": []},
        "templating": {"list": [ds] + [variable(*v) for v in VARIABLES]},
        "panels": panels,
    }


def render():
    return json.dumps(dashboard(), indent=2, sort_keys=True) + "\n"


def main():
    text = render()
    if "--check" in sys.argv[1:]:
        with open(OUT) as f:
            if f.read() != text:
                print("blkperf_history.json is stale: run python3 "
                      "dashboards/make_history_dashboard.py", file=sys.stderr)
                return 1
        return 0
    with open(OUT, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
