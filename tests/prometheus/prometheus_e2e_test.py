#!/usr/bin/env python3
"""End-to-end test of blkperf's metrics against a real Prometheus server.

Starts Prometheus (Debian package `prometheus`) on a free loopback port with
the repository's dashboards/prometheus.yml and blkperf_rules.yml (scrape and
evaluation interval lowered to 1 s, the blkperf job pointed at the daemon
under test), runs one workload that switches its split strategy half-way
and then a short SLO search (open loop: the intended-time, late-I/O and
SLO series), and then checks through Prometheus' HTTP API that

  * every expression of dashboards/queries.txt (each dashboard panel,
    annotation and variable query, each recording rule, and each alert's
    `bool` probe) returns data: at least one finite sample over the run;
  * every rule evaluates without error, and the daemon-down alert's own
    expression returns data once the daemon is stopped;
  * the IOPS Prometheus computes with rate() over the run agrees with the
    workload's own reported IOPS within 5%;
  * `promtool check metrics` finds no problem in the daemon's /metrics;
  * while the error-free workload runs, the daemon's /metrics already
    carries its blkperf_io_errors_total series at 0, and its
    blkperf_io_latency_seconds_bucket has at least MIN_LE distinct `le`
    boundaries (Prometheus sees the same);
  * the dashboard's p99 (histogram_quantile over the exported buckets, the
    Latency panel's query) is within P99_TOLERANCE of the p99 the client
    reports for the same workload.
  * once every workload has ended, the IOPS and split-strategy panels show
    none of them (their series stay exported, flat, for the TTL);
  * the series a closed-loop, one-CPU, one-strategy workload (the fleet
    run's) brought into Prometheus over its life, as the series API lists
    them: at most SERIES_BUDGET of its own, none of them a per-strategy
    latency histogram (it would repeat its latency histogram), and at most
    RECORDED_BUDGET recorded by the rules (no recorded rate per bucket).
A workload with two job groups gives the per-group panels data, and a
one-host fleet run (run_id set) at the end gives the fleet rules data.

The daemon side is the real thing: `blkperfd serve --metrics_listen=...`
(--blkperfd) driven by the `blkperf` client (--blkperf: `run`, `list`,
`split`).
"""
import argparse
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import yaml

RUNTIME_S = 14       # measured seconds
RAMP_S = 1
SWITCH_AFTER_S = 8   # after the start, ramp included
SWITCH_TO = "limits"
IOPS_TOLERANCE = 0.05
MIN_LE = 60          # distinct finite `le` boundaries per workload
# histogram_quantile interpolates inside R20 buckets (at most 16 % wide,
# latency_buckets.h); the client's p99 is the engine bucket's midpoint
# (< 1 %).
P99_TOLERANCE = 0.05
FLEET_RUN_ID = "e2e-fleet"
# Series of a closed-loop workload on one CPU with one split strategy
# (docs/metrics.md, Series budget): 14 per CPU, the latency histogram's
# 144, 13 per workload, 3 for its strategy = 174 once it ended.
SERIES_BUDGET = 174
RECORDED_BUDGET = 5  # instance_workload:* rules
GROUPS = "hot: op=randread cpus=0; paced: op=randread cpus=1 rate_iops=200"
SLO_STEP_S = 1.5     # 3 steps (closed loop + 2 bisections) of this
# Grafana's $__rate_interval is at least 4 scrape intervals; the test scrapes
# every second.
SUBSTITUTIONS = {
    "$__rate_interval": "5s",
    "$__interval": "5s",
    "$__range": "5m",
    "$instance": ".*",
    "$run": ".*",
    "$workload": ".*",
}


def log(*args):
    print(*args, flush=True)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def wait_for(what, predicate, timeout_s, interval_s=0.2):
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(interval_s)
    raise TimeoutError(f"timed out after {timeout_s}s waiting for {what}")


def find_key(obj, keys):
    """First value of any of `keys` in a JSON tree (depth-first)."""
    if isinstance(obj, dict):
        for k in keys:
            if k in obj:
                return obj[k]
        for v in obj.values():
            found = find_key(v, keys)
            if found is not None:
                return found
    elif isinstance(obj, list):
        for v in obj:
            found = find_key(v, keys)
            if found is not None:
                return found
    return None


