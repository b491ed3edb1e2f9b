#!/usr/bin/env python3
"""Self-test of the fleet harness (fleet_harness.py) with real daemons.

Starts 8 `blkperfd serve` daemons, each in its own network and time
namespace behind a delay proxy, and checks that

  * each answers `blkperf caps` through its proxy;
  * the proxy adds the delay asked for: HTTP/2 PING round trips to the
    daemon through the proxy take 2*delay +- 2*jitter, direct ones do not;
  * the hosts file and the file_sd file name every host, and the metrics
    targets and control addresses in the file_sd file answer;
  * two daemons running unlike workloads export the identical latency
    bucket (`le`) set, which the fleet dashboards' merged quantiles need;
  * the daemons' CLOCK_MONOTONIC really differ by the offsets (the kernel's
    /proc/<pid>/timens_offsets, and the clock read inside each namespace
    bracketed by two reads of ours);
  * close() leaves no namespace, link, process or file of the fleet behind,
    also when start() fails and when the process using it gets SIGTERM;
    after a SIGKILL the proxies exit with it and sweep_dead_fleets()
    removes the rest.
"""
import argparse
import json
import os
import re
import signal
import socket
import statistics
import struct
import subprocess
import sys
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fleet_harness  # noqa: E402

HOSTS = 8
DELAY_MS = 20.0
JITTER_MS = 4.0
PINGS_PER_HOST = 3
# Slack on a loaded, shared 2-CPU machine: added time is never negative, so
# the lower bound is tight and the upper bound generous.
UPPER_SLACK_MS = 60.0

ARGS = None

H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
FRAME_SETTINGS, FRAME_PING, FRAME_GOAWAY = 4, 6, 7
FLAG_ACK = 1


def frame(kind, flags, payload=b"", stream=0):
    return (struct.pack(">I", len(payload))[1:] + bytes([kind, flags])
            + struct.pack(">I", stream) + payload)


def read_frame(sock):
    header = recv_exactly(sock, 9)
    length = int.from_bytes(header[:3], "big")
    return header[3], header[4], recv_exactly(sock, length)


