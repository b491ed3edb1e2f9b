#!/usr/bin/env python3
"""`blkperf fleet run` against 8 real daemons (tests/fleet harness): each in
its own network and time namespace (CLOCK_MONOTONIC hours apart) behind a
TCP delay proxy with jitter.

Every daemon serves mutual TLS only (fleets cross networks): a test CA made
here with openssl signs one server certificate (SAN 127.0.0.1, the proxies'
address) and the orchestrator's client certificate, whose identity the
daemons' --roles_file makes an operator. A fleet run without a client
certificate is refused by every host (UNAUTHENTICATED) and starts nothing.

Checks: every host completes and reports its first submission within 1 ms of
each other in true time (below); the merged
report equals an independent merge of the per-host reports (ios, bytes,
every histogram bucket); a host killed mid-run with --on_host_loss=continue
gives a partial result naming it, merged over the survivors; a host that
never arms with --min_hosts=100% starts nothing and releases every armed
host, and --min_hosts=6 runs partial without it; an orchestrator killed
after Arm leaves hosts that release themselves when their lease ends; a
host killed mid-run with --on_host_loss=abort stops every host; an A/B run
(a spec file's ab_strategies none,limits) counts its slices from the common instant on every host;
`fleet watch` prints live lines over every host and `fleet split` switches
every host at one instant (each pair of instants within the sum of
their clock error bounds in true time, each switch at its instant); an orchestrator killed while arming and run again with the same run
id (a retried Arm) completes with one workload per host.
The start
skew is the spread of the hosts' first submissions in CLOCK_REALTIME (which
time namespaces do not shift; one machine, one realtime clock); it must be
under FLEET_E2E_MAX_SKEW_US (default 1000, the issue's bar), after a
warm-up run (the daemons' first, whose skew is printed only), once on quiet
CPUs and once with a nice-19 busy loop on every CPU (the daemons'
submitters wait for the instant at real-time priority, so other work on
their CPUs does not delay the start; each host's report must say every
thread did). Each daemon is confined to one CPU (Fleet's spread_cpus: 4
hosts a CPU on 2 CPUs), where its submitter then runs by default, as a
host's runs on CPUs of its own: with all 8 on CPU 0, each first turn held
that CPU 40-150 us at real time before the next host could start, and the
latest host came a median 320 us after its instant, 1.3 ms in one CI run
(bench/RESULTS.md, 2026-12-06 03:00). It
is a timing figure: the Bazel target is tagged exclusive so no other test
shares the CPUs, and bench/fleet_skew.sh measures its spread over many
rounds (bench/RESULTS.md). A start, A/B switch or split may miss its bound
only by as long as a pause witness (//tests/timing) saw the machine itself
stopped around it: this VM's vCPUs stop for 10-40 ms at times
(bench/RESULTS.md, 2026-12-06). Every such allowance is printed.

  fleet_e2e_test.py --blkperfd=PATH --blkperf=PATH --harness_dir=DIR
"""
import argparse
import atexit
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time


MAX_SKEW_US = float(os.environ.get("FLEET_E2E_MAX_SKEW_US", "1000"))