class Prometheus:
    def __init__(self, binary, workdir, dashboards, metrics_address):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        with open(os.path.join(dashboards, "prometheus.yml")) as f:
            config = yaml.safe_load(f)
        config["global"].update(scrape_interval="1s", scrape_timeout="1s",
                                evaluation_interval="1s")
        config["rule_files"] = [os.path.join(os.path.realpath(dashboards), r)
                                for r in config["rule_files"]]
        jobs = [j for j in config["scrape_configs"] if j["job_name"] == "blkperf"]
        assert len(jobs) == 1, "prometheus.yml has no single blkperf job"
        jobs[0]["static_configs"] = [{"targets": [metrics_address]}]
        for sd in jobs[0].get("file_sd_configs", []):
            sd["files"] = [os.path.join(os.path.realpath(dashboards), p)
                           for p in sd["files"]]
        self.config_path = os.path.join(workdir, "prometheus.yml")
        with open(self.config_path, "w") as f:
            yaml.safe_dump(config, f)
        self.log_path = os.path.join(workdir, "prometheus.log")
        self.process = subprocess.Popen(
            [binary, f"--config.file={self.config_path}",
             f"--storage.tsdb.path={os.path.join(workdir, 'tsdb')}",
             f"--web.listen-address=127.0.0.1:{self.port}",
             "--log.level=warn"],
            stdout=open(self.log_path, "w"), stderr=subprocess.STDOUT)
        wait_for("Prometheus to be ready",
                 lambda: "Ready" in http_get(f"{self.url}/-/ready"), 30)
        self.started = time.time()

    def api(self, path, **params):
        url = f"{self.url}/api/v1/{path}?{urllib.parse.urlencode(params)}"
        reply = json.loads(http_get(url, timeout=15))
        if reply.get("status") != "success":
            raise ValueError(f"{path} {params}: {reply}")
        return reply["data"]

    def query(self, expr, at=None):
        params = {"query": expr}
        if at is not None:
            params["time"] = f"{at:.3f}"
        return self.api("query", **params)

    def query_range(self, expr, start, end, step="1s"):
        return self.api("query_range", query=expr, start=f"{start:.3f}",
                        end=f"{end:.3f}", step=step)["result"]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def dump_log(self):
        with open(self.log_path) as f:
            sys.stdout.write(f.read())


