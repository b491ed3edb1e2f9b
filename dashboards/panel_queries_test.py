#!/usr/bin/env python3
"""The per-strategy, per-group and fleet bar panels show what they say.

Evaluates the dashboard's own queries (queries.txt) with promtool over
series shaped as a daemon exports them:

  * w1 ran one split strategy only, so it exports no
    blkperf_split_io_latency_seconds (it would repeat its latency
    histogram): "Latency by split strategy" shows w1's whole latency under
    the strategy in force;
  * w2 is an A/B of `none` and `limits`: the panel shows each arm's own
    histogram, and not w2's whole latency besides;
  * w3 has job groups `hot` and `paced`: "IOPS by job group" and "Latency by
    job group" show each group's own IOPS and percentiles;
  * the fleet bars (slowest p99, lowest IOPS) still list a host whose run
    ended minutes before the end of the time range, with its last figures
    while it ran (an instant query at the range end gave NaN and 0).

Expected percentiles are computed here with Prometheus' histogram_quantile
formula from the per-second bucket rates the series are built from.

  python3 dashboards/panel_queries_test.py [PROMTOOL]   # exit 0 on success
"""
import os
import subprocess
import sys
import tempfile

import yaml

import queries

HERE = os.path.dirname(os.path.abspath(__file__))
INTERVAL_S = 15
SAMPLES = 21
EVAL = "5m"
HOST = "10.0.0.1:9477"
# Per-second rates of cumulative buckets {le: rate}; "+Inf" is the count.
W1 = {"0.0001": 25, "0.001": 100, "+Inf": 100}
W2_ARMS = {"none": {"0.0001": 40, "0.001": 50, "+Inf": 50},
           "limits": {"0.0001": 10, "0.001": 50, "+Inf": 50}}
W3_GROUPS = {"hot": ({"0.0001": 240, "0.001": 300, "+Inf": 300}, 300),
             "paced": ({"0.0001": 2, "0.001": 20, "+Inf": 20}, 20)}


def histogram_quantile(q, buckets):
    """Prometheus' histogram_quantile over {le: rate} (rank inside a
    finite bucket, linear interpolation; the lowest bucket starts at 0)."""
    bounds = sorted((float(le), rate) for le, rate in buckets.items())
    rank = q * bounds[-1][1]
    start, below = 0.0, 0.0
    for upper, count in bounds[:-1]:
        if count >= rank:
            return start + (upper - start) * ((rank - below) / (count - below))
        start, below = upper, count
    raise ValueError("the quantile falls in the +Inf bucket")


def substitute(expr):
    for name, value in (("$__rate_interval", "1m"), ("$__interval", "15s"),
                        ("$__range", "5m"), ("$instance", ".*"),
                        ("$run", ".*"), ("$workload", ".*")):
        expr = expr.replace(name, value)
    return expr


def counter(series, rate):
    return {"series": series, "values": f"0+{rate * INTERVAL_S}x{SAMPLES}"}


def gauge(series):
    return {"series": series, "values": f"1x{SAMPLES}"}


def workload(name, strategy):
    labels = f'job="blkperf", instance="{HOST}", workload="{name}"'
    return labels, [
        gauge(f'blkperf_workload_info{{{labels}, split_strategy="{strategy}"}}'),
        gauge(f'blkperf_workload_state{{{labels}, state="running"}}'),
    ]


def histogram(metric, labels, buckets):
    return [counter(f'{metric}_bucket{{{labels}, le="{le}"}}', rate)
            for le, rate in buckets.items()]


def input_series():
    series = []
    w1, s = workload("w1", "none")
    series += s + histogram("blkperf_io_latency_seconds", w1, W1)
    w2, s = workload("w2", "limits")
    series += s
    whole = {le: sum(arm[le] for arm in W2_ARMS.values()) for le in W1}
    series += histogram("blkperf_io_latency_seconds", w2, whole)
    for arm, buckets in W2_ARMS.items():
        series += histogram("blkperf_split_io_latency_seconds",
                            f'{w2}, strategy="{arm}"', buckets)
    w3, s = workload("w3", "none")
    series += s
    for group, (buckets, iops) in W3_GROUPS.items():
        labels = f'{w3}, group="{group}"'
        series += histogram("blkperf_group_io_latency_seconds", labels,
                            buckets)
        series.append(counter(f"blkperf_group_ios_total{{{labels}}}", iops))
    return series


def sample(value, **labels):
    text = ", ".join(f'{k}="{v}"' for k, v in
                     {"instance": HOST, **labels}.items())
    return {"labels": "{" + text + "}", "value": value}


