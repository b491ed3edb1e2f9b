#!/usr/bin/env python3
"""Generates dashboards/blkperf.json, the Grafana dashboard of blkperf.

The dashboard is written here as data so its PromQL reads as PromQL; the
JSON is generated and committed, and a test fails when the two disagree.

  python3 dashboards/make_dashboard.py          # rewrite blkperf.json
  python3 dashboards/make_dashboard.py --check  # exit 1 if it is stale

Every expression below is also listed in queries.txt (see queries.py), which
the end-to-end test evaluates against a real Prometheus.
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUTPUT = os.path.join(HERE, "blkperf.json")

DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
# Every workload series is selected by the host and run variables (a
# workload outside any fleet run has no run_id label, which `.*` matches)
# and by the Workload variable, whose values are "INSTANCE/WORKLOAD" keys:
# workload ids are per daemon ("w4" on two hosts are two workloads), so a
# picked key must select (instance, workload) pairs, never a bare id.
HOST_SEL = 'instance=~"$instance", run_id=~"$run"'
# The series selector of a workload metric: HOST_SEL plus a mark that
# key_by_workload() replaces by the PICKED filter (see there).
_MARK = "\x00picked\x00"
SEL = HOST_SEL + _MARK
# The workloads the Workload variable picked, one series per (instance,
# workload) whose "INSTANCE/WORKLOAD" key matches $workload: label_replace
# sets picked="1" only where the key matches (its regex is anchored, as
# Grafana's multi-value `(a|b)` and All's `.*` expect), and the `and on
# (picked)` keeps those.
WORKLOAD_KEY = ('label_join(max by (instance, workload) (blkperf_workload_info'
                f'{{{HOST_SEL}}}), "key", "/", "instance", "workload")')
PICKED = (f'(label_replace({WORKLOAD_KEY}, "picked", "1", "key", "$workload")'
          ' and on (picked) label_replace(vector(1), "picked", "1", "", ""))')
_SELECTOR = re.compile(
    r"(?P<rate>rate\()?(?P<sel>blkperf_[a-z_]+\{[^}]*" + re.escape(_MARK) +
    r"[^}]*\})(?(rate)(?P<range>\[[^\]]+\]\))|(?P<offset> offset \$__interval)?)")
RATE = "[$__rate_interval]"
# prometheus.yml's scrape_interval, set as every query's Min step: Grafana
# then takes $__rate_interval as max($__interval + 5s, 20s) whatever the
# datasource's own "Scrape interval" says (Grafana's default, 15 s, would
# make it 60 s: a 25 s run would never show its real IOPS).
SCRAPE_INTERVAL = "5s"
# (uid, name) of the datasource provisioning/datasources/blkperf.yml
# creates: the Data source variable's default, so the dashboard opens on
# the Prometheus that scrapes blkperf, not on Grafana's default datasource
# (Grafana falls back to that one where no such datasource exists).
PROVISIONED_DATASOURCE = ("blkperf-prometheus", "Prometheus (blkperf)")
# How many hosts the "slowest hosts" panels list.
TOP_K = 5


def key_by_workload(expr):
    """`expr` with every workload selector (marked by SEL) filtered to the
    picked (instance, workload) pairs: `rate(m{...}[r])` and `m{...}` (with
    its offset) become `(... and on (instance, workload) PICKED)`."""
    def wrap(m):
        vector = m.group(0).replace(_MARK, "")
        return f"({vector} and on (instance, workload) {PICKED})"
    out = _SELECTOR.sub(wrap, expr)
    if _MARK in out:
        raise ValueError(f"a workload selector the filter cannot wrap: {expr}")
    return out


def rate_by(metric, by, selector=SEL):
    return f"sum by ({by}) (rate({metric}{{{selector}}}{RATE}))"


def live(expr, by="instance, workload"):
    """`expr` only while its workload ramps, runs or stops: a finished
    workload's counters stay flat until --metrics_finished_ttl and would
    draw as 0 IOPS after its end."""
    return (f"({expr}) and on ({by}) (max by ({by}) (blkperf_workload_state"
            f'{{{SEL}, state=~"ramping|running|stopping"}}) == 1)')


def last_in_range(expr):
    """Each series' last value of `expr` within the dashboard's time range,
    for instant panels that must still show a run once it has ended."""
    return f"last_over_time(({expr})[$__range:$__interval])"


def quantile(q, by="instance, workload, le",
             metric="blkperf_io_latency_seconds_bucket"):
    return f"histogram_quantile({q}, {rate_by(metric, by)})"


def strategy_quantile(q):
    """The q-quantile by split strategy. A workload exports
    blkperf_split_io_latency_seconds only once it has two strategies to
    compare (an A/B, or a switch); until then its one strategy's latency is
    its whole latency, labelled here with the strategy in force."""
    split = quantile(q, by="instance, workload, strategy, le",
                     metric="blkperf_split_io_latency_seconds_bucket")
    in_force = ('label_replace(max by (instance, workload, split_strategy) '
                f'(blkperf_workload_info{{{SEL}}}), "strategy", "$1", '
                '"split_strategy", "(.*)")')
    whole = (f"histogram_quantile({q}, sum by (instance, workload, strategy, "
             f"le) (rate(blkperf_io_latency_seconds_bucket{{{SEL}}}{RATE}) * "
             f"on (instance, workload) group_left (strategy) {in_force}))")
    return f"{split} or {whole}"


def slo_step(metric, extra=""):
    """One column of the SLO search's curve: a value per step."""
    return (f"max by (instance, workload, step) "
            f"({metric}{{{SEL}{extra}}})")


