#!/usr/bin/env python3
"""The table bench/fidelity.sh prints: for each experiment, block size and
target, each tool's ratio A/B, their difference, a bootstrapped 95%
interval of the difference and the verdict against the 0.03 bar.

  fidelity_report.py [--pages normal|huge] RESULTS.tsv

RESULTS.tsv: one line per arm per round, tab-separated: target, bs,
experiment, tool (blkperf | t_io_uring), arm (A | B), IOPS, requests per
SQE (or empty), pairing, buffer pages' adjacent share (or empty). Lines
starting with # are skipped. The rounds of each (target, bs, experiment,
tool, arm) are in the order they ran.

Pairings (bench/fidelity.sh --pairing): a sample is a round, or, where the
pairing column starts with "sliced" or ends with "own devices", a pair of
rounds (each arm first once, or on each device once): the geometric mean
of its two ratios. Across tools ("sliced, across tools"), each tool's arm
A ran against the other tool's arm A, and B against B, so a sample's two
ratios come from the same two pairings and their difference is taken
sample by sample (paired); otherwise it is the difference of the tools'
medians.

At equal placement (across tools, on 4 KiB pages): how contiguous an arm's
buffer pages are moves its IOPS, the kernel's page allocator decides it,
and in a pair the arm that faults its buffers in first gets the scattered
pages. For each arm, round by round, the log of blkperf's IOPS over
t/io_uring's is fitted (least squares) to the difference of their buffers'
adjacent shares; the fit's value at a difference of 0 is that arm's tool
ratio at equal placement. The row's difference at equal placement is
t/io_uring's ratio times (arm A's tool ratio over arm B's, minus 1), with a
bootstrap interval over whole rounds (both arms of a round together).
t/io_uring's ratio there is its median as run. At 16 KiB the two tools'
shares are not alike: glibc puts a page with a chunk header between
t/io_uring's buffers, so its share stays under about 0.6 where blkperf's
reaches 0.75.
"""
import collections
import math
import random
import statistics
import sys

BAR = 0.03
TOOLS = ("blkperf", "t_io_uring")


class Results:
    def __init__(self, lines):
        self.runs = collections.defaultdict(list)    # (t, bs, e, tool, arm)
        self.rps = collections.defaultdict(list)     # (t, bs, e, arm)
        self.layout = collections.defaultdict(list)  # (t, bs, e, tool, arm)
        self.pairing = {}
        self.order = []
        for line in lines:
            if line.startswith("#") or not line.strip():
                continue
            t, bs, e, tool, arm, iops, rps, mode, adjacent = (
                line.rstrip("\n").split("\t"))
            if (t, bs, e) not in self.order:
                self.order.append((t, bs, e))
            self.pairing[t, bs, e] = mode
            self.runs[t, bs, e, tool, arm].append(float(iops))
            if rps:
                self.rps[t, bs, e, arm].append(float(rps))
            if adjacent:
                self.layout[t, bs, e, tool, arm].append(float(adjacent))

    def in_pairs(self, row):
        mode = self.pairing[row]
        return mode.endswith("own devices") or mode.startswith("sliced")

    def across_tools(self, row):
        return self.pairing[row].endswith("across tools")

    def samples(self, row, tool):
        """The tool's ratios A/B, one per sample; None without both arms."""
        a = self.runs.get((*row, tool, "A"))
        b = self.runs.get((*row, tool, "B"))
        if not a or not b:
            return None
        r = [x / y for x, y in zip(a, b)]
        if self.in_pairs(row):
            r = [(r[i] * r[i + 1]) ** 0.5 for i in range(0, len(r) - 1, 2)]
        return r

    def spread(self, row):
        """The largest max/min IOPS over the rounds of any arm of the row."""
        return max(max(v) / min(v) for k, v in self.runs.items()
                   if k[:3] == row)


def difference(blkperf, tio, picked, paired):
    """blkperf's ratio minus t/io_uring's over the samples `picked`."""
    if paired:
        return statistics.median(blkperf[i] - tio[i] for i in picked)
    return (statistics.median(blkperf[i] for i in picked) -
            statistics.median(tio[i] for i in picked))


def interval(blkperf, tio, paired, resamples=2000, seed=13):
    """95% bootstrap interval of difference(); samples are resampled whole
    (both tools' ratios of a sample stay together)."""
    n = min(len(blkperf), len(tio))
    rng = random.Random(seed)
    d = sorted(difference(blkperf, tio, [rng.randrange(n) for _ in range(n)],
                          paired) for _ in range(resamples))
    return d[int(0.025 * resamples)], d[int(0.975 * resamples) - 1]


def verdict(lo, hi):
    if -BAR <= lo and hi <= BAR:
        return "yes"
    if lo > BAR or hi < -BAR:
        return "NO"
    return "open"


def signed(x):
    """x to 3 decimals with its sign; a rounding's -0 as +0.000."""
    return f"{round(x, 3) + 0.0:+.3f}"


