#!/usr/bin/env python3
"""Tests of sliced_pair.py: the window arithmetic, which arm a profile's
samples count for, and (root) two real arms
taking turns: an arm makes no progress in the other's turns, the turns do
not overlap and share the time equally; the launcher puts an arm in its
cgroups at the normal policy and is vforked; which mappings hold an arm's
buffers, and (root) how contiguous their pages are.
"""
import json
import mmap
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sliced_pair import (Arm, arm_counts, buffer_layout,  # noqa: E402
                         buffer_mappings, page_adjacency, running_ns,
                         script_samples, window_iops)

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


# `perf script -F comm,pid,tid,time,ip,dso --ns` lines (times in ns from 0):
# A is blkperfd (pid 100), B t/io_uring (pid 200); A runs in [0, 100) and
# [200, 300), B in [100, 200).
SCRIPT = """\
    blkperf-sub0   100/101  0.000000010:  ffffffff81000000 ([kernel.kallsyms])
    blkperf-sub0   100/101  0.000000020:      55e000afc4b4 (/tmp/blkperfd)
         io_uring   200/202  0.000000050:  ffffffff81000000 ([kernel.kallsyms])
     iou-wrk-201   200/203  0.000000055:  ffffffff81000000 ([kernel.kallsyms])
          swapper     0/0    0.000000060:  ffffffff82242055 ([kernel.kallsyms])
     iou-wrk-101   100/102  0.000000110:  ffffffff81000000 ([kernel.kallsyms])
         io_uring   200/202  0.000000120:      7f03b42d7353 (/tmp/io_uring)
          swapper     0/0    0.000000150:  ffffffff82242055 ([kernel.kallsyms])
  blkperfd.1 main   100/100  0.000000250:  ffffffff81000000 ([kernel.kallsyms])
    blkperf-sub0   100/101  0.000000350:  ffffffff81000000 ([kernel.kallsyms])
"""
RUNS = {"A": {"pid": 100, "running": [[0, 100], [200, 300]]},
        "B": {"pid": 200, "running": [[100, 200]]}}


class ProfileTest(unittest.TestCase):
    def setUp(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt",
                                         delete=False) as f:
            f.write(SCRIPT)
        self.addCleanup(os.unlink, f.name)
        self.samples = script_samples(f.name)
        self.times = [s[0] for s in self.samples]

    def test_samples_carry_process_and_kernel_or_user(self):
        self.assertEqual(len(self.samples), 10)
        self.assertEqual(self.samples[0], (10, "blkperf-sub0", 100, True))
        self.assertEqual(self.samples[1], (20, "blkperf-sub0", 100, False))
        self.assertEqual(self.samples[8], (250, "blkperfd.1 main", 100, True))

    def test_a_sample_counts_for_its_own_process_in_either_turn(self):
        # A's worker ran on into B's turn (at 110), B's into A's (at 55):
        # each counts for its own arm. Idle moments count for the arm
        # whose turn they fell in, and so do A's control threads (at 250);
        # a sample past the window (350) counts for none.
        self.assertEqual(
            arm_counts(self.samples, self.times, RUNS, "A", (0, 300)),
            {"kernel": 1, "user": 1, "io-wq": 1, "else": 2})
        self.assertEqual(
            arm_counts(self.samples, self.times, RUNS, "B", (0, 300)),
            {"kernel": 1, "user": 1, "io-wq": 1, "else": 1})

    def test_only_the_window_counts(self):
        self.assertEqual(
            arm_counts(self.samples, self.times, RUNS, "A", (100, 400)),
            {"kernel": 1, "user": 0, "io-wq": 1, "else": 1})


# /proc/PID/maps of an arm with 32 MiB of buffers: blkperf's one mapping,
# t/io_uring's 32 glibc mmaps of 1 MiB + 8 KiB merged into one, a thread
# stack, a file, a guard area, a malloc heap and hugetlb buffers; then one
# under 1 MiB.
MAPS = """\
7f0000000000-7f0002000000 rw-p 00000000 00:00 0 
7f1000000000-7f1002040000 rw-p 00000000 00:00 0 
7f2000000000-7f2000800000 rw-p 00000000 00:00 0 
7f3000000000-7f3002000000 rw-p 00000000 08:01 42   /data/file
7f4000000000-7f4002000000 ---p 00000000 00:00 0 
7f5000000000-7f5004000000 rw-p 00000000 00:00 0 
7f7000000000-7f7002000000 rw-p 00000000 00:11 1513439   /anon_hugepage (deleted)
"""


