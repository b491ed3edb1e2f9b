#!/usr/bin/env python3
"""Tests of fidelity_report.py: how samples are formed per pairing, the
paired difference across tools, the interval's verdict and the table."""
import math
import os
import subprocess
import statistics
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fidelity_report  # noqa: E402

REPORT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "fidelity_report.py")


def line(tool, arm, iops, mode, adjacent="", rps="", t="zram", bs="1m",
         e="fixed_vs_plain"):
    return "\t".join([t, bs, e, tool, arm, str(iops), rps, mode, adjacent]) + "\n"


def across_tools(blkperf_ratios, tio_ratios, drifts):
    """Result lines of a cross run whose round pairs have the given ratios:
    each round's arm B does 1000 x that round's drift IOPS in both tools
    (the machine's speed, which moves between the two pairings), arm A the
    ratio times that; both rounds of a pair alike."""
    lines = []
    for rb, rt, drift in zip(blkperf_ratios, tio_ratios, drifts):
        for _ in range(2):
            b = 1000.0 * drift
            lines += [line("blkperf", "A", rb * b, "sliced, across tools"),
                      line("t_io_uring", "A", rt * b, "sliced, across tools"),
                      line("blkperf", "B", b, "sliced, across tools"),
                      line("t_io_uring", "B", b, "sliced, across tools")]
    return lines


def placed(plain_edge, rounds=8, slope=0.2):
    """Result lines of a cross run where every arm's IOPS is its base times
    exp(slope x its buffers' adjacent share): fixed arms 1200, plain arms
    1000 x plain_edge[tool] (a tool's own effect, independent of
    placement). Fixed arms' pages are 0.6 adjacent; of the plain arms, the
    one that starts first in its pair gets scattered pages (blkperf's 0.4,
    t/io_uring's 0.1), the other contiguous ones (0.9)."""
    lines = []
    for r in range(rounds):
        blkperf_first = r % 2 == 0
        for arm, base in (("A", 1200.0), ("B", 1000.0)):
            for tool in fidelity_report.TOOLS:
                first = (tool == "blkperf") == blkperf_first
                adjacent = (0.4 if tool == "blkperf" else 0.1) if first else 0.9
                if arm == "A":
                    adjacent = 0.6
                iops = base * plain_edge[tool] if arm == "B" else base
                iops *= math.exp(slope * adjacent)
                lines.append(line(tool, arm, iops, "sliced, across tools",
                                  "%.3f" % adjacent, t="loop"))
    return lines


class SamplesTest(unittest.TestCase):
    def test_sliced_rounds_pair_up_as_geometric_means(self):
        lines = [line("blkperf", "A", 110, "sliced"), line("blkperf", "B", 100, "sliced"),
                 line("blkperf", "A", 90, "sliced"), line("blkperf", "B", 100, "sliced")]
        r = fidelity_report.Results(lines)
        [sample] = r.samples(("zram", "1m", "fixed_vs_plain"), "blkperf")
        self.assertAlmostEqual(sample, (1.1 * 0.9) ** 0.5)

    def test_shared_rounds_are_samples_of_their_own(self):
        lines = [line("blkperf", "A", 110, "shared"), line("blkperf", "B", 100, "shared"),
                 line("blkperf", "A", 90, "shared"), line("blkperf", "B", 100, "shared")]
        r = fidelity_report.Results(lines)
        self.assertEqual(r.samples(("zram", "1m", "fixed_vs_plain"), "blkperf"),
                         [1.1, 0.9])

    def test_a_tool_without_both_arms_has_no_samples(self):
        r = fidelity_report.Results([line("blkperf", "A", 1, "sliced"),
                                     line("blkperf", "B", 1, "sliced")])
        self.assertIsNone(r.samples(("zram", "1m", "fixed_vs_plain"), "t_io_uring"))


class DifferenceTest(unittest.TestCase):
    def test_across_tools_the_difference_is_paired(self):
        # Both tools' ratios swing from sample to sample (0.9-1.5) with the
        # machine's speed, blkperf's always 0.01 above: the interval is that.
        tio = [1.2, 1.5, 0.9, 1.35, 1.05, 1.4]
        blkperf = [x + 0.01 for x in tio]
        lo, hi = fidelity_report.interval(blkperf, tio, paired=True)
        self.assertAlmostEqual(lo, 0.01)
        self.assertAlmostEqual(hi, 0.01)
        self.assertEqual(fidelity_report.verdict(lo, hi), "yes")

    def test_paired_is_the_median_of_differences_unpaired_of_medians(self):
        blkperf, tio = [1.5, 1.0, 1.3, 1.05], [1.0, 1.1, 1.2, 1.5]
        self.assertAlmostEqual(
            fidelity_report.difference(blkperf, tio, range(4), paired=True), 0.0)
        self.assertAlmostEqual(
            fidelity_report.difference(blkperf, tio, range(4), paired=False),
            1.175 - 1.15)

    def test_verdicts(self):
        self.assertEqual(fidelity_report.verdict(-0.03, 0.03), "yes")
        self.assertEqual(fidelity_report.verdict(-0.08, -0.031), "NO")
        self.assertEqual(fidelity_report.verdict(0.031, 0.05), "NO")
        self.assertEqual(fidelity_report.verdict(-0.04, 0.01), "open")


