#!/usr/bin/env python3
"""Runs two benchmark arms in alternating time slices (bench/fidelity.sh
--pairing sliced).

Both arms' processes live for the whole run, each in its own cgroups
(bench/lib/arm_cgroups.sh); this controller freezes one arm's cgroup and
thaws the other's every --slice seconds, so each arm runs alone (with
whatever kernel workers serve it: a loop device's workqueue, io-wq) and
both see the machine of the same moments: this VM's speed moves within
minutes, and arms run back to back see different machines. It logs when
each arm ran (CLOCK_MONOTONIC) and, for each line an arm prints, when it
came, so that a caller can divide what an arm did in a window by the time
it ran in that window (window_iops below).

  sliced_pair.py run --slice 0.1 --seconds 6 --stop TERM --out run.json \\
      --arm A "DIRS" "FREEZE_FILE FROZEN THAWED" "CMD" \\
      --arm B "DIRS" "FREEZE_FILE FROZEN THAWED" "CMD"
  sliced_pair.py iops --tool blkperf|tio --arm A run.json
      # the arm's IOPS per second it ran (blkperf: and its device
      # requests per SQE, when the report has them)
  sliced_pair.py profile --script perf.txt --tool_a blkperf --tool_b tio \\
      run0.json run1.json ...
      # each arm's CPU per I/O in its measured windows (see profile())
  sliced_pair.py layout --arm A run.json
      # with run --layout: the pages in the arm's buffer mappings, and the
      # share of them physically next to the page before (buffer_layout)

DIRS: the arm's cgroup directories (space-separated; a launcher joins each,
then execs CMD; the arm's freezer cgroup is frozen right after the launcher
starts, so CMD starts up in the arm's turns, or at most a moment before).
CMD is split with shlex; its
stdout goes line by line into run.json, its stderr to OUT.ARM.err. After
--seconds of alternation both arms are frozen and sent --stop (TERM, INT),
then thawed one at a time to exit; each one's last stretch (a few ms)
counts as its running time. The controller runs at SCHED_FIFO 2 on --controller_cpu so
its slices are on time; it needs root.
"""
import argparse
import bisect
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time

CHRT = "/usr/bin/chrt"
# Benchmarks keep no results in the user's store (docs/results.md).
os.environ.setdefault("BLKPERF_RESULTS_DB", "none")


def now_ns():
    return time.monotonic_ns()


class Arm:
    def __init__(self, name, dirs, freezer, command, out_prefix):
        self.name = name
        self.dirs = dirs.split()
        self.freeze_file, self.frozen, self.thawed = freezer.split()
        self.command = shlex.split(command)
        self.lines = []       # [monotonic ns, text]
        self.running = []     # [start ns, end ns]
        self.err = open(f"{out_prefix}.{name}.err", "w")
        self.process = None
        self.reader = None
        self.layout = None

    def set_frozen(self, frozen):
        with open(self.freeze_file, "w") as f:
            f.write(self.frozen if frozen else self.thawed)

    def launcher(self):
        """The arm's argv: chrt drops the controller's real-time policy (a
        real-time task may not join a cpu cgroup without an RT budget:
        EINVAL), sh joins each of the arm's cgroups (exit 125 if one
        refuses), then execs the arm's command."""
        join = ('while [ "$1" != -- ]; do echo $$ > "$1/cgroup.procs" || exit 125; '
                'shift; done; shift; exec "$@"')
        return [CHRT, "--other", "0", "/bin/sh", "-c", join, "sh",
                *self.dirs, "--", *self.command]

    def spawn(self):
        # Without a preexec_fn, with close_fds=False (this controller's own
        # files are not inheritable) and an absolute path, Popen starts the
        # launcher with posix_spawn, which vforks: nothing of the
        # controller's memory is copied. A forked child of this process
        # would free its copied page tables and pages on the arm's CPU when
        # it execs, and the first arm to fault in its buffers would get
        # those scattered pages (bench/RESULTS.md, 2026-12-05). The arm's
        # cgroup is frozen at once: a launcher that joins it after that is
        # frozen as it joins, one that joined before is frozen with it.
        self.process = subprocess.Popen(
            self.launcher(), stdout=subprocess.PIPE, stderr=self.err,
            text=True, bufsize=1, close_fds=False)
        self.set_frozen(True)

    def start_reading(self):
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.append([now_ns(), line.rstrip("\n")])