class ServeDaemon:
    """`blkperfd serve` driven by the `blkperf` client."""

    def __init__(self, blkperfd, blkperf, workdir, metrics_port):
        self.blkperfd = blkperfd
        self.blkperf = blkperf
        self.workdir = workdir
        self.metrics_address = f"127.0.0.1:{metrics_port}"
        self.process = None
        self.server = None
        self.live_metrics = ""
        self.switch_time = 0.0
        self.p99_s = 0.0

    def start(self):
        port_file = os.path.join(self.workdir, "grpc_port")
        self.process = subprocess.Popen(
            [self.blkperfd, "serve", "--listen=127.0.0.1:0",
             f"--port_file={port_file}",
             f"--allow_write_paths={self.workdir}/",
             f"--allow_read_paths={self.workdir}/",
             f"--data_dir={self.workdir}",
             f"--metrics_listen={self.metrics_address}",
             "--metrics_finished_ttl=10m"])
        port = wait_for("blkperfd's port file",
                        lambda: open(port_file).read().strip(), 30)
        self.server = f"127.0.0.1:{port}"

    def client(self, *args, check=True):
        return subprocess.run([self.blkperf, f"--server={self.server}", *args],
                              check=check, capture_output=True, text=True,
                              timeout=120)

    def run_workload(self, target):
        started = time.time()
        run = subprocess.Popen(
            [self.blkperf, f"--server={self.server}", "--api_json", "--quiet",
             "run", f"--target={target}", "--create_size=64m",
             "--allow_write", "--op=randread", "--bs=16k", "--qd=16",
             f"--ramp={RAMP_S}s", f"--runtime={RUNTIME_S}s"],
            stdout=subprocess.PIPE, text=True)

        def running_id():
            listed = json.loads(self.client("--api_json", "list").stdout)
            return find_key(listed, ("workload_id", "workloadId"))
        workload = wait_for("the workload in `blkperf list`", running_id, 20)
        time.sleep(max(0.0, started + RAMP_S + 2 - time.time()))
        self.live_metrics = http_get(f"http://{self.metrics_address}/metrics")
        time.sleep(max(0.0, started + SWITCH_AFTER_S - time.time()))
        self.client("split", workload, SWITCH_TO)
        self.switch_time = time.time()
        out, _ = run.communicate(timeout=RAMP_S + RUNTIME_S + 60)
        assert run.returncode == 0, f"blkperf run failed: {out}"
        final = json.loads(out)
        total = find_key(final, ("total",))
        iops = float(total["iops"])
        self.p99_s = float(find_key(total, ("p99_ns", "p99Ns"))) / 1e9
        return find_key(final, ("workload_id", "workloadId")) or workload, iops

    def run_fleet(self):
        """A short one-host fleet run: the fleet rules need a run_id."""
        run = self.client("--json", "fleet", "run", f"--hosts={self.server}",
                          f"--run_id={FLEET_RUN_ID}", "--direct=false",
                          f"--target={self.workdir}/metrics_e2e.dat",
                          "--runtime=4s")
        return run.stdout

    def run_groups(self, target):
        """Two job groups (one paced): the per-group series and panels."""
        run = self.client("--api_json", "--quiet", "run", f"--target={target}",
                          "--direct=false", f"--groups={GROUPS}",
                          "--runtime=3s")
        return find_key(json.loads(run.stdout), ("workload_id", "workloadId"))

    def run_slo_search(self, target):
        """A short open-loop SLO search after the main workload: the
        intended-time latency, late I/O and SLO series need one."""
        run = self.client("--api_json", "--quiet", "run", f"--target={target}",
                          "--direct=false", "--qd=8", "--slo=p99<50ms",
                          "--slo_precision=0.25", f"--slo_step={SLO_STEP_S}s",
                          "--slo_settle=200ms")
        final = json.loads(run.stdout)
        slo = find_key(find_key(final, ("snapshot",)), ("slo",))
        assert slo and slo.get("done"), f"the SLO search did not finish: {slo}"
        return find_key(final, ("workload_id", "workloadId"))

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(15)


def has_finite_sample(result):
    for series in result:
        for _, value in series.get("values", []):
            if math.isfinite(float(value)):
                return True
    return False


def substitute(expr):
    for variable, value in SUBSTITUTIONS.items():
        expr = expr.replace(variable, value)
    return expr


def check_expressions(prom, entries, start, end, failures):
    log(f"--- {len(entries)} expressions over {end - start:.0f}s of data")
    for where, expr in entries:
        if where.startswith("alert:"):
            continue  # their probes are evaluated; the alerts are checked below
        result = prom.query_range(substitute(expr), start, end)
        ok = has_finite_sample(result)
        log(f"{'ok  ' if ok else 'FAIL'} {len(result):3d} series  {where}")
        if not ok:
            failures.append(f"{where} returned no data: {substitute(expr)}")


def check_rules(prom, failures):
    groups = prom.api("rules")["groups"]
    rules = [r for g in groups for r in g["rules"]]
    log(f"--- {len(rules)} rules loaded")
    for r in rules:
        if r.get("health") != "ok":
            failures.append(f"rule {r['name']}: health {r.get('health')} "
                            f"{r.get('lastError', '')}")


