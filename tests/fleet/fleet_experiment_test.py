#!/usr/bin/env python3
"""Issue 39's fleet proofs against real daemons (tests/fleet harness; root):

The target is a loop device this test sets up over its own 16 MiB file,
read with direct I/O; the deliberate differences are block-I/O throttles
(blk-throttle cgroups on that device), so they hold whatever else loads
the machine's CPUs.

1. `blkperf fleet run --vary=rate_iops=1000,1250` on 8 hosts, one of them
   ("held") in a cgroup that reads the device at most 500 times a second,
   so it reaches neither rate: every arm of every round is one fleet run
   released at one instant on every host, in the same block order
   everywhere; the fleet's ratio (hosts as the unit) is within 0.03 of 1.25,
   its verdict "faster" (the median over
   hosts is not moved by the held one); the other hosts' verdicts follow the rule on
   their own intervals and none is "slower" (rounds other processes starve
   widen a host's interval, and move its ratio, within 0.15 of 1.25); the held host, ratio
   near 1, is an outlier, and any other outlier lies beyond the margin.
   Each host's /metrics labels the arm-rounds' workloads with their arm
   (`arm="rate_iops=1000"`, `arm="rate_iops=1250"`), beside their run ids.
   `--ab=none,limits` is `--vary=split=none,limits`: a fleet experiment of
   split arms, run in rounds.
2. `blkperf fleet run --cohort_by=label:kernel` on the 8 hosts, 3 of them
   ("canary") in a cgroup that reads the device at most 300 times a
   second. The comparison names the canary cohort "slower" against the
   stable one (--cohort_baseline) with the interval wholly below 1, and
   --fail_on=slower exits 4; the text table says the same.

  fleet_experiment_test.py --blkperfd=PATH --blkperf=PATH --harness_dir=DIR
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request


def read_iops_cgroup(name, device, iops):
    """A cgroup whose tasks read `device` (a block device path) at most
    `iops` times a second (blk-throttle: v1 blkio.throttle.read_iops_device
    or v2 io.max); returns (its cgroup.procs path, cleanup)."""
    rdev = os.stat(device).st_rdev
    dev = f"{os.major(rdev)}:{os.minor(rdev)}"
    if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
        with open("/sys/fs/cgroup/cgroup.subtree_control", "a") as f:
            f.write("+io")
        path = f"/sys/fs/cgroup/{name}"
        os.mkdir(path)
        with open(f"{path}/io.max", "w") as f:
            f.write(f"{dev} riops={iops}")
    else:
        path = f"/sys/fs/cgroup/blkio/{name}"
        os.mkdir(path)
        with open(f"{path}/blkio.throttle.read_iops_device", "w") as f:
            f.write(f"{dev} {iops}")

    def cleanup():
        for _ in range(100):
            try:
                os.rmdir(path)
                return
            except OSError:
                time.sleep(0.1)
        print(f"cgroup {path} left behind", file=sys.stderr)
    return f"{path}/cgroup.procs", cleanup


def move(procs, hosts):
    for h in hosts:
        with open(procs, "w") as f:
            f.write(str(h.pid))


def run(args, timeout=120):
    print("+ " + " ".join(args), flush=True)
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    sys.stderr.write(p.stderr)
    return p.returncode, p.stdout


def check_fleet_experiment(blkperf, fleet, target, held):
    hosts = fleet.hosts
    rc, out = run([blkperf, "fleet", "run",
                   "--hosts=" + ",".join(h.grpc_address for h in hosts),
                   f"--target={target}", "--qd=1", "--bs=4k",
                   "--vary=rate_iops=1000,1250", "--rounds=10", "--round=400ms",
                   "--experiment_seed=7", "--start_margin=200ms",
                   "--interval=200ms", "--run_id=i39-exp", "--json"])
    assert rc == 0, f"exit {rc}: {out}"
    e = json.loads(out)["experiment"]
    assert e["unit"] == "host" and e["rounds"] == 10, e
    assert len(e["order"]) == 10 and set(e["order"]) <= {"AB", "BA"}, e["order"]
    assert [h["address"] for h in e["hosts"]] == [h.grpc_address for h in hosts]
    verdicts, ratios = [], {}
    for h in e["hosts"]:
        base, arm = h["arms"]
        assert base["baseline"] and len(base["samples"]) == 10, base
        assert len(arm["samples"]) == 10, arm
        if h["address"] == held.grpc_address:
            # Throttled to 500 reads a second it reaches neither rate.
            assert base["iops"]["median"] < 550, base["iops"]
            held_ratio = arm["iops"]["ratio"]
            assert abs(held_ratio - 1) < 0.1, arm["iops"]
            continue
        # Rounds other processes starve move a host's own median a little
        # on this shared machine (1.336 with 0.89-1.63 once).
        assert abs(arm["iops"]["ratio"] - 1.25) < 0.15, arm["iops"]
        verdicts.append(arm["verdict"])
        lo, hi = arm["iops"]["ci"]
        want = ("faster" if lo > 1.02 else "slower" if hi < 0.98 else
                "equivalent" if lo >= 0.98 and hi <= 1.02 else "inconclusive")
        assert arm["verdict"] == want, (h["address"], arm["iops"])
        ratios[h["address"]] = arm["iops"]["ratio"]
    # A host's own interval is over its 10 rounds: on a loaded 2-CPU
    # machine rounds other processes starve widen it (0.99-1.26 once, 6 of
    # 7 hosts inconclusive in one run), so each host's verdict is checked
    # against the rule on its own interval, and none may say slower.
    assert "slower" not in verdicts, verdicts
    fleet_arm = e["fleet"]["arms"][1]
    iops = fleet_arm["iops"]
    assert len(iops["host_ratios"]) == 8, iops
    assert fleet_arm["verdict"] == "faster", fleet_arm
    # Under other load a host can fall short of the higher rate in a round
    # (1.207 on two hosts once, with 2000/2500): within 0.03, not exact.
    assert abs(iops["ratio"] - 1.25) < 0.03, iops
    # The held one lies 20 % off the others: far beyond 3.5 modified
    # z-scores and the margin. Another host may be named only if its ratio
    # lies beyond the margin too (one that starved rounds moved).
    assert held.grpc_address in fleet_arm["outliers"], fleet_arm
    for other in set(fleet_arm["outliers"]) - {held.grpc_address}:
        assert abs(ratios[other] / iops["ratio"] - 1) > e["margin"], (other, ratios)
    # Recomputed from the raw samples: each host's ratio is the median of
    # its per-round ratios (geometric mean of the middle two of 10).
    for h in e["hosts"]:
        a, b = h["arms"][0]["samples"], h["arms"][1]["samples"]
        r = sorted(y / x for x, y in zip(a, b))
        assert abs((r[4] * r[5]) ** 0.5 - h["arms"][1]["iops"]["ratio"]) < 1e-6
    # Every arm of every round ran as one fleet run on every host: each host
    # keeps the same arm-rounds' workloads (its latest finished ones), one
    # each, their run ids saying which.
    expected = {f"i39-exp-r{r}-{arm}" for r in range(1, 11) for arm in "AB"}
    kept = []
    for h in hosts:
        rc, listing = run([blkperf, f"--server={h.grpc_address}", "list",
                           "--api_json"])
        ids = [w.get("run_id") for w in json.loads(listing).get("workloads", [])]
        assert len(ids) == len(set(ids)) and set(ids) <= expected, ids
        assert len(ids) >= 10, ids
        kept.append(set(ids))
    assert all(k == kept[0] for k in kept), kept
    # Every host's metrics carry each arm-round's arm (a real scrape).
    for h in hosts:
        with urllib.request.urlopen(f"http://{h.metrics_address}/metrics",
                                    timeout=10) as r:
            text = r.read().decode()
        for arm, letter in (("rate_iops=1000", "A"), ("rate_iops=1250", "B")):
            labelled = re.findall(
                r'^blkperf_workload_info\{workload="w\d+",run_id="i39-exp-r\d+-'
                + letter + '",arm="' + re.escape(arm) + '"', text, re.M)
            assert labelled, (h.metrics_address, arm)
    print(f"fleet experiment: fleet ratio {iops['ratio']:.3f} "
          f"[{iops['ci'][0]:.3f}, {iops['ci'][1]:.3f}] faster; outlier "
          f"{held.grpc_address}", flush=True)


def check_ab_shorthand(blkperf, fleet, target):
    """--ab=none,limits on a fleet: the experiment --vary=split=none,limits
    (split arms, in rounds: each arm-round one fleet run)."""
    rc, out = run([blkperf, "fleet", "run",
                   "--hosts=" + ",".join(h.grpc_address for h in fleet.hosts),
                   f"--target={target}", "--qd=1", "--bs=4k",
                   "--ab=none,limits", "--rounds=2", "--ab_slice=200ms",
                   "--start_margin=200ms", "--interval=200ms",
                   "--run_id=i39-ab", "--json"])
    assert rc == 0, f"exit {rc}: {out}"
    e = json.loads(out)["experiment"]
    assert e["field"] == "split" and e["round_seconds"] == 0.2, e
    assert [a["name"] for a in e["fleet"]["arms"]] == ["split=none",
                                                       "split=limits"], e
    for h in e["hosts"]:
        assert [len(a["samples"]) for a in h["arms"]] == [2, 2], h


def check_cohorts(blkperf, fleet, target, canaries):
    sd = os.path.join(fleet.dir, "cohorts.json")
    with open(sd, "w") as f:
        json.dump([{"targets": [h.metrics_address],
                    "labels": {"blkperf_grpc": h.grpc_address.rsplit(":", 1)[1],
                               "kernel": "canary" if h in canaries else "stable"}}
                   for h in fleet.hosts], f)
    rc, out = run([blkperf, "fleet", "run", f"--hosts={sd}",
                   f"--target={target}", "--qd=1", "--bs=4k",
                   "--runtime=2s", "--start_margin=200ms", "--interval=500ms",
                   "--cohort_by=label:kernel", "--cohort_baseline=stable",
                   "--fail_on=slower", "--json"])
    assert rc == 4, f"exit {rc} (want 4: a slower cohort under --fail_on=slower)"
    report = json.loads(out)
    c = report["cohort_comparison"]
    assert c["by"] == "label:kernel" and c["unit"] == "host", c
    base, canary = c["cohorts"]
    assert base["value"] == "stable" and base["baseline"], base
    assert canary["value"] == "canary", canary
    assert sorted(canary["hosts"]) == sorted(h.grpc_address for h in canaries)
    assert len(canary["iops"]["samples"]) == 3, canary
    assert canary["verdict"] == "slower", canary["iops"]
    assert canary["iops"]["ci"][1] < 0.98, canary["iops"]
    assert canary["iops"]["p_value"] <= 0.1, canary["iops"]
    print(f"cohorts: canary/stable IOPS {canary['iops']['ratio']:.3f} "
          f"[{canary['iops']['ci'][0]:.3f}, {canary['iops']['ci'][1]:.3f}] "
          f"slower, Mann-Whitney p {canary['iops']['p_value']:.3f}", flush=True)
    # The text table says the same.
    rc, text = run([blkperf, "fleet", "run", f"--hosts={sd}",
                    f"--target={target}", "--qd=1", "--bs=4k",
                    "--runtime=1s", "--start_margin=200ms", "--interval=500ms",
                    "--cohort_by=label:kernel", "--cohort_baseline=stable",
                    "--quiet"])
    assert rc == 0, rc
    assert "canary (3 hosts) vs stable: slower" in text, text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--blkperfd", required=True)
    parser.add_argument("--blkperf", required=True)
    parser.add_argument("--harness_dir", required=True)
    a = parser.parse_args()
    sys.path.insert(0, os.path.abspath(a.harness_dir))
    from fleet_harness import Fleet  # pylint: disable=import-outside-toplevel
    blkperf = os.path.abspath(a.blkperf)
    workdir = tempfile.mkdtemp(prefix="fleet-experiment-",
                               dir=os.environ.get("TEST_TMPDIR"))
    backing = os.path.join(workdir, "loop.img")
    with open(backing, "wb") as out:
        out.write(b"\0" * (16 << 20))
    target = subprocess.run(["losetup", "-f", "--show", backing],
                            capture_output=True, text=True,
                            check=True).stdout.strip()
    cleanups = [lambda: subprocess.run(["losetup", "-d", target], check=False),
                lambda: shutil.rmtree(workdir, True)]
    started = time.monotonic()
    try:
        flags = lambda host: [f"--allow_read_paths={host.fleet.dir}/,{target}"]
        with Fleet(blkperfd=os.path.abspath(a.blkperfd), hosts=8,
                   daemon_flags=flags) as fleet:
            held = fleet.hosts[7]
            canaries = fleet.hosts[5:]
            held_procs, cleanup = read_iops_cgroup(
                f"bpf-{fleet.suffix}-held", target, 500)
            cleanups.insert(0, cleanup)
            canary_procs, cleanup = read_iops_cgroup(
                f"bpf-{fleet.suffix}-canary", target, 300)
            cleanups.insert(0, cleanup)
            cleanups.insert(0, fleet.close)  # the cgroups empty first
            move(held_procs, [held])
            check_fleet_experiment(blkperf, fleet, target, held)
            check_ab_shorthand(blkperf, fleet, target)
            move(canary_procs, canaries)
            check_cohorts(blkperf, fleet, target, canaries)
    finally:
        for cleanup in cleanups:
            cleanup()
    print(f"PASS in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