def run(argv):
    p = argparse.ArgumentParser(prog="sliced_pair.py run")
    p.add_argument("--slice", type=float, default=0.1)
    p.add_argument("--seconds", type=float, required=True)
    p.add_argument("--stop", choices=["TERM", "INT"], default="TERM")
    p.add_argument("--controller_cpu", type=int, default=0)
    p.add_argument("--layout", action="store_true",
                   help="read how contiguous the arms' buffer pages are at "
                   "the end of the alternation (see buffer_layout)")
    p.add_argument("--out", required=True)
    p.add_argument("--arm", nargs=4, action="append", required=True,
                   metavar=("NAME", "DIRS", "FREEZER", "CMD"))
    a = p.parse_args(argv)
    if len(a.arm) != 2:
        sys.exit("sliced_pair.py: exactly two --arm")
    os.sched_setaffinity(0, {a.controller_cpu})
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(2))
    arms = [Arm(*spec, a.out) for spec in a.arm]
    codes = [None, None]
    try:
        for arm in arms:
            arm.spawn()
        for arm in arms:  # threads only once no more children are forked
            arm.start_reading()
        begin = now_ns()
        slice_ns = int(a.slice * 1e9)
        k = 0
        while True:
            at = begin + k * slice_ns
            if at >= begin + int(a.seconds * 1e9):
                break
            running, other = arms[k % 2], arms[1 - k % 2]
            other.set_frozen(True)
            if other.running:
                other.running[-1][1] = now_ns()
            running.set_frozen(False)
            running.running.append([now_ns(), None])
            k += 1
            time.sleep(max(0.0, (begin + k * slice_ns - now_ns()) / 1e9))
        for arm in arms:
            arm.set_frozen(True)
            if arm.running and arm.running[-1][1] is None:
                arm.running[-1][1] = now_ns()
        if a.layout:
            for arm in arms:  # frozen: their pages stay where they are
                arm.layout = buffer_layout(arm.process.pid)
        stop = getattr(signal, "SIG" + a.stop)
        for arm in arms:
            arm.process.send_signal(stop)
        # Each arm stops alone, in the order of its turns: its last stretch
        # (which ends a blkperf arm's measured window) counts as its
        # running time, and no other arm shares the CPU in it.
        codes = []
        for arm in arms:
            last = now_ns()
            arm.set_frozen(False)
            codes.append(arm.process.wait(timeout=60))
            arm.running.append([last, now_ns()])
            arm.reader.join(timeout=10)
    finally:
        for arm in arms:
            try:
                arm.set_frozen(False)
            except OSError:
                pass
            if arm.process is not None and arm.process.poll() is None:
                arm.process.kill()
    with open(a.out, "w") as f:
        json.dump({arm.name: {"running": arm.running, "lines": arm.lines,
                              "layout": arm.layout, "exit": code,
                              "pid": arm.process.pid}
                   for arm, code in zip(arms, codes)}, f)
    if any(codes):
        sys.exit(f"sliced_pair.py: arm exit codes {codes} (stderr in "
                 f"{a.out}.A.err / .B.err)")


def buffer_mappings(maps_text):
    """[(start, end)] of the private anonymous writable mappings of 1 MiB or
    more: where an arm's I/O buffers from 1 MiB live. blkperf maps them in
    one piece (which the kernel may merge with a neighbour); t/io_uring
    allocates each with posix_memalign, and glibc maps each from 128 KiB
    with two pages more, adjacent maps merging, in two or more mappings.
    Thread stacks fall in too, with the few pages they hold. Anonymous
    hugetlb mappings (MAP_HUGETLB: both tools' buffers on hugetlb pages)
    count too; /proc/PID/maps names them "/anon_hugepage (deleted)"."""
    found = []
    for line in maps_text.splitlines():
        fields = line.split()
        lo, hi = (int(x, 16) for x in fields[0].split("-"))
        anonymous = len(fields) == 5 or (len(fields) >= 6 and
                                         fields[5] == "/anon_hugepage")
        if anonymous and fields[1].startswith("rw") and hi - lo >= 1 << 20:
            found.append((lo, hi))
    return found


def page_adjacency(frames):
    """(present pages, share of present pages whose physical frame is next
    to the one before it in virtual order, either way): how contiguous the
    memory under a buffer is. frames: page frame numbers, None where not
    present."""
    present = sum(1 for f in frames if f is not None)
    pairs = [(a, b) for a, b in zip(frames, frames[1:])
             if a is not None and b is not None]
    if not pairs:
        return present, None
    return present, sum(1 for a, b in pairs if abs(a - b) == 1) / len(pairs)