def check_iops(prom, workload, reported_iops, failures):
    selector = f'blkperf_ios_total{{job="blkperf", workload="{workload}"}}'
    raw = prom.query(f"{selector}[10m]")["result"]
    totals = {}
    for series in raw:
        for t, v in series["values"]:
            totals[float(t)] = totals.get(float(t), 0.0) + float(v)
    samples = sorted(totals.items())
    if not samples:
        failures.append(f"no samples of {selector}")
        return
    final = samples[-1][1]
    # The first sample after measuring began and the last one before it
    # ended: rate() between them involves no extrapolation and no idle time.
    moving = [t for t, v in samples if 0 < v < final]
    if len(moving) < 5:
        failures.append(f"only {len(moving)} scrapes during the run")
        return
    first, last = moving[0], moving[-1]
    log(f"--- {len(samples)} scrapes of {selector} from "
        f"{samples[0][0] - prom.started:.1f}s to "
        f"{samples[-1][0] - prom.started:.1f}s after Prometheus started; "
        f"{len(moving)} while it moved")
    window_ms = round((last - first) * 1000)
    expr = f"sum(rate({selector}[{window_ms}ms]))"
    result = prom.query(expr, at=last)["result"]
    prom_iops = float(result[0]["value"][1]) if result else float("nan")
    ratio = prom_iops / reported_iops if reported_iops else float("nan")
    log(f"--- IOPS: Prometheus {prom_iops:.1f} over {window_ms / 1000:.1f}s "
        f"({expr}), workload {reported_iops:.1f}, ratio {ratio:.4f}")
    if not abs(ratio - 1) <= IOPS_TOLERANCE:
        failures.append(f"Prometheus IOPS {prom_iops:.1f} vs the workload's "
                        f"{reported_iops:.1f}: off by more than "
                        f"{IOPS_TOLERANCE:.0%}")


def metric_samples(text, name, workload):
    """(labels dict, value) of every `name` sample of `workload` in an
    exposition text."""
    samples = []
    for line in text.splitlines():
        if not line.startswith(name + "{"):
            continue
        labels_text, value = line[len(name) + 1:].rsplit("} ", 1)
        labels = dict(kv.split("=", 1) for kv in labels_text.split('",'))
        labels = {k: v.strip('"') for k, v in labels.items()}
        if labels.get("workload") == workload:
            samples.append((labels, float(value)))
    return samples


def check_live_metrics(text, workload, failures):
    """The daemon's /metrics while the error-free workload ran."""
    errors = metric_samples(text, "blkperf_io_errors_total", workload)
    log(f"--- live /metrics: {len(errors)} blkperf_io_errors_total series "
        f"of {workload}: {[(l['errno'], v) for l, v in errors]}")
    if not any(l.get("errno") == "EIO" and v == 0 for l, v in errors):
        failures.append(f"no blkperf_io_errors_total{{errno=\"EIO\"}} at 0 "
                        f"for running workload {workload}")
    if any(v != 0 for _, v in errors):
        failures.append(f"error-free workload {workload} shows errors: {errors}")
    les = {l["le"] for l, _ in metric_samples(
        text, "blkperf_io_latency_seconds_bucket", workload) if l["le"] != "+Inf"}
    log(f"--- live /metrics: {len(les)} distinct finite le of {workload}")
    if len(les) < MIN_LE:
        failures.append(f"{workload} has {len(les)} distinct le, "
                        f"want >= {MIN_LE}")
    # The usual SLO bounds as written in docs/metrics.md.
    for le in ("9.9328e-05", "0.000249856", "0.000999424", "0.009961472"):
        if le not in les:
            failures.append(f'{workload} has no le="{le}"')


def check_prometheus_series(prom, workload, at, failures):
    """What Prometheus stored of the same: errors at 0 from the start, and
    the le set."""
    sel = f'{{job="blkperf", workload="{workload}"}}'
    first = prom.query(f"min(min_over_time(blkperf_io_errors_total{sel}[10m]))",
                       at=at)["result"]
    les = prom.query(f"count(count by (le) (blkperf_io_latency_seconds_bucket"
                     f"{sel}))", at=at)["result"]
    n_le = int(float(les[0]["value"][1])) if les else 0
    log(f"--- Prometheus: errors min {first}, {n_le} le values (+Inf too)")
    if not first or float(first[0]["value"][1]) != 0:
        failures.append(f"Prometheus has no error series at 0 for {workload}")
    if n_le < MIN_LE + 1:
        failures.append(f"Prometheus has {n_le} le values for {workload}")