def target(expr, legend, ref, **extra):
    t = {
        "datasource": DATASOURCE,
        "editorMode": "code",
        "expr": key_by_workload(expr),
        "interval": SCRAPE_INTERVAL,
        "legendFormat": legend,
        "range": True,
        "refId": ref,
    }
    t.update(extra)
    return t


def panel(kind, title, description, targets, field_config, options):
    """The fields every panel has, in Grafana's order."""
    return {
        "type": kind,
        "title": title,
        "description": description,
        "datasource": DATASOURCE,
        "fieldConfig": field_config,
        "options": options,
        "targets": targets,
    }


# Panels showing one value per series: the last one.
REDUCE_LAST = {"calcs": ["lastNotNull"], "fields": "", "values": False}


def timeseries(title, description, unit, targets, stack=False, min_zero=True,
               decimals=None):
    defaults = {
        "unit": unit,
        "custom": {
            "drawStyle": "line",
            "lineWidth": 1,
            "fillOpacity": 10 if not stack else 40,
            "showPoints": "never",
            "spanNulls": False,
            "stacking": {"mode": "normal" if stack else "none", "group": "A"},
        },
    }
    if min_zero:
        defaults["min"] = 0
    if decimals is not None:
        defaults["decimals"] = decimals
    return panel("timeseries", title, description, targets,
                 {"defaults": defaults, "overrides": []},
                 {"legend": {"displayMode": "table", "placement": "bottom",
                             "showLegend": True,
                             "calcs": ["mean", "lastNotNull"]},
                  "tooltip": {"mode": "multi", "sort": "desc"}})


def state_timeline(title, description, targets, value_text="in force"):
    return panel(
        "state-timeline", title, description, targets,
        {"defaults": {
            "color": {"mode": "palette-classic"},
            "custom": {"fillOpacity": 70, "lineWidth": 0},
            "mappings": [{"type": "value",
                          "options": {"1": {"text": value_text, "index": 0}}}],
        }, "overrides": []},
        {"showValue": "never", "mergeValues": True, "rowHeight": 0.8,
         "legend": {"displayMode": "list", "placement": "bottom",
                    "showLegend": False},
         "tooltip": {"mode": "single", "sort": "none"}})


def heatmap(title, description, targets):
    return panel(
        "heatmap", title, description, targets,
        {"defaults": {"custom": {"hideFrom": {
            "legend": False, "tooltip": False, "viz": False}}},
         "overrides": []},
        {
            "calculate": False,
            "cellGap": 1,
            "color": {"mode": "scheme", "scheme": "Spectral", "steps": 64,
                      "exponent": 0.5, "fill": "dark-orange", "reverse": False},
            "exemplars": {"color": "rgba(255,0,255,0.7)"},
            "filterValues": {"le": 1e-9},
            "legend": {"show": True},
            "rowsFrame": {"layout": "le"},
            "tooltip": {"mode": "single", "yHistogram": True,
                        "showColorScale": False},
            "yAxis": {"axisPlacement": "left", "unit": "s", "reverse": False},
        })


