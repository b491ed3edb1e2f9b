#!/usr/bin/env python3
"""The summary table of bench/compare_tio_sliced.sh: per target, each
arm's median IOPS, the median of the rounds' ratios (A / B), the 95 %
interval of that median, the rounds' range and how many rounds were at 1
or more.

  ratio_summary.py RESULTS_TSV NAME_A NAME_B
      RESULTS_TSV: lines "target<TAB>A's IOPS<TAB>B's IOPS", one per round
      NAME_A, NAME_B: what the table calls the arms (blkperf, t/io_uring,
      ...)

The interval is distribution-free (order statistics): the k-th smallest
and k-th largest ratio, with k the largest rank for which a Binomial(n,
1/2) count falls below k with probability at most 2.5 % (n = 9: the 2nd
and 8th; n = 21: the 6th and 16th). Fewer than 6 rounds have no such
rank: the table says so rather than print a narrower interval than the
rounds support.
"""
import collections
import math
import statistics
import sys


def median_interval_ranks(n, confidence=0.95):
    """(lo, hi), 1-based ranks of the sorted values that bound the median
    with at least `confidence`; None when n is too small for it."""
    tail = (1 - confidence) / 2
    below = 0.0  # P(Binomial(n, 1/2) < k) as k grows
    k = 0
    while True:
        below_next = below + math.comb(n, k) / 2 ** n
        if below_next > tail:
            break
        below = below_next
        k += 1
    # k: the largest rank with P(count < k) <= tail.
    if k < 1:
        return None
    return k, n + 1 - k


def median_interval(values, confidence=0.95):
    """(lo, hi) bounding the median of `values`, or None (too few)."""
    ranks = median_interval_ranks(len(values), confidence)
    if ranks is None:
        return None
    ordered = sorted(values)
    return ordered[ranks[0] - 1], ordered[ranks[1] - 1]


def table(rows, name_a, name_b):
    """Markdown lines for {target: [(a_iops, b_iops), ...]}."""
    lines = [f"| target | {name_a} | {name_b} | ratio (median of rounds) | "
             "median's 95 % interval | rounds | rounds >= 1 |",
             "|---|---|---|---|---|---|---|"]
    for target, pairs in rows.items():
        ratios = sorted(a / b for a, b in pairs)
        interval = median_interval(ratios)
        shown = ("n/a (fewer than 6 rounds)" if interval is None
                 else f"{interval[0]:.3f}-{interval[1]:.3f}")
        lines.append(
            f"| {target} | {statistics.median(a for a, _ in pairs) / 1e3:.1f}k "
            f"| {statistics.median(b for _, b in pairs) / 1e3:.1f}k "
            f"| **{statistics.median(ratios):.3f}** | {shown} "
            f"| {ratios[0]:.3f}-{ratios[-1]:.3f} "
            f"| {sum(r >= 1 for r in ratios)}/{len(ratios)} |")
    return lines


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: ratio_summary.py RESULTS_TSV NAME_A NAME_B")
    rows = collections.defaultdict(list)
    for line in open(argv[0]):
        target, a, b = line.rstrip("\n").split("\t")
        rows[target].append((float(a), float(b)))
    print("\n".join(table(rows, argv[1], argv[2])))


if __name__ == "__main__":
    main(sys.argv[1:])