def check_p99(prom, workload, client_p99_s, at, failures):
    """The dashboard's whole-run p99 against the client's."""
    expr = ("histogram_quantile(0.99, sum by (le) (blkperf_io_latency_seconds"
            f'_bucket{{job="blkperf", workload="{workload}"}}))')
    result = prom.query(expr, at=at)["result"]
    p99 = float(result[0]["value"][1]) if result else float("nan")
    ratio = p99 / client_p99_s if client_p99_s else float("nan")
    log(f"--- p99: Prometheus {p99 * 1e6:.2f} us ({expr}), client "
        f"{client_p99_s * 1e6:.2f} us, ratio {ratio:.4f}")
    if not abs(ratio - 1) <= P99_TOLERANCE:
        failures.append(f"dashboard p99 {p99} s vs the client's "
                        f"{client_p99_s} s: off by more than "
                        f"{P99_TOLERANCE:.0%}")


def check_finished_leave(prom, entries, at, failures):
    """Once every workload has ended (their series still exported for
    --metrics_finished_ttl), the live panels draw nothing rather than 0."""
    ended = prom.query("blkperf_workload_finished_timestamp_seconds"
                       '{job="blkperf"}', at=at)["result"]
    log(f"--- after the end: {len(ended)} workloads with an end time")
    if not ended or any(not prom.started <= float(r["value"][1]) <= at
                        for r in ended):
        failures.append(f"ended workloads' end times: {ended}")
    for where in ("panel:IOPS/A", "panel:Split strategy in force/A"):
        expr = substitute(dict(entries)[where])
        result = prom.query(expr, at=at)["result"]
        log(f"--- after the end: {where} has {len(result)} series")
        if result:
            failures.append(f"{where} still shows finished workloads: "
                            f"{result}")


def check_switch_annotation(prom, entries, switch_time, start, end,
                            failures):
    """The split annotation marks the one switch once, in the step it fell
    in (steps of $__interval, here 5 s; the switch reaches Prometheus at the
    next 1 s scrape)."""
    expr = substitute(dict(entries)["annotation:Split strategy switches"])
    result = prom.query_range(expr, start, end, step="5s")
    marks = sorted(float(t) for r in result for t, _ in r["values"])
    log(f"--- split annotation: marks at {[round(t - switch_time, 1) for t in marks]}"
        " s from the switch")
    # switch_time is read after `blkperf split` returned: a scrape may see
    # the switch a moment before it.
    if len(marks) != 1 or not -1 <= marks[0] - switch_time <= 5 + 1.5:
        failures.append(f"split annotation: want one mark within 6.5 s after "
                        f"the switch, got {len(marks)} at "
                        f"{[t - switch_time for t in marks]}")


def check_series_budget(prom, start, end, failures):
    """Every series the fleet run's workload (closed loop, one CPU, one
    strategy) brought into Prometheus, over its whole life."""
    info = prom.query(f'blkperf_workload_info{{run_id="{FLEET_RUN_ID}"}}',
                      at=end)["result"]
    if len(info) != 1:
        failures.append(f"fleet run workload: {info}")
        return
    sel = (f'job="blkperf", instance="{info[0]["metric"]["instance"]}", '
           f'workload="{info[0]["metric"]["workload"]}"')

    def series(name_regex):
        found = prom.api("series", **{"match[]": f'{{{sel}, __name__=~"'
                                      f'{name_regex}"}}',
                                      "start": f"{start:.3f}",
                                      "end": f"{end:.3f}"})
        names = {}
        for s in found:
            names[s["__name__"]] = names.get(s["__name__"], 0) + 1
        return len(found), names

    own, names = series("blkperf_.+")
    recorded, recorded_names = series("instance_workload.*:.+")
    log(f"--- series of {sel}: {own} exported ({sorted(names.items())}), "
        f"{recorded} recorded ({sorted(recorded_names)})")
    if own > SERIES_BUDGET:
        failures.append(f"{own} series for a closed-loop one-CPU workload, "
                        f"budget {SERIES_BUDGET}")
    if any(n.startswith("blkperf_split_io_latency_seconds") for n in names):
        failures.append("a one-strategy workload exports a per-strategy "
                        "latency histogram")
    if recorded > RECORDED_BUDGET:
        failures.append(f"{recorded} recorded series for one workload, "
                        f"budget {RECORDED_BUDGET}")


