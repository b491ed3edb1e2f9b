#!/usr/bin/env python3
"""Tests of experiment_table.py: a row carries the product's figures and
the guardrails that mark the arm suspect, a failed run gets no figures but
its error, and the doc's marked block is replaced and nothing else."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import experiment_table as et  # noqa: E402


def report(verdict="faster", more=None, guardrails=(), arms=2):
    arm_list = [{"name": "fixed_buffers=false", "baseline": True,
                 "iops": {"samples": [1.0] * 10}}]
    for i in range(1, arms):
        arm_list.append({"name": f"fixed_buffers=true{i}", "baseline": False,
                         "verdict": verdict,
                         "iops": {"ratio": 1.2345, "ci": [1.2011, 1.2699],
                                  "verdict": verdict, "more_rounds": more}})
    return {"experiment": {"confidence": 0.95, "arms": arm_list,
                           "guardrails": [dict(g) for g in guardrails]}}


class RowTest(unittest.TestCase):
    def test_row_has_ratio_interval_verdict(self):
        (row,) = et.rows("$run --vary=fixed_buffers=false,true", 0, report(), "")
        self.assertEqual(row, "| `$run --vary=fixed_buffers=false,true` | 1.234 | "
                              "1.201-1.270 (95 %) | faster | - |")
        self.assertEqual(row.count("|"), et.HEADER.split("\n")[0].count("|"))

    def test_inconclusive_says_how_many_more_rounds(self):
        (row,) = et.rows("c", 0, report("inconclusive", 17), "")
        self.assertIn("| inconclusive: about 17 more rounds would decide |", row)

    def test_suspect_guardrails_of_the_arm_and_its_baseline_are_named(self):
        guardrails = [
            {"arm": None, "kind": "governor", "suspect": False},
            {"arm": "fixed_buffers=false", "kind": "trend", "suspect": True},
            {"arm": "fixed_buffers=true1", "kind": "other_cpu", "suspect": True},
            {"arm": "someone_else", "kind": "bimodal", "suspect": True}]
        (row,) = et.rows("c", 0, report(guardrails=guardrails), "")
        self.assertTrue(row.endswith("| other_cpu, trend |"), row)

    def test_three_arms_give_a_row_each_named(self):
        out = et.rows("c", 0, report(arms=3), "")
        self.assertEqual(len(out), 2)
        self.assertIn("(fixed_buffers=true2)", out[1])

    def test_failed_run_has_no_figures_but_its_error(self):
        (row,) = et.rows("$run --vary=polled=off,on", 1, None,
                         "starting\nblkperfd: polled: /dev/zram0 cannot poll | x\n\n")
        self.assertEqual(row, "| `$run --vary=polled=off,on` | - | - | no verdict (exit 1): "
                              "blkperfd: polled: /dev/zram0 cannot poll \\| x | - |")
        (row,) = et.rows("c", 0, {"not": "an experiment"}, "")
        self.assertIn("no verdict (exit 0): no output", row)


class ReplaceTest(unittest.TestCase):
    doc = ("# T\nintro\n<!-- kernel_experiments.sh: table -->\nold 1\nold 2\n"
           "<!-- end kernel_experiments.sh: table -->\nafter\n")

    def test_replaces_only_the_marked_block(self):
        out = et.replace(self.doc, "table", "new a\nnew b\n")
        self.assertEqual(out, "# T\nintro\n<!-- kernel_experiments.sh: table -->\nnew a\n"
                              "new b\n<!-- end kernel_experiments.sh: table -->\nafter\n")
        self.assertEqual(et.replace(out, "table", "new a\nnew b\n"), out)

    def test_missing_marker_is_an_error(self):
        with self.assertRaises(ValueError):
            et.replace(self.doc, "commands", "x")
        with self.assertRaises(ValueError):
            et.replace("<!-- kernel_experiments.sh: table -->\n", "table", "x")


if __name__ == "__main__":
    unittest.main()