class LayoutTest(unittest.TestCase):
    def test_buffer_mappings_are_anonymous_writable_and_large(self):
        self.assertEqual(buffer_mappings(MAPS),
                         [(0x7f0000000000, 0x7f0002000000),
                          (0x7f1000000000, 0x7f1002040000),
                          (0x7f2000000000, 0x7f2000800000),
                          (0x7f5000000000, 0x7f5004000000),
                          (0x7f7000000000, 0x7f7002000000)])
        self.assertEqual(buffer_mappings(
            "7f6000000000-7f60000ff000 rw-p 00000000 00:00 0 \n"), [])

    def test_adjacency_counts_neighbours_either_way_among_present_pages(self):
        # 10-11-12 up, a hole, 20-19 down, then a jump.
        self.assertEqual(page_adjacency([10, 11, 12, None, 20, 19, 5]),
                         (6, 3 / 4))
        self.assertEqual(page_adjacency([7, None, 8]), (2, None))
        self.assertEqual(page_adjacency([]), (0, None))

    @unittest.skipUnless(os.geteuid() == 0, "needs root (page frames)")
    def test_layout_of_a_mapping_of_our_own(self):
        size = 40 << 20
        before = buffer_layout(os.getpid()) or {"pages": 0}
        buffers = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        try:
            # The interpreter's own heap (its 1 MiB arenas count too) moves
            # by up to a few hundred pages meanwhile, more after other tests.
            churn = 256
            found = buffer_layout(os.getpid())
            self.assertLess(found["pages"] - before["pages"], churn)  # none in yet
            for page in range(0, size, 4096):
                buffers[page] = 1
            found = buffer_layout(os.getpid())
            self.assertGreaterEqual(found["pages"] - before["pages"], size // 4096)
            self.assertLess(found["pages"] - before["pages"], size // 4096 + churn)
            self.assertGreaterEqual(found["adjacent"], 0.0)
            self.assertLessEqual(found["adjacent"], 1.0)
        finally:
            buffers.close()

    @unittest.skipUnless(os.geteuid() == 0, "needs root (page frames, hugetlb pages)")
    def test_layout_counts_a_hugetlb_mapping(self):
        # Two 2 MiB hugetlb pages of our own, the reservation put back after.
        reservation = "/proc/sys/vm/nr_hugepages"
        reserved = int(read(reservation))
        with open(reservation, "w") as f:
            f.write(str(reserved + 2))
        try:
            size = 4 << 20
            map_hugetlb = 0x40000  # not in Python 3.11's mmap module
            before = buffer_layout(os.getpid()) or {"pages": 0}
            buffers = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE |
                                mmap.MAP_ANONYMOUS | map_hugetlb)
            try:
                for page in range(0, size, 4096):
                    buffers[page] = 1
                found = buffer_layout(os.getpid())
                # Every 4 KiB part of both pages, which the heap's churn
                # (a few hundred pages at most) could not make up.
                self.assertGreaterEqual(found["pages"] - before["pages"],
                                        size // 4096)
            finally:
                buffers.close()
        finally:
            with open(reservation, "w") as f:
                f.write(str(reserved))


def read(path):
    with open(path) as f:
        return f.read()


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
            run = json.loads(read(out))
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


# An arm that prints its pid, scheduling policy and cgroups, then waits to
# be stopped.
WHERE = r"""
import os, signal, sys
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
print(os.getpid(), os.sched_getscheduler(0), open("/proc/self/cgroup").read().replace(chr(10), " "), flush=True)
while True:
    signal.pause()
"""


@unittest.skipUnless(os.geteuid() == 0, "needs root (cgroups, SCHED_FIFO)")
class LauncherTest(unittest.TestCase):
    def run_pair(self, dirs_a):
        d, freezer = make_freezer(f"sliced-pair-launch-{os.getpid()}")
        out = tempfile.mktemp(prefix="sliced-pair-test-")
        try:
            args = [sys.executable, os.path.join(HERE, "sliced_pair.py"),
                    "run", "--slice", "0.1", "--seconds", "0.4", "--out", out,
                    "--arm", "A", dirs_a(d), freezer,
                    f"{sys.executable} -c '{WHERE}'",
                    "--arm", "B", d, freezer, f"{sys.executable} -c '{WHERE}'"]
            done = subprocess.run(args, capture_output=True, text=True,
                                  timeout=60)
            err = read(out + ".A.err") if os.path.exists(out + ".A.err") else ""
            run = json.loads(read(out)) if os.path.exists(out) else None
            return done, run, err
        finally:
            os.rmdir(d)
            for f in (out, out + ".A.err", out + ".B.err"):
                if os.path.exists(f):
                    os.remove(f)

    def test_arms_run_in_their_cgroups_at_the_normal_policy(self):
        done, run, _ = self.run_pair(lambda d: d)
        self.assertEqual(done.returncode, 0, done.stderr)
        for arm in "AB":
            [(_, text)] = run[arm]["lines"]
            pid, policy, cgroups = text.split(" ", 2)
            # The launcher execs the command: the logged pid is the arm's
            # process, which a profile's samples are told apart by.
            self.assertEqual(int(pid), run[arm]["pid"])
            self.assertEqual(int(policy), os.SCHED_OTHER)
            self.assertIn(f"sliced-pair-launch-{os.getpid()}", cgroups)

    def test_a_cgroup_that_cannot_be_joined_fails_the_arm(self):
        done, _, err = self.run_pair(lambda d: "/nonexistent-cgroup-dir")
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("arm exit codes [125", done.stderr)
        self.assertIn("/nonexistent-cgroup-dir/cgroup.procs", err)

    def test_the_launcher_is_vforked(self):
        # Arm.spawn itself, with no cgroups to join and a plain file as its
        # freezer. posix_spawn's vfork shows in strace as vfork or as
        # clone/clone3 with CLONE_VM|CLONE_VFORK; a fork copies the
        # controller.
        self.assertIsNotNone(shutil.which("strace"),
                             "strace is needed (tools/setup.sh installs it)")
        trace = tempfile.mktemp(prefix="sliced-pair-strace-")
        code = ("import sys; sys.path.insert(0, %r); import sliced_pair; "
                "a = sliced_pair.Arm('A', '', %r, '/bin/true', %r); a.spawn(); "
                "sys.exit(a.process.wait())") % (HERE, f"{trace}.freezer FROZEN THAWED", trace)
        try:
            subprocess.run(["strace", "-f", "-o", trace, "-e",
                            "trace=fork,vfork,clone,clone3", sys.executable,
                            "-c", code], check=True, capture_output=True)
            calls = read(trace)
            self.assertEqual(read(trace + ".freezer"), "FROZEN")
        finally:
            for f in (trace, trace + ".A.err", trace + ".freezer"):
                if os.path.exists(f):
                    os.remove(f)
        self.assertRegex(calls, r"vfork\(|CLONE_VFORK")

if __name__ == "__main__":
    unittest.main()
