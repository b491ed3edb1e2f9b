#!/usr/bin/env python3
"""The dashboard's Workload variable keys on (instance, workload).

Workload ids are per daemon: two hosts each run a "w4". This test evaluates
the dashboard's own queries (queries.txt) with promtool over two hosts that
both have a w4 (and one a w5), with $workload set as Grafana sets it when
one key, or two keys, are picked: the picked host's w4 alone is counted,
never the other host's w4; All (`.*`) counts everything; and the Workload
variable's query lists one key per (instance, workload).

  python3 dashboards/workload_key_test.py [PROMTOOL]   # exit 0 on success
"""
import os
import re
import subprocess
import sys
import tempfile

import yaml

import queries

HERE = os.path.dirname(os.path.abspath(__file__))
INTERVAL_S = 15
SAMPLES = 21
EVAL = "5m"
# (instance, workload) -> I/Os per second; host b's w4 is not host a's.
HOST_A = "10.0.0.1:9477"
HOST_B = "10.0.0.2:9477"
RATES = {(HOST_A, "w4"): 10, (HOST_B, "w4"): 1000, (HOST_B, "w5"): 100}


def grafana_regex(keys):
    """$workload as Grafana's Prometheus datasource writes picked values:
    each regex-escaped, several as `(a|b)`, inside a PromQL string (so the
    escaping backslash is itself escaped)."""
    escaped = [re.sub(r"([\\^$.|?*+()\[\]{}])", r"\\\\\1", k) for k in keys]
    return escaped[0] if len(escaped) == 1 else "(" + "|".join(escaped) + ")"


def substitute(expr, workload):
    for name, value in (("$__rate_interval", "1m"), ("$__interval", "15s"),
                        ("$instance", ".*"), ("$run", ".*"),
                        ("$workload", workload)):
        expr = expr.replace(name, value)
    return expr


def input_series():
    series = []
    for (instance, workload), rate in RATES.items():
        labels = f'job="blkperf", instance="{instance}", workload="{workload}"'
        series += [
            {"series": f'blkperf_workload_info{{{labels}, '
                       'split_strategy="none"}', "values": f"1x{SAMPLES}"},
            {"series": f'blkperf_workload_state{{{labels}, state="running"}}',
             "values": f"1x{SAMPLES}"},
            {"series": f'blkperf_ios_total{{{labels}, cpu="0", op="read"}}',
             "values": f"0+{rate * INTERVAL_S}x{SAMPLES}"},
        ]
    return series


def expectations(entries):
    fleet = entries["panel:Fleet IOPS/B"]
    per_workload = entries["panel:IOPS/A"]
    tests = []
    for picked in ([(HOST_A, "w4")], [(HOST_B, "w4")],
                   [(HOST_A, "w4"), (HOST_B, "w5")], None):
        keys = picked or list(RATES)
        workload = ".*" if picked is None else grafana_regex(
            [f"{i}/{w}" for i, w in picked])
        tests.append({"expr": substitute(fleet, workload), "eval_time": EVAL,
                      "exp_samples": [{"labels": "{}", "value":
                                       sum(RATES[k] for k in keys)}]})
        tests.append({"expr": substitute(per_workload, workload),
                      "eval_time": EVAL, "exp_samples": [
                          {"labels": f'{{instance="{i}", workload="{w}", '
                                     'op="read"}', "value": RATES[(i, w)]}
                          for i, w in keys]})
    variable = entries["variable:workload"]
    tests.append({"expr": substitute(variable, ".*"), "eval_time": EVAL,
                  "exp_samples": [
                      {"labels": f'{{instance="{i}", workload="{w}", '
                                 f'key="{i}/{w}"}}', "value": 1}
                      for i, w in RATES]})
    return tests


def main():
    promtool = sys.argv[1] if len(sys.argv) > 1 else "/usr/bin/promtool"
    if not os.access(promtool, os.X_OK):
        print(f"FAIL: {promtool} not found (Debian package prometheus)")
        return 1
    entries = dict(queries.load(os.path.join(HERE, "queries.txt")))
    spec = {"rule_files": [], "evaluation_interval": f"{INTERVAL_S}s",
            "tests": [{"name": "workload keys", "interval": f"{INTERVAL_S}s",
                       "input_series": input_series(),
                       "promql_expr_test": expectations(entries)}]}
    with tempfile.TemporaryDirectory(
            dir=os.environ.get("TEST_TMPDIR")) as tmp:
        path = os.path.join(tmp, "workload_key_test.yml")
        with open(path, "w") as f:
            yaml.safe_dump(spec, f, sort_keys=False)
        run = subprocess.run([promtool, "test", "rules", path],
                             capture_output=True, text=True)
    print(run.stdout + run.stderr)
    if run.returncode != 0:
        print("FAIL: promtool test rules")
        return 1
    print(f"PASS: {len(spec['tests'][0]['promql_expr_test'])} queries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