def fit_at_zero(xs, ys):
    """(intercept, slope) of the least-squares line through (xs, ys); with
    no spread in xs, the mean of ys and slope 0."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return my, 0.0
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return my - slope * mx, slope


def placement_rounds(results, row, pages="normal"):
    """[(arm A's log IOPS ratio, its adjacency difference, arm B's, its)],
    blkperf over t/io_uring, one per round; None unless the row ran across
    tools on normal pages with every such arm's layout. An arm on hugetlb
    pages (huge_vs_normal's A) has no placement to match: its difference
    is 0 in every round."""
    if not results.across_tools(row) or pages != "normal":
        return None
    series = {}
    for tool in TOOLS:
        for arm in "AB":
            iops = results.runs.get((*row, tool, arm), [])
            layout = results.layout.get((*row, tool, arm), [])
            if arm == "A" and row[2] == "huge_vs_normal":
                layout = [0.0] * len(iops)
            if not iops or len(layout) != len(iops):
                return None
            series[tool, arm] = list(zip(iops, layout))
    n = min(len(v) for v in series.values())
    if n < 3:
        return None
    rounds = []
    for i in range(n):
        one = []
        for arm in "AB":
            (bi, ba), (ti, ta) = series["blkperf", arm][i], series["t_io_uring", arm][i]
            one += [math.log(bi / ti), ba - ta]
        rounds.append(tuple(one))
    return rounds


def matched_difference(rounds, tio_ratio):
    """The difference of the two tools' ratios at equal placement (see the
    module's docstring), and each arm's slope."""
    a0, a_slope = fit_at_zero([r[1] for r in rounds], [r[0] for r in rounds])
    b0, b_slope = fit_at_zero([r[3] for r in rounds], [r[2] for r in rounds])
    return tio_ratio * (math.exp(a0 - b0) - 1), a_slope, b_slope


def matched_interval(rounds, tio_ratio, resamples=2000, seed=13):
    rng = random.Random(seed)
    n = len(rounds)
    d = sorted(matched_difference([rounds[rng.randrange(n)] for _ in range(n)],
                                  tio_ratio)[0] for _ in range(resamples))
    return d[int(0.025 * resamples)], d[int(0.975 * resamples) - 1]


def matched_table(results, pages="normal"):
    """Rows run across tools with layouts: the difference at equal
    placement. Yields nothing when no row has them."""
    head = False
    for row in results.order:
        rounds = placement_rounds(results, row, pages)
        if rounds is None:
            continue
        if not head:
            yield ("| experiment | bs | target | difference as run | "
                   "at equal placement | 95% interval | within 0.03? | "
                   "slope A, B (log IOPS per adjacent share) |")
            yield "|---|---|---|---|---|---|---|---|"
            head = True
        blkperf = results.samples(row, "blkperf")
        tio_samples = results.samples(row, "t_io_uring")
        as_run = difference(blkperf, tio_samples, range(len(blkperf)), True)
        tio = statistics.median(tio_samples)
        diff, a_slope, b_slope = matched_difference(rounds, tio)
        lo, hi = matched_interval(rounds, tio)
        t, bs, e = row
        yield (f"| {e} | {bs} | {t} | {signed(as_run)} | {signed(diff)} | "
               f"{signed(lo)} to {signed(hi)} | {verdict(lo, hi)} | "
               f"{signed(a_slope)}, {signed(b_slope)} |")


def table(results):
    yield ("| experiment | bs | target | pairing | blkperf ratio | "
           "t/io_uring ratio | difference | 95% interval | within 0.03? | "
           "spread |")
    yield "|---|---|---|---|---|---|---|---|---|---|"
    for row in results.order:
        t, bs, e = row
        blkperf = results.samples(row, "blkperf")
        tio = results.samples(row, "t_io_uring")
        mode = results.pairing[row]
        note = ""
        # The device's counters are the whole device's: arms on one device
        # at once (shared) mix; each on its own device, or alone, do not.
        own = mode == "sequential" or mode.endswith("own devices")
        if e == "split_none_vs_limits" and results.rps.get((*row, "A")) and own:
            note = " (req/SQE %.2f vs %.2f)" % (
                statistics.median(results.rps[(*row, "A")]),
                statistics.median(results.rps[(*row, "B")]))
        head = (f"| {e} | {bs} | {t} | {mode} | "
                f"{statistics.median(blkperf):.3f}{note}")
        spread = results.spread(row)
        if tio is None:
            yield f"{head} | n/a | n/a | n/a | n/a | {spread:.2f} |"
            continue
        paired = results.across_tools(row)
        n = min(len(blkperf), len(tio))
        diff = difference(blkperf, tio, range(n), paired)
        lo, hi = interval(blkperf, tio, paired)
        yield (f"{head} | {statistics.median(tio):.3f} | {diff:+.3f} | "
               f"{lo:+.3f} to {hi:+.3f} | {verdict(lo, hi)} | {spread:.2f} |")


def layout_notes(results):
    """Sliced rows: how contiguous each arm's buffer pages were (on 4 KiB
    pages it moves a plain arm's IOPS by up to a fifth at 1 MiB)."""
    for t, bs, e in results.order:
        arms = [(tool, arm, statistics.median(results.layout[t, bs, e, tool, arm]))
                for tool in TOOLS for arm in "AB"
                if results.layout.get((t, bs, e, tool, arm))]
        if arms:
            yield f"# {e} {bs} {t}: " + ", ".join(
                f"{tool} {arm} {m:.2f}" for tool, arm, m in arms)


def main(argv):
    args = argv[1:]
    pages = "normal"
    if args[:1] == ["--pages"] and len(args) == 3 and args[1] in ("normal", "huge"):
        pages, args = args[1], args[2:]
    if len(args) != 1:
        sys.exit("usage: fidelity_report.py [--pages normal|huge] RESULTS.tsv "
                 "(--pages: the base arms' buffers, as bench/fidelity.sh's)")
    with open(args[0]) as f:
        results = Results(f)
    print("\n".join(table(results)))
    notes = list(layout_notes(results))
    if notes:
        print("\n# buffer pages physically next to the page before (median "
              "over the rounds, read at each sliced round's end):")
        print("\n".join(notes))
    matched = list(matched_table(results, pages))
    if matched:
        print("\n# across tools, the difference at equal placement (each "
              "arm's blkperf/t_io_uring IOPS fitted to the difference of "
              "their buffers' adjacent shares, read at 0):")
        print("\n".join(matched))


if __name__ == "__main__":
    main(sys.argv)