def stat(title, description, unit, targets):
    return panel(
        "stat", title, description, targets,
        {"defaults": {
            "unit": unit,
            "mappings": [],
            "thresholds": {"mode": "absolute", "steps": [
                {"color": "red", "value": None},
                {"color": "green", "value": 1}]}},
         "overrides": []},
        {"colorMode": "background", "graphMode": "none",
         "justifyMode": "auto", "orientation": "auto",
         "textMode": "value_and_name", "reduceOptions": REDUCE_LAST})


def bargauge(title, description, unit, targets):
    return panel(
        "bargauge", title, description, targets,
        {"defaults": {"unit": unit, "min": 0, "mappings": [],
                      "color": {"mode": "continuous-GrYlRd"}},
         "overrides": []},
        {"displayMode": "basic", "orientation": "horizontal",
         "showUnfilled": True, "valueMode": "color",
         "reduceOptions": REDUCE_LAST})


def table(title, description, targets, unit_overrides, sort_label):
    """Instant queries side by side, merged on their labels into rows,
    sorted by the label `sort_label` read as a number (label values are
    strings: step "10" would sort before "2")."""
    return dict(panel(
        "table", title, description, targets,
        {"defaults": {"custom": {"align": "auto"}, "mappings": []},
         "overrides": [
             {"matcher": {"id": "byName", "options": name},
              "properties": [{"id": "unit", "value": unit}]}
             for name, unit in unit_overrides]},
        {"showHeader": True, "cellHeight": "sm",
         "footer": {"show": False, "reducer": ["sum"], "fields": ""},
         "sortBy": [{"displayName": sort_label, "desc": False}]}),
        transformations=[
            {"id": "merge", "options": {}},
            {"id": "organize", "options": {
                "excludeByName": {"Time": True},
                "renameByName": {"Value #A": "asked IOPS",
                                 "Value #B": "achieved IOPS",
                                 "Value #C": "p50", "Value #D": "p99",
                                 "Value #E": "p99.9", "Value #F": "met"}}},
            {"id": "convertFieldType", "options": {
                "fields": {},
                "conversions": [{"targetField": sort_label,
                                 "destinationType": "number"}]}}])


def row(title):
    return {"type": "row", "title": title, "collapsed": False, "panels": []}


# The fleet row: every selected host together. Merging latency with
# histogram_quantile over sum by (le) is exact up to bucket interpolation
# because every daemon exports the identical `le` set (the collector's fixed
# layout, daemon/metrics/workload_collector.h); never average percentiles.
FLEET = [
    (row("Fleet"), 24, 1),
    (timeseries(
        "Fleet IOPS",
        "Completed logical I/Os per second summed over every selected host "
        "and workload (pick one fleet run with the Run variable), by "
        "direction and in total.",
        "iops",
        [target(rate_by("blkperf_ios_total", "op"), "{{op}}", "A"),
         target(f"sum(rate(blkperf_ios_total{{{SEL}}}{RATE}))", "total",
                "B")]), 8, 8),
    (timeseries(
        "Fleet latency percentiles",
        "Percentiles of the merged latency histogram of every selected host "
        "(histogram_quantile over sum by (le): valid because every daemon "
        "exports the same buckets), never an average of per-host "
        "percentiles.",
        "s",
        [target(quantile("0.5", "le"), "p50", "A"),
         target(quantile("0.99", "le"), "p99", "B"),
         target(quantile("0.999", "le"), "p99.9", "C")]), 8, 8),
    (stat(
        "Hosts up and running",
        "Daemons Prometheus scrapes (up, of all selected), and hosts with a "
        "selected workload running now.",
        "none",
        [target('sum(up{job="blkperf", instance=~"$instance"})', "up", "A"),
         target('count(up{job="blkperf", instance=~"$instance"})', "hosts",
                "B"),
         target("count(max by (instance) "
                f"(blkperf_workload_state{{{SEL}, state=\"running\"}}) == 1)"
                " or vector(0)", "running", "C")]), 8, 8),
    (bargauge(
        f"Slowest hosts by p99 (top {TOP_K})",
        f"The {TOP_K} selected hosts with the highest p99 latency, each from "
        "its own merged histogram, as of the last moment it completed I/O "
        "within the time range (so a run that has ended still shows).",
        "s",
        [target(f"topk({TOP_K}, {last_in_range(quantile('0.99', 'instance, le') + ' > 0')})",
                "{{instance}}", "A", instant=True, range=False)]), 12, 8),
    (bargauge(
        f"Lowest-IOPS hosts (bottom {TOP_K})",
        f"The {TOP_K} selected hosts completing the fewest I/Os per second, "
        "as of the last moment each ran a selected workload within the time "
        "range (so a run that has ended still shows). A host that never "
        "ran one is not listed; Hosts up and running counts it.",
        "iops",
        [target(f"bottomk({TOP_K}, {last_in_range(live(rate_by('blkperf_ios_total', 'instance'), by='instance'))})",
                "{{instance}}", "A", instant=True, range=False)]), 12, 8),
]