def recv_exactly(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("connection closed mid-frame")
        data += chunk
    return data


def ping_rtt_ms(address):
    """One HTTP/2 PING round trip to a gRPC server, on a new connection."""
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(H2_PREFACE + frame(FRAME_SETTINGS, 0))
        while True:  # the server's own SETTINGS
            kind, flags, _ = read_frame(s)
            if kind == FRAME_SETTINGS and not flags & FLAG_ACK:
                break
        token = os.urandom(8)
        s.sendall(frame(FRAME_SETTINGS, FLAG_ACK))
        started = time.monotonic()
        s.sendall(frame(FRAME_PING, 0, token))
        while True:
            kind, flags, payload = read_frame(s)
            if kind == FRAME_GOAWAY:
                raise ConnectionError(f"GOAWAY from {address}: {payload!r}")
            if kind == FRAME_PING and flags & FLAG_ACK and payload == token:
                return (time.monotonic() - started) * 1e3


class FleetHarnessTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fleet = fleet_harness.Fleet(ARGS.blkperfd, HOSTS,
                                        delay_ms=DELAY_MS, jitter_ms=JITTER_MS,
                                        spread_cpus=True)
        cls.fleet.start()

    @classmethod
    def tearDownClass(cls):
        cls.fleet.close()
        left = cls.fleet.leftovers()
        assert not left, f"fleet left behind: {left}"

    def test_each_daemon_answers_caps_through_its_proxy(self):
        self.assertEqual(len(self.fleet.hosts), HOSTS)
        for h in self.fleet.hosts:
            out = subprocess.run(
                [ARGS.blkperf, f"--server={h.proxy_address}", "caps"],
                capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, f"{h.name}: {out.stderr}")
            self.assertIn("io_uring", out.stdout, h.name)

    def test_spread_cpus_confines_each_daemon_to_one_cpu_in_turn(self):
        cpus = sorted(os.sched_getaffinity(0))
        for h in self.fleet.hosts:
            with open(f"/proc/{h.process.pid}/status") as status:
                allowed = [line.split()[1] for line in status
                           if line.startswith("Cpus_allowed_list:")]
            self.assertEqual(allowed, [str(cpus[h.index % len(cpus)])], h.name)

    def test_inventory_files_name_every_host(self):
        hosts_file = os.path.join(self.fleet.dir, "hosts.txt")
        self.fleet.write_hosts_file(hosts_file)
        with open(hosts_file) as f:
            self.assertEqual(f.read().split(),
                             [h.proxy_address for h in self.fleet.hosts])
        file_sd = os.path.join(self.fleet.dir, "fleet.json")
        self.fleet.write_file_sd(file_sd)
        with open(file_sd) as f:
            groups = json.load(f)
        self.assertEqual(len(groups), HOSTS)
        for h, g in zip(self.fleet.hosts, groups):
            # The metrics target is scrapeable from the root namespace...
            with urllib.request.urlopen(f"http://{g['targets'][0]}/metrics",
                                        timeout=10) as r:
                self.assertIn("blkperf_build_info", r.read().decode(), h.name)
            # ...and the control address it implies is the daemon's.
            control = f"{h.ip}:{g['labels']['blkperf_grpc']}"
            out = subprocess.run([ARGS.blkperf, f"--server={control}", "health"],
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, f"{h.name}: {out.stderr}")

    def test_two_daemons_export_the_identical_le_set(self):
        # What makes the dashboards' fleet latency (histogram_quantile over
        # sum by (le) across hosts) valid: workloads as different as can be,
        # on two daemons, export the same buckets.
        runs = [(self.fleet.hosts[1], ["--bs=4k", "--qd=1"]),
                (self.fleet.hosts[2], ["--bs=256k", "--qd=8", "--op=read"])]
        le_sets = []
        for h, flags in runs:
            out = subprocess.run(
                [ARGS.blkperf, f"--server={h.grpc_address}", "--quiet", "run",
                 f"--target={h.target_path}", "--runtime=1s", *flags],
                capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, f"{h.name}: {out.stderr}")
            with urllib.request.urlopen(f"http://{h.metrics_address}/metrics",
                                        timeout=10) as r:
                les = re.findall(
                    r'^blkperf_io_latency_seconds_bucket\{[^}]*le="([^"]+)"',
                    r.read().decode(), re.MULTILINE)
            self.assertGreater(len(les), 20, h.name)
            self.assertEqual(les[-1], "+Inf", h.name)
            le_sets.append(les)
        self.assertEqual(le_sets[0], le_sets[1])

    def test_proxy_adds_the_delay(self):
        low = 2 * (DELAY_MS - JITTER_MS)
        high = 2 * (DELAY_MS + JITTER_MS) + UPPER_SLACK_MS
        for h in self.fleet.hosts:
            proxied = [ping_rtt_ms(h.proxy_address)
                       for _ in range(PINGS_PER_HOST)]
            direct = [ping_rtt_ms(h.grpc_address)
                      for _ in range(PINGS_PER_HOST)]
            print(f"{h.name}: RTT via proxy {proxied} ms, direct {direct} ms")
            self.assertGreaterEqual(min(proxied), low, h.name)
            self.assertLessEqual(statistics.median(proxied), high, h.name)
            self.assertLess(statistics.median(direct), DELAY_MS, h.name)

    def test_monotonic_clocks_differ_by_the_offsets(self):
        offsets = [h.monotonic_offset_s for h in self.fleet.hosts]
        self.assertEqual(len(set(offsets)), HOSTS)
        self.assertGreaterEqual(min(abs(a - b) for i, a in enumerate(offsets)
                                    for b in offsets[i + 1:]), 3600)
        for h in self.fleet.hosts:
            self.assertEqual(h.timens_offsets(), h.monotonic_offset_s, h.name)
            before = time.clock_gettime(time.CLOCK_MONOTONIC)
            theirs = h.monotonic_now()
            after = time.clock_gettime(time.CLOCK_MONOTONIC)
            shifted = theirs - h.monotonic_offset_s
            self.assertTrue(before <= shifted <= after,
                            f"{h.name}: {theirs} - {h.monotonic_offset_s} "
                            f"not in [{before}, {after}]")


class CleanupTest(unittest.TestCase):
    def test_failed_start_leaves_nothing(self):
        fleet = fleet_harness.Fleet(ARGS.blkperfd, 2,
                                    daemon_flags=["--no_such_flag_xyz"],
                                    start_timeout_s=20)
        with self.assertRaisesRegex(RuntimeError, "exited"):
            fleet.start()
        self.assertEqual(fleet.leftovers(), [])

    def start_child_fleet(self):
        """A process holding a one-host fleet; returns it, the fleet's
        suffix, daemon pid, temp dir and proxy pid."""
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, ARGS.blkperfd],
            stdout=subprocess.PIPE, text=True,
            cwd=os.path.dirname(os.path.abspath(__file__)))
        self.addCleanup(child.stdout.close)
        line = child.stdout.readline().split()
        self.assertEqual(len(line), 4, f"child printed {line}")
        return (child, *line)

    def test_sigterm_leaves_nothing(self):
        child, suffix, pid, fleet_dir, _ = self.start_child_fleet()
        self.assertTrue(os.path.exists(f"/run/netns/bpf-{suffix}-0"))
        child.send_signal(signal.SIGTERM)
        self.assertEqual(child.wait(60), 128 + signal.SIGTERM)
        self.assertNotIn(f"bpf-{suffix}",
                         subprocess.run(["ip", "-o", "link"], text=True,
                                        capture_output=True).stdout)
        self.assertFalse(os.path.exists(f"/run/netns/bpf-{suffix}-0"))
        self.assertFalse(os.path.exists(fleet_dir))
        with self.assertRaises(ProcessLookupError):
            os.kill(int(pid), 0)  # reaped by the child before it exited

    def test_sigkill_leftovers_are_swept(self):
        child, suffix, daemon_pid, fleet_dir, proxy_pid = (
            self.start_child_fleet())
        child.kill()  # no cleanup runs
        child.wait(30)
        # The proxy follows its parent (PR_SET_PDEATHSIG)...
        deadline = time.monotonic() + 10
        while os.path.exists(f"/proc/{proxy_pid}") and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertFalse(os.path.exists(f"/proc/{proxy_pid}"))
        # ...and the namespace, links and daemon are swept.
        self.assertTrue(os.path.exists(f"/run/netns/bpf-{suffix}-0"))
        self.assertIn(suffix, fleet_harness.sweep_dead_fleets())
        self.assertFalse(os.path.exists(f"/run/netns/bpf-{suffix}-0"))
        self.assertNotIn(f"bpf-{suffix}",
                         subprocess.run(["ip", "-o", "link"], text=True,
                                        capture_output=True).stdout)
        self.assertFalse(os.path.exists(fleet_dir))
        deadline = time.monotonic() + 10
        while os.path.exists(f"/proc/{daemon_pid}") and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertFalse(os.path.exists(f"/proc/{daemon_pid}"))


CHILD = """
import sys, time
import fleet_harness
f = fleet_harness.Fleet(sys.argv[1], 1)
f.start()
print(f.suffix, f.hosts[0].pid, f.dir, f.hosts[0].proxy.pid, flush=True)
time.sleep(120)
"""


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--blkperfd", required=True)
    parser.add_argument("--blkperf", required=True)
    ARGS, rest = parser.parse_known_args()
    ARGS.blkperfd = os.path.abspath(ARGS.blkperfd)
    ARGS.blkperf = os.path.abspath(ARGS.blkperf)
    if os.geteuid() != 0:
        print("fleet_harness_test needs root (ip netns, unshare --time)")
        return 1
    unittest.main(argv=[sys.argv[0], "-v", *rest])


if __name__ == "__main__":
    sys.exit(main())