def buffer_layout(pid):
    """{"pages", "adjacent"} of the pages present in process pid's buffer
    mappings (see buffer_mappings and page_adjacency), from
    /proc/PID/pagemap; None when it has no such mapping. Needs CAP_SYS_ADMIN: without it the kernel reports
    every frame as 0, which raises PermissionError rather than a figure.
    For plain I/O at 1 MiB on 4 KiB pages, how contiguous an arm's buffer
    pages are moves its IOPS by up to a fifth: the kernel pins and unpins
    each page's struct page per I/O."""
    with open(f"/proc/{pid}/maps") as f:
        ranges = buffer_mappings(f.read())
    if not ranges:
        return None
    frames = []
    with open(f"/proc/{pid}/pagemap", "rb", buffering=0) as pagemap:
        for lo, hi in ranges:
            pagemap.seek(lo // 4096 * 8)
            data = pagemap.read((hi - lo) // 4096 * 8)
            for i in range(0, len(data), 8):
                entry = int.from_bytes(data[i:i + 8], "little")
                frames.append(entry & ((1 << 55) - 1) if entry >> 63 else None)
            frames.append(None)  # no adjacency across mappings
    if any(f == 0 for f in frames):
        raise PermissionError("/proc/PID/pagemap gives no page frames "
                              "without CAP_SYS_ADMIN")
    pages, adjacent = page_adjacency(frames)
    return {"pages": pages, "adjacent": adjacent}


def running_ns(running, begin, end):
    """How long the arm ran inside [begin, end]."""
    return sum(max(0, min(e, end) - max(s, begin)) for s, e in running)


def window_iops(done, running, begin, end):
    """I/Os `done` in [begin, end] per second of running in it."""
    ns = running_ns(running, begin, end)
    if ns <= 0:
        raise ValueError("the arm never ran in the window")
    return done * 1e9 / ns


def blkperf_window(arm):
    """(I/Os, begin ns, end ns, requests per SQE or None) of a blkperfd run
    --json arm: its report's I/Os and measured window (ramp end to stop)."""
    report = json.loads("\n".join(text for _, text in arm["lines"]))
    begin = int(report["start"]["measure_start_monotonic_ns"])
    end = begin + int(float(report["elapsed_seconds"]) * 1e9)
    return (int(report["total"]["ios"]), begin, end,
            (report.get("device") or {}).get("requests_per_sqe"))


def blkperf_iops(arm):
    """(IOPS per second run, requests per SQE or None) of a blkperfd run
    --json arm over its measured window."""
    done, begin, end, per_sqe = blkperf_window(arm)
    return window_iops(done, arm["running"], begin, end), per_sqe


TIO_SAMPLE = re.compile(r"IOPS=([0-9.]+)([KM]?),")


def tio_window(arm, warm_ns=2_000_000_000):
    """(I/Os, begin ns, end ns) of a t/io_uring arm: the I/Os of its
    per-second samples whose second began `warm_ns` after its first turn
    (its warm-up is about half that much running), from then to its last
    sample. A sample counts the I/Os done since the one before, read as it
    is printed (stdout line-buffered: stdbuf -oL)."""
    unit = {"": 1, "K": 1e3, "M": 1e6}
    samples = [(t, float(m.group(1)) * unit[m.group(2)])
               for t, text in arm["lines"]
               for m in [TIO_SAMPLE.search(text)] if m]
    warm = arm["running"][0][0] + warm_ns
    first = next((i for i in range(1, len(samples))
                  if samples[i - 1][0] >= warm), None)
    if first is None:
        raise ValueError(f"t/io_uring printed {len(samples)} samples, none "
                         "after its warm-up")
    done = sum(v for _, v in samples[first:])
    return done, samples[first - 1][0], samples[-1][0]


def tio_iops(arm):
    """IOPS per second run of a t/io_uring arm over tio_window."""
    done, begin, end = tio_window(arm)
    return window_iops(done, arm["running"], begin, end)


def arm_window(tool, arm):
    """(I/Os, begin ns, end ns) of an arm's measured window."""
    return blkperf_window(arm)[:3] if tool == "blkperf" else tio_window(arm)


def script_samples(path):
    """[(ns, comm, pid, kernel?)] from `perf script -F comm,pid,tid,time,ip,dso
    --ns` of a `perf record -k CLOCK_MONOTONIC` (comm may hold spaces; pid
    is the process, whose threads include its io-wq workers)."""
    samples = []
    for line in open(path, errors="replace"):
        m = re.match(r"\s*(.+?)\s+(\d+)/\d+\s+(\d+)\.(\d{9}):\s+\S+\s+"
                     r"\((.*)\)\s*$", line)
        if m:
            samples.append((int(m[3]) * 1_000_000_000 + int(m[4]), m[1],
                            int(m[2]), m[5] == "[kernel.kallsyms]"))
    samples.sort()
    return samples


def classify(comm, kernel):
    """Which column one of an arm's own samples goes to. t/io_uring names
    every thread of its own "io_uring", so its main thread counts as its
    submitter; blkperfd's control threads (named after the binary) count
    as "else"."""
    if comm.startswith("iou-wrk-"):
        return "io-wq"
    if comm.startswith("blkperf-sub") or comm == "io_uring":
        return "kernel" if kernel else "user"
    return "else"


KINDS = ("kernel", "user", "io-wq", "else")


def arm_counts(samples, times, runs, arm, window):
    """Samples per column of `arm` (a round's log entry key; `samples` from
    script_samples, `times` their first fields) over its
    measured `window` (begin, end): every sample of its own process there
    (some fall in the other arm's turns: a freeze takes a moment to stop a
    process, an io-wq worker finishing its queue above all), and, in its
    own turns only, the samples of neither arm's process (idle, other
    processes) as "else". The other arm's samples in its turns are the
    other arm's."""
    begin, end = window
    pids = {runs[name]["pid"] for name in runs}
    own = runs[arm]["pid"]
    counts = dict.fromkeys(KINDS, 0)
    lo, hi = bisect.bisect_left(times, begin), bisect.bisect_left(times, end)
    for _, comm, pid, kernel in samples[lo:hi]:
        if pid == own:
            counts[classify(comm, kernel)] += 1
    for start, stop in runs[arm]["running"]:
        lo = bisect.bisect_left(times, max(start, begin))
        hi = bisect.bisect_left(times, min(stop, end))
        counts["else"] += sum(1 for s in samples[lo:hi] if s[2] not in pids)
    return counts


def profile(argv):
    """Where each arm's CPU went per I/O, in its measured windows only
    (arm_window, so start-up, warm-up and the stop are left out): its own
    process's samples by thread (arm_counts), over the I/Os of the same
    windows, scaled so that arm B's total is 100. The columns sum to each
    arm's CPU time per I/O (with the idle moments of its turns), so A's
    total over B's is about the inverse of their IOPS ratio over these
    rounds. Prints, per arm, its samples, the four columns and the
    total."""
    p = argparse.ArgumentParser(prog="sliced_pair.py profile")
    p.add_argument("--script", required=True)
    p.add_argument("--tool_a", choices=["blkperf", "tio"], required=True)
    p.add_argument("--tool_b", choices=["blkperf", "tio"], required=True)
    p.add_argument("logs", nargs="+")
    a = p.parse_args(argv)
    samples = script_samples(a.script)
    times = [s[0] for s in samples]
    counts = {arm: dict.fromkeys(KINDS, 0) for arm in "AB"}
    ios = dict.fromkeys("AB", 0)
    for log in a.logs:
        runs = json.load(open(log))
        if any("pid" not in runs[arm] for arm in "AB"):
            sys.exit(f"sliced_pair.py profile: {log} has no arm pids (a log "
                     "of an older sliced_pair.py run)")
        for arm, tool in (("A", a.tool_a), ("B", a.tool_b)):
            done, begin, end = arm_window(tool, runs[arm])
            ios[arm] += done
            window = (begin, end)
            for kind, n in arm_counts(samples, times, runs, arm,
                                      window).items():
                counts[arm][kind] += n
    if not all(ios.values()) or not sum(counts["B"].values()):
        sys.exit("sliced_pair.py profile: no I/Os or no samples in B's windows")
    scale = 100 * ios["B"] / sum(counts["B"].values())
    for arm in "AB":
        per_io = [counts[arm][k] * scale / ios[arm] for k in KINDS]
        print(arm, sum(counts[arm].values()), *(f"{v:.1f}" for v in per_io),
              f"{sum(per_io):.1f}")


def layout(argv):
    p = argparse.ArgumentParser(prog="sliced_pair.py layout")
    p.add_argument("--arm", required=True)
    p.add_argument("log")
    a = p.parse_args(argv)
    found = json.load(open(a.log))[a.arm].get("layout")
    if found and found["adjacent"] is not None:
        print(found["pages"], "%.3f" % found["adjacent"])


def iops(argv):
    p = argparse.ArgumentParser(prog="sliced_pair.py iops")
    p.add_argument("--tool", choices=["blkperf", "tio"], required=True)
    p.add_argument("--arm", required=True)
    p.add_argument("log")
    a = p.parse_args(argv)
    arm = json.load(open(a.log))[a.arm]
    if a.tool == "blkperf":
        value, per_sqe = blkperf_iops(arm)
        print(value, "" if per_sqe is None else per_sqe)
    else:
        print(tio_iops(arm))


if __name__ == "__main__":
    commands = {"run": run, "iops": iops, "layout": layout,
                "profile": profile}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        sys.exit("usage: sliced_pair.py run|iops|layout|profile ... (see the "
                 "docstring)")
    commands[sys.argv[1]](sys.argv[2:])