# (panel, width, height); rows take the whole width.
LAYOUT = FLEET + [
    (row("Throughput and latency"), 24, 1),
    (timeseries(
        "IOPS",
        "Completed logical I/Os per second, by workload and direction, "
        "while the workload runs (a finished one leaves the panel).",
        "iops",
        [target(live(rate_by("blkperf_ios_total", "instance, workload, op")),
                "{{workload}} {{op}} @ {{instance}}", "A")]), 12, 8),
    (timeseries(
        "Bandwidth",
        "Bytes per second moved by completed logical I/Os, while the "
        "workload runs.",
        "Bps",
        [target(live(rate_by("blkperf_bytes_total", "instance, workload, op")),
                "{{workload}} {{op}} @ {{instance}}", "A")]), 12, 8),
    (timeseries(
        "Latency percentiles",
        "Logical I/O latency percentiles from the exported histogram "
        "(histogram_quantile interpolates inside a bucket; the buckets are "
        "the R20 numbers, 20 per decade, so within a few percent), and the "
        "exact mean.",
        "s",
        [target(quantile("0.5"), "p50 {{workload}} @ {{instance}}", "A"),
         target(quantile("0.99"), "p99 {{workload}} @ {{instance}}", "B"),
         target(quantile("0.999"), "p99.9 {{workload}} @ {{instance}}", "C"),
         target(rate_by("blkperf_io_latency_seconds_sum", "instance, workload")
                + " / " +
                rate_by("blkperf_io_latency_seconds_count",
                        "instance, workload"),
                "mean {{workload}} @ {{instance}}", "D")]), 12, 8),
    (heatmap(
        "Latency heatmap",
        "Completions per second in each latency bucket, all selected "
        "workloads.",
        [target(rate_by("blkperf_io_latency_seconds_bucket", "le"),
                "{{le}}", "A", format="heatmap")]), 12, 8),
    (row("CPUs and system calls"), 24, 1),
    (timeseries(
        "IOPS per CPU",
        "Completed logical I/Os per second by the CPU of the submitter "
        "thread, while the workload runs.",
        "iops",
        [target(live(rate_by("blkperf_ios_total", "instance, workload, cpu")),
                "{{workload}} cpu {{cpu}} @ {{instance}}", "A")],
        stack=True), 12, 8),
    (timeseries(
        "I/Os per syscall",
        "Logical I/Os completed per io_uring_enter call: how well submits "
        "and reaps are batched (higher is cheaper).",
        "short",
        [target(rate_by("blkperf_ios_total", "instance, workload") + " / " +
                rate_by("blkperf_io_uring_enter_calls_total",
                        "instance, workload"),
                "{{workload}} @ {{instance}}", "A")], decimals=2), 12, 8),
    (timeseries(
        "Submitter CPU",
        "CPU time per second of the submitter threads (user, system) and "
        "of the io-wq/SQPOLL kernel threads working for their rings.",
        "percentunit",
        [target(rate_by("blkperf_submitter_cpu_seconds_total",
                        "instance, workload, mode"),
                "{{workload}} {{mode}} @ {{instance}}", "A")],
        stack=True), 12, 8),
    (timeseries(
        "Request cache hit rate",
        "Share of request objects taken from the submitter's own per-CPU "
        "cache rather than the shared pool.",
        "percentunit",
        [target(rate_by("blkperf_request_cache_hits_total",
                        "instance, workload, cpu") + " / (" +
                rate_by("blkperf_request_cache_hits_total",
                        "instance, workload, cpu") + " + " +
                rate_by("blkperf_request_cache_misses_total",
                        "instance, workload, cpu") + ")",
                "{{workload}} cpu {{cpu}} @ {{instance}}", "A")]), 12, 8),
    (row("Splitting"), 24, 1),
    (state_timeline(
        "Split strategy in force",
        "Which split strategy each workload ran, over time, until it "
        "ended. Switches are also marked as annotations on every panel.",
        [target(live("max by (instance, workload, split_strategy) "
                     f"(blkperf_workload_info{{{SEL}}})"),
                "{{workload}} @ {{instance}} {{split_strategy}}", "A")]), 24, 5),
    (timeseries(
        "Split pieces per I/O",
        "SQEs submitted per logical I/O under each split strategy.",
        "short",
        [target(rate_by("blkperf_split_pieces_total",
                        "instance, workload, strategy") + " / " +
                rate_by("blkperf_split_ios_total",
                        "instance, workload, strategy"),
                "{{workload}} {{strategy}} @ {{instance}}", "A")],
        decimals=2), 12, 8),
    (timeseries(
        "Device requests per SQE",
        "Requests the block devices completed per SQE submitted, by split "
        "strategy (from /sys/block/*/stat; above 1: the kernel split the "
        "pieces further). Only for direct I/O to targets on block devices "
        "(buffered I/O reaches the device through the page cache).",
        "short",
        [target(rate_by("blkperf_device_requests_total",
                        "instance, workload, strategy") + " / " +
                rate_by("blkperf_split_pieces_total",
                        "instance, workload, strategy"),
                "{{workload}} {{strategy}} @ {{instance}}", "A")],
        decimals=2), 12, 8),
    (timeseries(
        "Latency by split strategy",
        "p50 and p99 of the I/Os completed under each split strategy "
        "(blkperf_split_io_latency_seconds), so phases and A/B slices "
        "compare without time-slicing; a workload that has run one "
        "strategy only shows its whole latency under that strategy.",
        "s",
        [target(strategy_quantile("0.5"),
                "p50 {{workload}} {{strategy}} @ {{instance}}", "A"),
         target(strategy_quantile("0.99"),
                "p99 {{workload}} {{strategy}} @ {{instance}}", "B")]),
     24, 8),
    (row("Job groups"), 24, 1),
    (timeseries(
        "IOPS by job group",
        "Completed logical I/Os per second of each job group (--groups: "
        "each group's own threads, shape and rate), while the workload "
        "runs.",
        "iops",
        [target(live(rate_by("blkperf_group_ios_total",
                             "instance, workload, group")),
                "{{workload}} {{group}} @ {{instance}}", "A")]), 12, 8),
    (timeseries(
        "Latency by job group",
        "p50 and p99 of each job group's I/Os "
        "(blkperf_group_io_latency_seconds), so groups of one workload (a "
        "closed-loop and a paced one, reads and writes) are not mixed.",
        "s",
        [target(quantile("0.5", by="instance, workload, group, le",
                         metric="blkperf_group_io_latency_seconds_bucket"),
                "p50 {{workload}} {{group}} @ {{instance}}", "A"),
         target(quantile("0.99", by="instance, workload, group, le",
                         metric="blkperf_group_io_latency_seconds_bucket"),
                "p99 {{workload}} {{group}} @ {{instance}}", "B")]),
     12, 8),
    (row("Errors and queue"), 24, 1),
    (timeseries(
        "I/O errors",
        "Failed logical I/Os per second by error kind; 0 while a workload "
        "has none.",
        "cps",
        [target(rate_by("blkperf_io_errors_total", "instance, workload, errno")
                + " or on (instance, workload) " +
                "sum by (instance, workload) "
                f"(0 * rate(blkperf_ios_total{{{SEL}}}{RATE}))",
                "{{workload}} {{errno}} @ {{instance}}", "A")]), 8, 8),
    (timeseries(
        "In-flight I/Os",
        "Logical I/Os submitted and not yet completed, averaged over the "
        "workload's measured time so far (Little's law: IOPS x mean "
        "latency, submission to reap; the run's achieved queue depth, "
        "blkperf's mean_inflight).",
        "short",
        [target("sum by (instance, workload) "
                f"(blkperf_inflight_ios_mean{{{SEL}}})",
                "{{workload}} @ {{instance}}", "A")]), 8, 8),
    (state_timeline(
        "Workload state",
        "ramping, running, stopping, then finished, stopped or failed.",
        [target("max by (instance, workload, state) "
                f"(blkperf_workload_state{{{SEL}}}) == 1",
                "{{workload}} @ {{instance}} {{state}}", "A")],
        value_text="current"), 8, 8),
    (row("Open loop and SLO search"), 24, 1),
    (timeseries(
        "Intended-time latency percentiles",
        "Open-loop workloads (rate_iops, rate_bw, SLO search): latency from "
        "each I/O's intended issue time to its completion, so waiting for a "
        "queue slot and a stalled device show in full (no coordinated "
        "omission). The Latency percentiles panel is the service time from "
        "submission.",
        "s",
        [target(quantile("0.5", metric="blkperf_io_intended_latency_seconds"
                                       "_bucket"),
                "p50 {{workload}} @ {{instance}}", "A"),
         target(quantile("0.99", metric="blkperf_io_intended_latency_seconds"
                                        "_bucket"),
                "p99 {{workload}} @ {{instance}}", "B"),
         target(quantile("0.999", metric="blkperf_io_intended_latency_seconds"
                                         "_bucket"),
                "p99.9 {{workload}} @ {{instance}}", "C")]), 12, 8),
    (timeseries(
        "I/Os late for a queue slot",
        "Open loop: I/Os per second issued after their intended time because "
        "every queue slot was taken (the device was behind the rate).",
        "cps",
        [target(rate_by("blkperf_late_ios_total", "instance, workload"),
                "{{workload}} @ {{instance}}", "A")]), 12, 8),
    (table(
        "SLO search: rate -> latency",
        "Each step of an SLO search: the open-loop rate asked (0: the "
        "closed-loop step that found the maximum), what it achieved, its "
        "intended-time p50, p99 and p99.9, and whether it met the "
        "objective.",
        [target(slo_step("blkperf_slo_step_asked_iops"), "", "A",
                instant=True, range=False, format="table"),
         target(slo_step("blkperf_slo_step_iops"), "", "B", instant=True,
                range=False, format="table"),
         target(slo_step("blkperf_slo_step_latency_seconds",
                         ', percentile="50"'), "", "C", instant=True,
                range=False, format="table"),
         target(slo_step("blkperf_slo_step_latency_seconds",
                         ', percentile="99"'), "", "D", instant=True,
                range=False, format="table"),
         target(slo_step("blkperf_slo_step_latency_seconds",
                         ', percentile="99.9"'), "", "E", instant=True,
                range=False, format="table"),
         target(slo_step("blkperf_slo_step_met"), "", "F", instant=True,
                range=False, format="table")],
        [("asked IOPS", "iops"), ("achieved IOPS", "iops"), ("p50", "s"),
         ("p99", "s"), ("p99.9", "s")], sort_label="step"), 16, 8),
    (stat(
        "SLO search answer",
        "The highest asked rate that met the objective so far (best), the "
        "knee of the rate-latency curve, and the closed-loop maximum.",
        "iops",
        [target("max by (instance, workload, objective) "
                f"(blkperf_slo_best_iops{{{SEL}}})",
                "best {{workload}} @ {{instance}} {{objective}}", "A"),
         target("max by (instance, workload, objective) "
                f"(blkperf_slo_knee_iops{{{SEL}}})",
                "knee {{workload}} @ {{instance}}", "B"),
         target("max by (instance, workload, objective) "
                f"(blkperf_slo_max_iops{{{SEL}}})",
                "closed loop {{workload}} @ {{instance}}", "C")]), 8, 8),
    (row("Daemon"), 24, 1),
    (stat(
        "Daemon up",
        "Whether Prometheus could scrape each selected blkperfd.",
        "none",
        [target('up{job="blkperf", instance=~"$instance"}', "{{instance}}",
                "A")]), 6, 6),
    (timeseries(
        "Daemon CPU",
        "CPU time per second of the whole blkperfd process.",
        "percentunit",
        [target('sum by (instance, mode) '
                '(rate(blkperf_process_cpu_seconds_total'
                '{instance=~"$instance"}[$__rate_interval]))',
                "{{mode}} @ {{instance}}", "A")], stack=True), 9, 6),
    (timeseries(
        "Daemon resident memory",
        "Resident memory of blkperfd, I/O buffers included.",
        "bytes",
        [target('blkperf_process_resident_memory_bytes{instance=~"$instance"}',
                "{{instance}}", "A")]), 9, 6),
]