class PlacementTest(unittest.TestCase):
    ROW = ("loop", "1m", "fixed_vs_plain")

    def matched(self, lines):
        r = fidelity_report.Results(lines)
        rounds = fidelity_report.placement_rounds(r, self.ROW)
        tio = statistics.median(r.samples(self.ROW, "t_io_uring"))
        self.tio_ratio = tio
        return fidelity_report.matched_difference(rounds, tio)

    def test_a_difference_placement_explains_goes(self):
        # Same tools; t/io_uring's first-started pages are the more scattered.
        diff, a_slope, b_slope = self.matched(
            placed({"blkperf": 1.0, "t_io_uring": 1.0}))
        self.assertAlmostEqual(diff, 0.0, places=9)
        self.assertAlmostEqual(b_slope, 0.2)

    def test_a_tool_effect_stays(self):
        # blkperf's plain arm 5 % faster whatever its pages.
        diff, _, _ = self.matched(placed({"blkperf": 1.05, "t_io_uring": 1.0}))
        # Taken at t/io_uring's ratio as run (its plain arm's pages vary).
        self.assertGreater(self.tio_ratio, 1.2)
        self.assertAlmostEqual(diff, self.tio_ratio * (1 / 1.05 - 1), places=9)

    def test_only_across_tools_with_every_layout(self):
        lines = placed({"blkperf": 1.0, "t_io_uring": 1.0})
        sliced = [l.replace("sliced, across tools", "sliced") for l in lines]
        self.assertIsNone(fidelity_report.placement_rounds(
            fidelity_report.Results(sliced), self.ROW))
        no_layout = ["\t".join(l.split("\t")[:-1] + [""]) + "\n" for l in lines]
        self.assertIsNone(fidelity_report.placement_rounds(
            fidelity_report.Results(no_layout), self.ROW))

    def test_not_on_hugetlb_pages(self):
        r = fidelity_report.Results(placed({"blkperf": 1.0, "t_io_uring": 1.0}))
        self.assertIsNone(fidelity_report.placement_rounds(r, self.ROW, "huge"))

    def test_huge_vs_normal_matches_only_the_normal_arm(self):
        lines = [l.replace("fixed_vs_plain", "huge_vs_normal")
                 for l in placed({"blkperf": 1.0, "t_io_uring": 1.0})]
        rounds = fidelity_report.placement_rounds(
            fidelity_report.Results(lines), ("loop", "1m", "huge_vs_normal"))
        self.assertEqual({r[1] for r in rounds}, {0.0})
        self.assertNotEqual({r[3] for r in rounds}, {0.0})

    def test_no_spread_in_placement_fits_the_mean(self):
        self.assertEqual(fidelity_report.fit_at_zero([0.5, 0.5], [1.0, 3.0]),
                         (2.0, 0.0))


class TableTest(unittest.TestCase):
    def run_report(self, lines):
        with tempfile.NamedTemporaryFile("w", suffix=".tsv") as f:
            f.write("# target\tbs\texperiment\ttool\tarm\tiops\trequests_per_sqe\tpairing\tbuffer_adjacent\n")
            f.writelines(lines)
            f.flush()
            return subprocess.run([sys.executable, REPORT, f.name], check=True,
                                  capture_output=True, text=True).stdout

    def test_cross_run_row(self):
        out = self.run_report(across_tools(
            [1.25, 1.20, 1.30, 1.22], [1.20, 1.15, 1.25, 1.17],
            [1.0, 0.8, 1.2, 0.9]))
        [row] = [l for l in out.splitlines() if l.startswith("| fixed_vs_plain")]
        cells = [c.strip() for c in row.strip("|").split("|")]
        self.assertEqual(cells[:4], ["fixed_vs_plain", "1m", "zram",
                                     "sliced, across tools"])
        self.assertEqual(cells[4:7], ["1.235", "1.185", "+0.050"])
        self.assertEqual(cells[7], "+0.050 to +0.050")
        self.assertEqual(cells[8], "NO")

    def test_layout_medians_per_arm(self):
        lines = [line("blkperf", "A", 100, "sliced", "0.5"),
                 line("blkperf", "B", 100, "sliced", "0.9"),
                 line("blkperf", "A", 100, "sliced", "0.7"),
                 line("blkperf", "B", 100, "sliced", "0.9")]
        out = self.run_report(lines)
        self.assertIn("# fixed_vs_plain 1m zram: blkperf A 0.60, blkperf B 0.90", out)
        self.assertIn("| n/a | n/a | n/a | n/a |", out)

    def test_equal_placement_table(self):
        out = self.run_report(placed({"blkperf": 1.0, "t_io_uring": 1.0}))
        [row] = [l for l in out.splitlines()
                 if l.startswith("| fixed_vs_plain | 1m | loop | ")
                 and l.count("|") == 9]
        cells = [c.strip() for c in row.strip("|").split("|")]
        self.assertLess(float(cells[3]), -0.01)  # as run: placement shows
        self.assertEqual(cells[4:7], ["+0.000", "+0.000 to +0.000", "yes"])

    def test_no_equal_placement_table_on_hugetlb_pages(self):
        with tempfile.NamedTemporaryFile("w", suffix=".tsv") as f:
            f.writelines(placed({"blkperf": 1.0, "t_io_uring": 1.0}))
            f.flush()
            out = subprocess.run([sys.executable, REPORT, "--pages", "huge", f.name],
                                 check=True, capture_output=True, text=True).stdout
        self.assertIn("| fixed_vs_plain | 1m | loop | sliced, across tools |", out)
        self.assertNotIn("equal placement", out)

    def test_usage(self):
        for args in ([], ["--pages", "tiny", "x.tsv"], ["a.tsv", "b.tsv"]):
            p = subprocess.run([sys.executable, REPORT, *args],
                               capture_output=True, text=True)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("usage", p.stderr)


if __name__ == "__main__":
    unittest.main()