def pki(dir_):
    """A CA, a server certificate for 127.0.0.1 and the orchestrator's client
    certificate (identity orchestrator.test) under dir_. Returns
    (daemon TLS flags, client TLS flags)."""
    def openssl(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    path = lambda name: os.path.join(dir_, name)
    openssl("req", "-x509", *ec, "-days", "2", "-keyout", path("ca.key"),
            "-out", path("ca.pem"), "-subj", "/CN=fleet-e2e-ca")
    for name, san in (("server", "IP:127.0.0.1"),
                      ("orchestrator", "DNS:orchestrator.test")):
        openssl("req", *ec, "-keyout", path(f"{name}.key"), "-out",
                path(f"{name}.csr"), "-subj", f"/CN={name}")
        with open(path(f"{name}.ext"), "w") as f:
            f.write(f"subjectAltName={san}\n")
        openssl("x509", "-req", "-in", path(f"{name}.csr"), "-CA",
                path("ca.pem"), "-CAkey", path("ca.key"), "-CAcreateserial",
                "-days", "2", "-out", path(f"{name}.pem"), "-extfile",
                path(f"{name}.ext"))
    with open(path("roles"), "w") as f:
        f.write("operator orchestrator.test\n")
    daemon = [f"--tls_cert={path('server.pem')}",
              f"--tls_key={path('server.key')}",
              f"--tls_client_ca={path('ca.pem')}",
              f"--roles_file={path('roles')}"]
    client = [f"--tls_ca={path('ca.pem')}",
              f"--tls_cert={path('orchestrator.pem')}",
              f"--tls_key={path('orchestrator.key')}"]
    return daemon, client


CLIENT_TLS = []  # set in main(): every blkperf call below uses mutual TLS


# The runs are light (one 128 KiB read in flight per host, a few percent of
# a CPU): the 8 "hosts" share this machine's CPUs, and 8 workloads that
# saturated one CPU would delay each other's start by their own load, which
# a real fleet's hosts do not share.
def run_fleet(blkperf, fleet, target, extra, kill_host=None, tls=None):
    args = [blkperf, "fleet", "run", f"--hosts={fleet.hosts_flag()}",
            f"--target={target}", "--runtime=3s", "--qd=1", "--bs=128k",
            "--interval=500ms",
            "--api_json"] + (CLIENT_TLS if tls is None else tls) + extra
    process = subprocess.Popen(args, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    if kill_host is not None:
        time.sleep(4)
        kill_host.kill()
    out, err = process.communicate(timeout=90)
    sys.stderr.write(err)
    return process.returncode, json.loads(out)


def run_states(blkperf, host, run_id):
    """State and end reason of run `run_id`'s workload on `host`."""
    out = subprocess.run([blkperf, f"--server={host.proxy_address}", "list",
                          "--api_json", *CLIENT_TLS], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    for w in json.loads(out).get("workloads", []):
        if w.get("run_id") == run_id:
            return w["state"], w.get("end_reason", "")
    return None, ""


def run_workloads(blkperf, host, run_id):
    """Every workload of run `run_id` on `host`: [(state, end_reason)]."""
    out = subprocess.run([blkperf, f"--server={host.proxy_address}", "list",
                          "--api_json", *CLIENT_TLS], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    return [(w["state"], w.get("end_reason", ""))
            for w in json.loads(out).get("workloads", [])
            if w.get("run_id") == run_id]


def wait_for_states(blkperf, hosts, run_id, state, timeout_s):
    """Waits until run `run_id` is in `state` on every host of `hosts`. The
    hosts are asked at once: one after another, 8 `blkperf list` calls took
    4.9 s while 8 workloads kept both CPUs busy."""
    deadline = time.monotonic() + timeout_s
    with concurrent.futures.ThreadPoolExecutor(len(hosts)) as pool:
        ask = lambda h: run_states(blkperf, h, run_id)[0]
        while True:
            states = list(pool.map(ask, hosts))
            if all(s == state for s in states):
                return
            assert time.monotonic() < deadline, (
                f"run {run_id} not {state} on every host within {timeout_s}s: "
                f"{states}")
            time.sleep(0.2)


def check_merge(report):
    hosts = report["hosts"]
    merged = report["merged"]["snapshot"]["total"]
    ios = sum(int(h["report"]["snapshot"]["total"]["ios"]) for h in hosts)
    byts = sum(int(h["report"]["snapshot"]["total"]["bytes"]) for h in hosts)
    assert ios > 0, "no I/O"
    assert int(merged["ios"]) == ios, (merged["ios"], ios)
    assert int(merged["bytes"]) == byts, (merged["bytes"], byts)
    buckets = {}
    for h in hosts:
        for b in h["report"]["snapshot"]["total"]["histogram"]["buckets"]:
            buckets[b["index"]] = buckets.get(b["index"], 0) + int(b["count"])
    got = {b["index"]: int(b["count"])
           for b in merged["histogram"]["buckets"]}
    assert got == buckets, "merged histogram differs from the bucket sums"


class PauseWitness:
    """//tests/timing:pause_witness_main in the background: the machine's own
    pauses (a CPU that ran nothing at SCHED_FIFO 2, above the daemons'
    real-time waits, for over 0.5 ms: the VM's vCPUs stopped, or a long
    kernel path held the CPU), in CLOCK_REALTIME, which the hosts' time
    namespaces share with this test. A deadline may be missed only by as
    long as the machine was seen paused around it. Without a path (bench
    runs) it sees nothing and allows nothing."""
    def __init__(self, path):
        self.pauses = []  # (cpu, due_ns, woke_ns)
        self.status = "not run"
        self.proc = None
        if not path:
            return
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.status = self.proc.stdout.readline().strip()
        assert self.status == "ok", f"pause witness: {self.status}"
        threading.Thread(target=self._read, daemon=True).start()
        atexit.register(self.close)

    def _read(self):
        for line in self.proc.stdout:
            cpu, due, woke = (int(w) for w in line.split())
            self.pauses.append((cpu, due, woke))

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()

    def paused_within(self, from_ns, to_ns):
        """ns the machine was seen paused within [from_ns, to_ns]: per CPU
        the pauses' overlap with it, added up; the most of any CPU."""
        time.sleep(0.25)  # the witness prints every 100 ms
        per_cpu = {}
        for cpu, due, woke in list(self.pauses):
            overlap = min(woke, to_ns) - max(due, from_ns)
            if overlap > 0:
                per_cpu[cpu] = per_cpu.get(cpu, 0) + overlap
        return max(per_cpu.values(), default=0)


WITNESS = PauseWitness(None)  # main() starts the real one

# How long before its instant a host's start gate opens (kReleaseLeadNs,
# daemon/engine/workload.cc), and a little more.
GATE_LEAD_NS = 21_000_000


def check_all_start_together(blkperf, fleet, target, run_id, extra_flags):
    """A run on every host: it completes and merges exactly. Prints and
    returns its start skew (us) and how long the machine was seen paused
    from the gates' opening to the last first submission (us)."""
    rc, report = run_fleet(blkperf, fleet, target,
                           [f"--run_id={run_id}", *extra_flags])
    assert rc == 0, f"exit {rc}: {report.get('abort_reason')}"
    assert report["outcome"] == "completed", report["outcome"]
    assert len(report["hosts"]) == 8
    check_merge(report)
    starts = [int(h["report"]["start"]["first_submit_realtime_ns"])
              for h in report["hosts"]]
    assert all(starts), "a host reported no start"
    late = [(int(h["report"]["start"]["first_submit_monotonic_ns"]) -
             int(h["report"]["start"]["scheduled_monotonic_ns"]))
            for h in report["hosts"]]
    paused_ns = WITNESS.paused_within(
        min(s - l for s, l in zip(starts, late)) - GATE_LEAD_NS, max(starts))
    # Every submitter waited for the instant at real-time priority (the
    # daemons run as root), so busy threads on its CPU do not delay it;
    # only a gate that opened after the instant, by no more than the
    # machine was seen paused, lets a thread skip that wait.
    for h in report["hosts"]:
        start = h["report"]["start"]
        waited = start.get("realtime_wait_threads", 0)
        if waited == start.get("threads_started", -1) >= 1:
            continue
        gate_late = (int(start["measure_start_monotonic_ns"]) -
                     int(start["scheduled_monotonic_ns"]))
        assert ("start gate opened" in start.get("realtime_wait_error", "") and
                0 < gate_late <= paused_ns), (h["address"], start, paused_ns)
        print(f"{run_id}: {h['address']}'s start gate opened {gate_late / 1e6:.1f}"
              f" ms late, within {paused_ns / 1e6:.1f} ms of witnessed machine "
              "pauses", flush=True)
    skew_us = (max(starts) - min(starts)) / 1e3
    errors = [int(h["clock_error_ns"]) / 1e3 for h in report["hosts"]]
    # The skew's two parts: how late each host's first submission came
    # after the instant it was given (its own clock), and how far apart
    # those instants were in true time (the clock estimates' errors).
    late = [l / 1e3 for l in late]
    instants = [(s - min(starts)) / 1e3 - l for s, l in zip(starts, late)]
    print(f"{run_id}: start skew (CLOCK_REALTIME of first submissions) over 8 "
          f"hosts: {skew_us:.1f} us; late after own instant "
          f"{min(late):.1f}..{max(late):.1f} us; instants spread "
          f"{max(instants) - min(instants):.1f} us; clock error bounds "
          f"{min(errors):.1f}..{max(errors):.1f} us; load "
          f"{open('/proc/loadavg').read().split()[:3]}; machine paused "
          f"{paused_ns / 1e3:.1f} us ({WITNESS.status})", flush=True)
    return skew_us, paused_ns / 1e3


class busy_loops:
    """A context: one busy process at nice 19 pinned to each CPU."""
    def __enter__(self):
        self.loops = [subprocess.Popen(
            ["taskset", "-c", str(cpu), "nice", "-n", "19", "sh", "-c",
             "while :; do :; done"]) for cpu in sorted(os.sched_getaffinity(0))]
        atexit.register(self.__exit__)
        return self

    def __exit__(self, *_):
        for loop in self.loops:
            loop.kill()
            loop.wait()
        self.loops = []


def duration_ns(text):
    """A protobuf JSON Duration ("1.5s") in ns."""
    assert text.endswith("s"), text
    whole, _, frac = text[:-1].partition(".")
    return int(whole) * 10**9 + int((frac + "000000000")[:9])


# A/B switches are timed by each daemon's control thread from the common
# start: slice k begins at the host's measure start (which is the scheduled
# instant itself) + k x ab_slice, as late as that thread wakes. So phases
# line up across hosts to within the start skew plus that lateness. The
# thread waits and publishes at real-time priority and shares no lock
# with status readers; eight daemons on this machine's two CPUs then
# switched at most 1.7 ms late in local runs (up to 26 ms late while a
# switch took the readers' lock, bench/RESULTS.md 2026-12-05), but 11.4 ms
# once in a CI run, where other tests' builds share the machine; a busy
# loop alone sees this VM pause for up to 6 ms. So the bound stays loose.
MAX_SWITCH_LATE_MS = 20


def check_ab_phases_line_up(blkperf, fleet, target):
    slice_ns = 500_000_000
    # The API's A/B schedule, from a spec file (--ab is an experiment's
    # shorthand, --vary=split=...: docs/experiments.md).
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"ab_strategies": ["none", "limits"], "ab_slice": "0.5s"}, f)
    atexit.register(os.unlink, f.name)
    rc, report = run_fleet(blkperf, fleet, target,
                           ["--run_id=e2e-ab", f"--spec_file={f.name}",
                            "--runtime=2s"])
    assert rc == 0, f"exit {rc}: {report.get('abort_reason')}"
    true_starts = {}  # phase index -> its CLOCK_REALTIME start per host
    worst_late_us = 0.0
    for h in report["hosts"]:
        st = h["report"]["start"]
        measure = int(st["measure_start_monotonic_ns"])
        assert measure == int(st["scheduled_monotonic_ns"]), (
            f"{h['address']}: measuring began at {measure}, not at the "
            f"scheduled instant {st['scheduled_monotonic_ns']}")
        # The host's realtime at its measure start: both clocks were
        # stamped together at its first submission.
        measure_real = (int(st["first_submit_realtime_ns"]) -
                        (int(st["first_submit_monotonic_ns"]) - measure))
        phases = h["report"]["snapshot"]["phases"]
        strategies = [p["strategy"] for p in phases]
        assert strategies[:4] == ["none", "limits", "none", "limits"], strategies
        for p in phases:
            k, start = int(p["index"]), duration_ns(p["start"])
            late_ns = start - k * slice_ns
            paused_ns = (WITNESS.paused_within(
                measure_real + (k - 1) * slice_ns, measure_real + start)
                         if late_ns >= MAX_SWITCH_LATE_MS * 10**6 else 0)
            assert 0 <= late_ns < MAX_SWITCH_LATE_MS * 10**6 + paused_ns, (
                f"{h['address']}: phase {k} began {late_ns} ns after "
                f"slice {k} of the common schedule ({paused_ns} ns of "
                "witnessed machine pauses in the slice before)")
            worst_late_us = max(worst_late_us, late_ns / 1e3)
            true_starts.setdefault(k, []).append(measure_real + start)
    spreads = {k: (max(v) - min(v)) / 1e3 for k, v in true_starts.items()
               if len(v) == len(report["hosts"])}
    assert len(spreads) >= 4, spreads
    print("A/B phase starts across hosts (true time): " + ", ".join(
        f"phase {k} {spread:.1f} us" for k, spread in sorted(spreads.items()))
        + f"; latest switch {worst_late_us:.1f} us after its slice")


def check_watch_and_split(blkperf, fleet, target):
    """`fleet watch` and `fleet split` on a fleet run of real daemons. The
    watch prints a live line per interval over all 8 hosts. The split sends
    each host one instant of its own clock (the common instant plus its
    offset): every two hosts' instants must lie within the sum of the two
    clock error bounds the orchestrator reported of each other in true
    time (the contract of its clock estimates; the spread is printed), and
    each host must switch at its instant (as late as its switcher thread
    wakes, MAX_SWITCH_LATE_MS). No fixed bar on the spread: the issue sets
    its 1 ms bar on the start (asserted above), and the split's clocks are
    sampled while eight workloads and the watch share this machine's two
    CPUs, which measured 414-963 us."""
    run_id = "e2e-split"
    hosts = fleet.hosts_flag()
    # 20 s: arming, the start and the wait for every host's RUNNING state
    # took 4-7 s locally (5.4 s with the states asked at once), and so long
    # in one CI run that the watch printed 2 lines of a 6 s run; 1 line of
    # a 10 s run in one local `bazel test`, the states asked host by host.
    run = subprocess.Popen(
        [blkperf, "fleet", "run", f"--hosts={hosts}", f"--target={target}",
         "--runtime=20s", "--qd=1", "--bs=128k", "--interval=500ms", "--api_json",
         f"--run_id={run_id}", *CLIENT_TLS],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    launched = time.monotonic()
    try:
        wait_for_states(blkperf, fleet.hosts, run_id, "WORKLOAD_STATE_RUNNING",
                        30)
        running_after_s = time.monotonic() - launched
        watch = subprocess.Popen(
            [blkperf, "fleet", "watch", run_id, f"--hosts={hosts}",
             "--interval=500ms", "--api_json", *CLIENT_TLS],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        split = subprocess.run(
            [blkperf, "fleet", "split", run_id, "limits", f"--hosts={hosts}",
             "--start_margin=500ms", *CLIENT_TLS],
            capture_output=True, text=True, timeout=60)
        watch_out, watch_err = watch.communicate(timeout=60)
        out, err = run.communicate(timeout=60)
    finally:
        run.kill()
    sys.stderr.write(err)
    assert split.returncode == 0, (split.returncode, split.stdout, split.stderr)
    instants = {}  # address -> the instant of its own clock it was sent
    errors = {}  # address -> that instant's error bound (ns)
    for line in split.stdout.splitlines():
        address, _, rest = line.partition(": ")
        words = rest.split()
        assert words[:4] == ["split", "limits", "at", "monotonic"], line
        assert words[5].startswith("(+-") and words[5].endswith("ns)"), line
        instants[address] = int(words[4])
        errors[address] = int(words[5][3:-3])
    assert sorted(instants) == sorted(hosts.split(",")), split.stdout

    assert watch.returncode == 0, (watch.returncode, watch_err)
    lines = [json.loads(l) for l in watch_out.splitlines()]
    assert len(lines) >= 3, (
        f"{len(lines)} watch lines; every host RUNNING {running_after_s:.1f} s "
        f"after `fleet run` was launched: {watch_out}")
    live = [l for l in lines if l["running"] == 8]
    assert live, watch_out
    for l in live:
        assert l["hosts"] == 8 and l["iops"] > 0 and l["p99_ns"] > 0, l
        assert l["slowest_host"] in instants, l
    assert lines[-1]["running"] == 0 and lines[-1]["hosts"] == 8, lines[-1]

    report = json.loads(out)
    assert run.returncode == 0, (run.returncode, report.get("abort_reason"))
    assert report["outcome"] == "completed", report["outcome"]
    check_merge(report)
    true_instants, worst_late_us = {}, 0.0
    for h in report["hosts"]:
        st = h["report"]["start"]
        at = instants[h["address"]]
        # Both clocks were stamped together at the first submission.
        true_instants[h["address"]] = (int(st["first_submit_realtime_ns"]) -
                                       (int(st["first_submit_monotonic_ns"]) -
                                        at))
        phases = h["report"]["snapshot"]["phases"]
        assert [p["strategy"] for p in phases] == ["none", "limits"], phases
        switched = (int(st["measure_start_monotonic_ns"]) +
                    duration_ns(phases[1]["start"]))
        late_ns = switched - at
        true_at = true_instants[h["address"]]
        paused_ns = (WITNESS.paused_within(true_at, true_at + late_ns)
                     if late_ns >= MAX_SWITCH_LATE_MS * 10**6 else 0)
        assert 0 <= late_ns < MAX_SWITCH_LATE_MS * 10**6 + paused_ns, (
            f"{h['address']}: switched {late_ns} ns after its instant "
            f"({paused_ns} ns of witnessed machine pauses)")
        worst_late_us = max(worst_late_us, late_ns / 1e3)
    spread_us = (max(true_instants.values()) -
                 min(true_instants.values())) / 1e3
    print(f"fleet split: instants spread {spread_us:.1f} us in true time "
          f"(error bounds {min(errors.values()) / 1e3:.1f}.."
          f"{max(errors.values()) / 1e3:.1f} us); latest switch "
          f"{worst_late_us:.1f} us after its instant; watch printed "
          f"{len(lines)} lines", flush=True)
    for a, ta in true_instants.items():
        for b, tb in true_instants.items():
            assert abs(ta - tb) <= errors[a] + errors[b], (
                f"split instants of {a} and {b} {abs(ta - tb)} ns apart in "
                f"true time, beyond their error bounds {errors[a]} + "
                f"{errors[b]} ns")


def check_rearm_makes_no_duplicate(blkperf, fleet, target):
    """A retried Arm on real daemons: an orchestrator killed while arming
    (one host paused holds it there), then `fleet run` again with the same
    run id. Every daemon returns the workload it armed for the first one
    (ArmWorkload is idempotent by run id), the run completes, and each
    host holds exactly one workload of that run."""
    run_id = "e2e-rearm"
    held, others = fleet.hosts[-1], fleet.hosts[:-1]
    flags = [f"--run_id={run_id}", "--lease=40s", "--runtime=2s"]
    held.pause()
    try:
        first = subprocess.Popen(
            [blkperf, "fleet", "run", f"--hosts={fleet.hosts_flag()}",
             f"--target={target}", "--qd=1", "--bs=128k", "--arm_timeout=20s",
             "--api_json", *flags, *CLIENT_TLS],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for_states(blkperf, others, run_id, "WORKLOAD_STATE_ARMED", 15)
        finally:
            first.kill()
            first.wait()
    finally:
        held.resume()
    rc, report = run_fleet(blkperf, fleet, target, flags)
    assert rc == 0 and report["outcome"] == "completed", (
        rc, report["outcome"], report["abort_reason"], report["excluded"])
    assert len(report["hosts"]) == 8
    check_merge(report)
    for h in fleet.hosts:
        workloads = run_workloads(blkperf, h, run_id)
        assert [s for s, _ in workloads] == ["WORKLOAD_STATE_FINISHED"], (
            h.name, workloads)
    print("retried Arm: one workload per host, run completed", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--blkperfd", required=True)
    parser.add_argument("--blkperf", required=True)
    parser.add_argument("--harness_dir", required=True)
    parser.add_argument("--skew_rounds", type=int, default=1,
                        help="how many all-hosts runs to time (bench)")
    parser.add_argument("--skew_only", action="store_true",
                        help="stop after the timed runs (bench)")
    parser.add_argument("--spread_cpus", type=int, default=1,
                        help="1: each host's daemon on one CPU of its own as "
                        "far as they go (Fleet spread_cpus); 0: every "
                        "daemon on every CPU (bench)")
    parser.add_argument("--extra_flags", default="",
                        help="more `fleet run` flags for the timed runs")
    parser.add_argument("--pause_witness", default="",
                        help="//tests/timing:pause_witness_main; without it "
                        "no deadline is allowed a machine pause")
    a = parser.parse_args()
    global WITNESS  # pylint: disable=global-statement
    WITNESS = PauseWitness(a.pause_witness)
    a.extra_flags = a.extra_flags.split()
    sys.path.insert(0, os.path.abspath(a.harness_dir))
    from fleet_harness import Fleet  # pylint: disable=import-outside-toplevel
    blkperf = os.path.abspath(a.blkperf)

    pki_dir = tempfile.mkdtemp(prefix="fleet-e2e-pki-",
                               dir=os.environ.get("TEST_TMPDIR"))
    atexit.register(shutil.rmtree, pki_dir, True)
    daemon_tls, client_tls = pki(pki_dir)
    CLIENT_TLS.extend(client_tls)
    # One target path all daemons may read: the harness lets each read its
    # own directory only, so widen that to the fleet's directory.
    flags = lambda host: [f"--allow_read_paths={host.fleet.dir}/",
                          *daemon_tls]
    with Fleet(blkperfd=os.path.abspath(a.blkperfd), hosts=8, delay_ms=3,
               jitter_ms=1, daemon_flags=flags,
               spread_cpus=a.spread_cpus) as fleet:
        target = os.path.join(fleet.dir, "shared.dat")
        with open(target, "wb") as out:
            out.write(b"\0" * (16 << 20))
            # On disk before any run: the first O_DIRECT read of dirty pages
            # would wait for their writeback.
            out.flush()
            os.fsync(out.fileno())

        # Without a client certificate every host refuses the orchestrator.
        rc, report = run_fleet(blkperf, fleet, target,
                               ["--run_id=e2e-nocert", "--retries=0"],
                               tls=[client_tls[0]])
        assert rc == 1 and report["outcome"] == "not_started", (rc, report["outcome"])
        reasons = [e["reason"] for e in report["excluded"]]
        assert len(reasons) == 8 and all("UNAUTHENTICATED" in r or
                                         "certificate" in r for r in reasons), reasons

        # A warm-up run first, checked like the others but its skew only
        # printed: a fresh daemon's first run pays one-time costs in its
        # first turn, at real time on a CPU 3 other hosts of this test
        # share, and the next host there waits them out (bench/RESULTS.md,
        # 2026-12-06 04:55: locally the latest hosts' p90 244 us in first
        # rounds, 133 us after; 1.2-2.1 ms in three CI runs, all in the
        # first round). A fleet's hosts have CPUs of their own.
        warmup_skew, _ = check_all_start_together(
            blkperf, fleet, target, "e2e-warmup", a.extra_flags)
        print(f"e2e-warmup: start skew {warmup_skew:.1f} us (the daemons' "
              "first run: printed, not held to the bar)", flush=True)
        # Every host's first submission within MAX_SKEW_US of the others in
        # true time, in every round: on quiet CPUs, then with a busy loop at
        # nice 19 on every CPU (other work on a host's CPUs; at the normal
        # policy it made the hosts' starts 2-3 ms late).
        skews = [check_all_start_together(blkperf, fleet, target,
                                          f"e2e-all-{r}", a.extra_flags)
                 for r in range(a.skew_rounds)]
        with busy_loops():
            skews += [check_all_start_together(blkperf, fleet, target,
                                               f"e2e-busy-{r}", a.extra_flags)
                      for r in range(a.skew_rounds)]
        # A round may miss the bar only by as long as the machine was seen
        # paused in it (the start of every host waits at real-time priority,
        # so only a stopped vCPU or a long kernel path holds it up).
        for skew, paused in skews:
            assert skew < MAX_SKEW_US + paused, (
                f"start skew {skew:.1f} us >= {MAX_SKEW_US:.0f} us + "
                f"{paused:.1f} us of witnessed machine pauses")
            if skew >= MAX_SKEW_US:
                print(f"start skew {skew:.1f} us allowed by {paused:.1f} us "
                      "of witnessed machine pauses", flush=True)
        if a.skew_only:
            print("PASS (skew only)")
            return
        check_ab_phases_line_up(blkperf, fleet, target)
        check_watch_and_split(blkperf, fleet, target)
        check_rearm_makes_no_duplicate(blkperf, fleet, target)

        lost = fleet.hosts[5]
        rc, report = run_fleet(
            blkperf, fleet, target,
            ["--run_id=e2e-loss", "--on_host_loss=continue", "--retries=1",
             "--call_timeout=2s", "--runtime=8s"], kill_host=lost)
        assert rc == 3, f"exit {rc}"
        assert report["outcome"] == "partial", report["outcome"]
        excluded = [e["address"] for e in report["excluded"]]
        assert excluded == [lost.proxy_address], excluded
        assert len(report["hosts"]) == 7
        check_merge(report)

        # A host that never arms (stopped) and --min_hosts=100%: nothing
        # starts, every armed host is released at once.
        live = [h for h in fleet.hosts if h is not lost]
        stuck = live[-1]
        stuck.pause()
        rc, report = run_fleet(
            blkperf, fleet, target,
            ["--run_id=e2e-quorum", "--arm_timeout=3s", "--call_timeout=1s",
             "--retries=0", "--start_margin=1s", "--lease=6s"])
        assert rc == 1 and report["outcome"] == "not_started", (rc, report["outcome"])
        assert "quorum not met" in report["abort_reason"], report["abort_reason"]
        for h in live[:-1]:
            state, _ = run_states(blkperf, h, "e2e-quorum")
            assert state == "WORKLOAD_STATE_ABORTED", (h.name, state)

        # The orchestrator killed after Arm (waiting for the stuck host):
        # the armed hosts release themselves when their lease ends.
        args = [blkperf, "fleet", "run", f"--hosts={fleet.hosts_flag()}",
                f"--target={target}", "--run_id=e2e-killed", "--api_json",
                "--arm_timeout=3s", "--start_margin=1s", "--lease=6s",
                *CLIENT_TLS]
        orchestrator = subprocess.Popen(args, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        time.sleep(2)
        orchestrator.kill()
        orchestrator.wait()
        armed = [run_states(blkperf, h, "e2e-killed") for h in live[:-1]]
        assert all(s == "WORKLOAD_STATE_ARMED" for s, _ in armed), armed
        time.sleep(5)
        for h in live[:-1]:
            state, reason = run_states(blkperf, h, "e2e-killed")
            assert state == "WORKLOAD_STATE_ABORTED", (h.name, state)
            assert "lease" in reason, (h.name, reason)

        # Quorum met without the dead and the stuck host: a partial run
        # naming both.
        rc, report = run_fleet(
            blkperf, fleet, target,
            ["--run_id=e2e-quorum-met", "--min_hosts=6", "--arm_timeout=3s",
             "--call_timeout=1s", "--retries=0", "--start_margin=1s",
             "--lease=6s", "--runtime=2s"])
        assert rc == 3 and report["outcome"] == "partial", (rc, report["outcome"], report["abort_reason"], report["excluded"])
        assert sorted(e["address"] for e in report["excluded"]) == sorted(
            [lost.proxy_address, stuck.proxy_address]), report["excluded"]
        assert len(report["hosts"]) == 6
        check_merge(report)

        # A host killed mid-run with --on_host_loss=abort: every other host
        # is stopped (ABORTED) and the reason names the lost one.
        victim = live[0]
        rc, report = run_fleet(
            blkperf, fleet, target,
            ["--run_id=e2e-abort", "--min_hosts=5", "--arm_timeout=3s",
             "--call_timeout=2s", "--retries=1", "--start_margin=1s",
             "--lease=6s", "--runtime=8s", "--on_host_loss=abort"],
            kill_host=victim)
        assert rc == 1 and report["outcome"] == "aborted", (rc, report["outcome"])
        assert victim.proxy_address in report["abort_reason"], report["abort_reason"]
        for h in live[1:-1]:
            state, reason = run_states(blkperf, h, "e2e-abort")
            assert state == "WORKLOAD_STATE_ABORTED", (h.name, state)
            assert victim.proxy_address in reason, (h.name, reason)
        stuck.resume()
    print("PASS")


if __name__ == "__main__":
    main()
