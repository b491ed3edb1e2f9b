#!/usr/bin/env python3
"""Tests of sliced_pair.py: the window arithmetic, and (root) two real arms
taking turns: an arm makes no progress in the other's turns, the turns do
not overlap and share the time equally.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sliced_pair import running_ns, window_iops  # noqa: E402

# An arm: prints its busy loop's iteration count, with CLOCK_MONOTONIC, as
# often as it can (about every millisecond) until SIGTERM.
COUNTER = r"""
import signal, sys, time
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
n = 0
last = time.monotonic_ns()
while True:
    n += 1
    now = time.monotonic_ns()
    if now - last >= 1_000_000:
        print(n, now, flush=True)
        last = now
"""


class WindowTest(unittest.TestCase):
    def test_running_time_is_clipped_to_the_window(self):
        running = [[0, 100], [200, 300], [400, 500]]
        self.assertEqual(running_ns(running, 0, 500), 300)
        self.assertEqual(running_ns(running, 50, 450), 50 + 100 + 50)
        self.assertEqual(running_ns(running, 100, 200), 0)

    def test_iops_are_per_second_of_running(self):
        # 1,000 I/Os in a 2 s window in which the arm ran 0.5 s.
        running = [[0, 250_000_000], [1_000_000_000, 1_250_000_000]]
        self.assertAlmostEqual(
            window_iops(1000, running, 0, 2_000_000_000), 2000.0)
        with self.assertRaises(ValueError):
            window_iops(1, running, 300_000_000, 900_000_000)


def make_freezer(name):
    """A freezer cgroup of our own: (dirs, "FILE FROZEN THAWED")."""
    v1 = "/sys/fs/cgroup/freezer"
    if os.path.isdir(v1):
        d = os.path.join(v1, name)
        os.mkdir(d)
        return d, f"{d}/freezer.state FROZEN THAWED"
    d = os.path.join("/sys/fs/cgroup", name)
    os.mkdir(d)
    return d, f"{d}/cgroup.freeze 1 0"


@unittest.skipUnless(os.geteuid() == 0, "needs root (cgroups, SCHED_FIFO)")
class TurnsTest(unittest.TestCase):
    def test_arms_take_turns(self):
        dirs = [make_freezer(f"sliced-pair-test-{os.getpid()}-{a}")
                for a in "AB"]
        out = tempfile.mktemp(prefix="sliced-pair-test-")
        try:
            args = [sys.executable, os.path.join(HERE, "sliced_pair.py"),
                    "run", "--slice", "0.1", "--seconds", "2", "--out", out]
            for arm, (d, freezer) in zip("AB", dirs):
                args += ["--arm", arm, d, freezer,
                         f"{sys.executable} -c '{COUNTER}'"]
            subprocess.run(args, check=True, timeout=60)
            run = json.load(open(out))
        finally:
            for d, _ in dirs:
                os.rmdir(d)
            for f in (out, out + ".A.err", out + ".B.err"):
                if os.path.exists(f):
                    os.remove(f)
        a, b = run["A"], run["B"]
        self.assertEqual(a["exit"], 0)
        self.assertEqual(b["exit"], 0)
        # Alternating turns of 0.1 s, never both at once (but the last
        # stretch, when both are let go to exit).
        turns = sorted([(s, e, "A") for s, e in a["running"][:-1]] +
                       [(s, e, "B") for s, e in b["running"][:-1]])
        self.assertGreaterEqual(len(turns), 18)
        for (s1, e1, n1), (s2, _, n2) in zip(turns, turns[1:]):
            self.assertNotEqual(n1, n2)
            self.assertLessEqual(e1, s2)
            self.assertAlmostEqual((e1 - s1) / 1e9, 0.1, delta=0.02)
        total = [running_ns(r["running"][:-1], 0, 2**62) for r in (a, b)]
        self.assertAlmostEqual(total[0] / total[1], 1.0, delta=0.05)
        # An arm's count does not move while it is frozen: every line it
        # printed once the turns began (each arm ran a moment between its
        # start and its first freeze) came inside one of its own turns (1 ms
        # of slack for the freeze to take hold).
        first_turn = turns[0][0]
        for r in (a, b):
            turns_of_arm = r["running"]
            stamps = [int(text.split()[1]) for _, text in r["lines"]]
            self.assertGreater(len(stamps), 500)
            for stamp in (t for t in stamps if t >= first_turn):
                self.assertTrue(
                    any(s <= stamp <= e + 1_000_000 for s, e in turns_of_arm),
                    f"printed at {stamp} outside its turns")


if __name__ == "__main__":
    unittest.main()