def check_metrics_text(promtool, metrics_address, failures):
    text = http_get(f"http://{metrics_address}/metrics")
    lint = subprocess.run([promtool, "check", "metrics"], input=text,
                          capture_output=True, text=True)
    log(f"--- promtool check metrics: exit {lint.returncode}, "
        f"{len(text.splitlines())} lines {lint.stdout}{lint.stderr}")
    if lint.returncode != 0:
        failures.append(f"promtool check metrics: {lint.stdout}{lint.stderr}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dashboards", required=True,
                        help="directory of prometheus.yml, the rules and "
                             "queries.txt")
    parser.add_argument("--blkperfd", required=True)
    parser.add_argument("--blkperf", required=True)
    parser.add_argument("--prometheus", default="/usr/bin/prometheus")
    parser.add_argument("--promtool", default="/usr/bin/promtool")
    args = parser.parse_args()
    for tool in (args.prometheus, args.promtool):
        if not os.access(tool, os.X_OK):
            log(f"FAIL: {tool} not found (Debian package prometheus)")
            return 1

    sys.path.insert(0, args.dashboards)
    import queries  # dashboards/queries.py
    entries = queries.load(os.path.join(args.dashboards, "queries.txt"))

    workdir = tempfile.mkdtemp(prefix="prometheus_e2e_",
                               dir=os.environ.get("TEST_TMPDIR"))
    metrics_port = free_port()
    daemon = ServeDaemon(args.blkperfd, args.blkperf, workdir, metrics_port)
    failures = []
    prom = None
    try:
        daemon.start()
        prom = Prometheus(args.prometheus, workdir, args.dashboards,
                          daemon.metrics_address)
        check = subprocess.run([args.promtool, "check", "config",
                                prom.config_path], capture_output=True,
                               text=True)
        if check.returncode != 0:
            failures.append(f"promtool check config: {check.stdout}"
                            f"{check.stderr}")
        # Prometheus starts scraping a few seconds after it is ready (its
        # discovery updates are throttled); start the workload after that.
        wait_for("Prometheus' first scrape of the daemon",
                 lambda: prom.query('up{job="blkperf"}')["result"], 30)
        start = time.time() - 1
        workload, iops = daemon.run_workload(
            os.path.join(workdir, "metrics_e2e.dat"))
        log(f"--- workload {workload}: {iops:.1f} IOPS (its own result)")
        check_live_metrics(daemon.live_metrics, workload, failures)
        slo = daemon.run_slo_search(os.path.join(workdir, "metrics_e2e.dat"))
        log(f"--- SLO search {slo} done")
        groups = daemon.run_groups(os.path.join(workdir, "metrics_e2e.dat"))
        log(f"--- job groups {groups} done")
        daemon.run_fleet()
        log(f"--- fleet run {FLEET_RUN_ID} done")
        time.sleep(3)  # final values scraped, rules evaluated on them
        check_metrics_text(args.promtool, daemon.metrics_address, failures)
        end = time.time()
        check_expressions(prom, entries, start, end, failures)
        check_rules(prom, failures)
        check_iops(prom, workload, iops, failures)
        check_prometheus_series(prom, workload, end, failures)
        check_p99(prom, workload, daemon.p99_s, end, failures)
        check_finished_leave(prom, entries, end, failures)
        check_switch_annotation(prom, entries, daemon.switch_time, start, end,
                                failures)
        check_series_budget(prom, start, end, failures)

        daemon.stop()
        down = [e for w, e in entries if w == "alert:BlkperfDaemonDown"]
        result = wait_for("up == 0 after the daemon stopped",
                          lambda: prom.query(down[0])["result"], 10, 0.5)
        log(f"ok   {len(result):3d} series  alert:BlkperfDaemonDown "
            "(daemon stopped)")
    except Exception as e:  # report, then clean up
        failures.append(f"{type(e).__name__}: {e}")
    finally:
        daemon.stop()
        if prom:
            prom.stop()
            if failures:
                prom.dump_log()
        shutil.rmtree(workdir, ignore_errors=True)
    for f in failures:
        log("FAIL:", f)
    if not failures:
        log("PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
