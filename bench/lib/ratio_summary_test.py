#!/usr/bin/env python3
"""Tests of ratio_summary.py: the ranks of the median's interval match the
binomial tables, too few rounds get no interval, and the table's columns
are the rounds' own figures."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ratio_summary  # noqa: E402


class MedianIntervalTest(unittest.TestCase):
    def test_ranks_match_the_binomial_tables(self):
        # Published 95 % ranks for the median (e.g. Conover, Practical
        # Nonparametric Statistics, table A3).
        self.assertEqual(ratio_summary.median_interval_ranks(6), (1, 6))
        self.assertEqual(ratio_summary.median_interval_ranks(9), (2, 8))
        self.assertEqual(ratio_summary.median_interval_ranks(15), (4, 12))
        self.assertEqual(ratio_summary.median_interval_ranks(21), (6, 16))

    def test_fewer_than_six_rounds_have_no_interval(self):
        for n in range(1, 6):
            self.assertIsNone(ratio_summary.median_interval_ranks(n), n)
            self.assertIsNone(ratio_summary.median_interval([1.0] * n))

    def test_interval_holds_the_values_at_those_ranks(self):
        values = [1.05, 0.95, 1.01, 0.99, 1.00, 1.02, 0.98, 1.03, 0.97]
        # Sorted: 0.95 0.97 0.98 0.99 1.00 1.01 1.02 1.03 1.05; ranks 2 and 8.
        self.assertEqual(ratio_summary.median_interval(values), (0.97, 1.03))


class TableTest(unittest.TestCase):
    def test_row_has_the_medians_interval_range_and_count(self):
        pairs = [(a, 100.0) for a in (105, 95, 101, 99, 100, 102, 98, 103, 97)]
        lines = ratio_summary.table({"zram": pairs}, "blkperf", "t/io_uring")
        self.assertEqual(len(lines), 3)
        self.assertIn("median's 95 % interval", lines[0])
        self.assertEqual(
            lines[2],
            "| zram | 0.1k | 0.1k | **1.000** | 0.970-1.030 | 0.950-1.050 | 5/9 |")

    def test_too_few_rounds_say_so(self):
        lines = ratio_summary.table({"nop": [(99.0, 100.0)] * 3}, "a", "b")
        self.assertIn("n/a (fewer than 6 rounds)", lines[2])


if __name__ == "__main__":
    unittest.main()