# A switch shows in the one step it fell in: the counter against its value
# one step ($__interval, the annotation's step) earlier, so the steps tile
# the time axis: at most one step late, never repeated, nothing after the
# workload's end. (changes() over a window as short as the scrape interval
# would see one sample and miss switches.)
SWITCH_ANNOTATION = (
    "max by (instance, workload, split_strategy) ("
    f"((blkperf_split_strategy_switches_total{{{SEL}}} - "
    f"blkperf_split_strategy_switches_total{{{SEL}}} offset $__interval) > 0) "
    "* on (instance, workload) group_left (split_strategy) "
    f"blkperf_workload_info{{{SEL}}})")


def variable(name, label, query, regex_all=".*", regex=""):
    return {
        "name": name,
        "label": label,
        "type": "query",
        "datasource": DATASOURCE,
        "definition": query,
        "query": {"query": query, "refId": "PrometheusVariableQueryEditor"},
        "refresh": 2,
        "includeAll": True,
        "allValue": regex_all,
        "multi": True,
        "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
        "options": [],
        "regex": regex,
        "sort": 1,
        "hide": 0,
    }


def build():
    panels = []
    x = y = 0
    row_height = 0
    for panel_id, (panel, width, height) in enumerate(LAYOUT, start=1):
        if x + width > 24:
            x, y = 0, y + row_height
            row_height = 0
        panel = dict(panel)
        panel["id"] = panel_id
        panel["gridPos"] = {"h": height, "w": width, "x": x, "y": y}
        panels.append(panel)
        x += width
        row_height = max(row_height, height)
    return {
        "__requires": [
            {"type": "grafana", "id": "grafana", "name": "Grafana",
             "version": "10.4.0"},
            {"type": "datasource", "id": "prometheus", "name": "Prometheus",
             "version": "1.0.0"},
        ],
        "annotations": {"list": [
            {"builtIn": 1, "datasource": {"type": "grafana",
                                          "uid": "-- Grafana --"},
             "enable": True, "hide": True, "iconColor": "rgba(0, 211, 255, 1)",
             "name": "Annotations & Alerts", "type": "dashboard"},
            {"datasource": DATASOURCE, "enable": True, "hide": False,
             "iconColor": "orange", "name": "Split strategy switches",
             "expr": key_by_workload(SWITCH_ANNOTATION), "step": SCRAPE_INTERVAL,
             "titleFormat": "Split strategy switch",
             "textFormat": "{{workload}} @ {{instance}} now runs "
                           "{{split_strategy}}",
             "tagKeys": "workload,split_strategy",
             "useValueForTime": False},
        ]},
        "description": "blkperf: io_uring storage performance daemons. "
                       "Generated by dashboards/make_dashboard.py.",
        "editable": True,
        "fiscalYearStartMonth": 0,
        "graphTooltip": 1,
        "links": [],
        "panels": panels,
        "refresh": "10s",
        "schemaVersion": 39,
        "tags": ["blkperf", "storage", "io_uring"],
        "templating": {"list": [
            {"name": "datasource", "label": "Data source",
             "type": "datasource", "query": "prometheus", "refresh": 1,
             "current": {"selected": True, "text": PROVISIONED_DATASOURCE[1],
                         "value": PROVISIONED_DATASOURCE[0]},
             "hide": 0, "includeAll": False, "multi": False,
             "options": [], "regex": ""},
            variable("instance", "Host",
                     "label_values(blkperf_build_info, instance)"),
            variable("run", "Run",
                     'label_values(blkperf_workload_info{instance=~"$instance"}'
                     ', run_id)'),
            variable("workload", "Workload", f"query_result({WORKLOAD_KEY})",
                     regex='/key="([^"]+)"/'),
        ]},
        "time": {"from": "now-30m", "to": "now"},
        "timepicker": {},
        "timezone": "browser",
        "title": "blkperf",
        "uid": "blkperf-overview",
        "version": 1,
        "weekStart": "",
    }


def render():
    return json.dumps(build(), indent=2, sort_keys=False) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="fail if blkperf.json differs from the output")
    parser.add_argument("--output", default=OUTPUT)
    args = parser.parse_args()
    text = render()
    if args.check:
        with open(args.output) as f:
            if f.read() != text:
                print(f"{args.output} is stale: run "
                      "python3 dashboards/make_dashboard.py", file=sys.stderr)
                return 1
        return 0
    with open(args.output, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