def expectations(entries):
    tests = []
    for ref, q in (("A", 0.5), ("B", 0.99)):
        tests.append({
            "expr": substitute(entries[f"panel:Latency by split strategy/{ref}"]),
            "eval_time": EVAL,
            "exp_samples": [
                sample(histogram_quantile(q, W1), workload="w1",
                       strategy="none")] + [
                sample(histogram_quantile(q, buckets), workload="w2",
                       strategy=arm) for arm, buckets in W2_ARMS.items()]})
        tests.append({
            "expr": substitute(entries[f"panel:Latency by job group/{ref}"]),
            "eval_time": EVAL,
            "exp_samples": [
                sample(histogram_quantile(q, buckets), workload="w3",
                       group=group)
                for group, (buckets, _) in W3_GROUPS.items()]})
    tests.append({
        "expr": substitute(entries["panel:IOPS by job group/A"]),
        "eval_time": EVAL,
        "exp_samples": [sample(iops, workload="w3", group=group)
                        for group, (_, iops) in W3_GROUPS.items()]})
    return tests


# The fleet bars: host a's workload ran at 100 IOPS, all under 1 ms, until
# 2 minutes in and then ended; host b's runs on at 1000 IOPS. At 5 minutes
# both still show, a with its last figures while running.
ENDED_AT = 8  # samples of 15 s
FLEET = {"10.0.0.1:9477": (100, {"0.001": 100, "0.01": 100, "+Inf": 100}),
         "10.0.0.2:9477": (1000, {"0.001": 500, "0.01": 1000, "+Inf": 1000})}


def fleet_series():
    series = []
    for host, (iops, buckets) in FLEET.items():
        labels = f'job="blkperf", instance="{host}", workload="w1"'
        ended = host == "10.0.0.1:9477"
        tail = SAMPLES - ENDED_AT - 1

        def values(rate):
            if not ended:
                return f"0+{rate * INTERVAL_S}x{SAMPLES}"
            last = rate * INTERVAL_S * ENDED_AT
            return f"0+{rate * INTERVAL_S}x{ENDED_AT} {last}x{tail}"
        series += [
            gauge(f'blkperf_workload_info{{{labels}, split_strategy="none"}}'),
            {"series": f'blkperf_workload_state{{{labels}, state="running"}}',
             "values": f"1x{ENDED_AT} 0x{tail}" if ended else f"1x{SAMPLES}"},
            {"series": f'blkperf_ios_total{{{labels}, cpu="0", op="read"}}',
             "values": values(iops)},
        ]
        series += [{"series": f'blkperf_io_latency_seconds_bucket{{{labels}, '
                              f'le="{le}"}}', "values": values(rate)}
                   for le, rate in buckets.items()]
    return series


def fleet_expectations(entries):
    # In whole nanoseconds: the quantile's interpolation is exact only up
    # to the last bit.
    slowest = substitute(entries["panel:Slowest hosts by p99 (top 5)/A"])
    lowest = substitute(entries["panel:Lowest-IOPS hosts (bottom 5)/A"])
    return [
        {"expr": f"round(1e9 * ({slowest}))", "eval_time": EVAL,
         "exp_samples": [
             {"labels": f'{{instance="{host}"}}',
              "value": round(1e9 * histogram_quantile(0.99, buckets))}
             for host, (_, buckets) in FLEET.items()]},
        {"expr": f"round({lowest})", "eval_time": EVAL,
         "exp_samples": [{"labels": f'{{instance="{host}"}}', "value": iops}
                         for host, (iops, _) in FLEET.items()]},
    ]


def main():
    promtool = sys.argv[1] if len(sys.argv) > 1 else "/usr/bin/promtool"
    if not os.access(promtool, os.X_OK):
        print(f"FAIL: {promtool} not found (Debian package prometheus)")
        return 1
    entries = dict(queries.load(os.path.join(HERE, "queries.txt")))
    spec = {"rule_files": [], "evaluation_interval": f"{INTERVAL_S}s",
            "tests": [{"name": "strategy and group panels",
                       "interval": f"{INTERVAL_S}s",
                       "input_series": input_series(),
                       "promql_expr_test": expectations(entries)},
                      {"name": "fleet bars after a host's run ended",
                       "interval": f"{INTERVAL_S}s",
                       "input_series": fleet_series(),
                       "promql_expr_test": fleet_expectations(entries)}]}
    with tempfile.TemporaryDirectory(
            dir=os.environ.get("TEST_TMPDIR")) as tmp:
        path = os.path.join(tmp, "panel_queries_test.yml")
        with open(path, "w") as f:
            yaml.safe_dump(spec, f, sort_keys=False)
        run = subprocess.run([promtool, "test", "rules", path],
                             capture_output=True, text=True)
    print(run.stdout + run.stderr)
    if run.returncode != 0:
        print("FAIL: promtool test rules")
        return 1
    print(f"PASS: {sum(len(t['promql_expr_test']) for t in spec['tests'])} "
          "queries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
