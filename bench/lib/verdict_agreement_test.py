#!/usr/bin/env python3
"""Tests of verdict_agreement.py: Student's t and the expanded level match
published tables, the product's verdict rule, and the agreement in sign
and size on rounds where the answer is known."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verdict_agreement as va  # noqa: E402


def experiment(base, arm, ratio, ci, verdict, suspect=()):
    return {"arms": [
        {"name": "fixed_buffers=false", "baseline": True,
         "iops": {"samples": base}},
        {"name": "fixed_buffers=true", "baseline": False, "verdict": verdict,
         "iops": {"samples": arm, "ratio": ratio, "ci": list(ci)}}],
        "guardrails": [{"kind": k, "suspect": True} for k in suspect]}


class StatisticsTest(unittest.TestCase):
    def test_student_t_quantiles_match_the_tables(self):
        # t(0.975, df): 12.706 (1), 2.262 (9), 2.093 (19), 1.984 (100).
        for df, t in ((1, 12.7062), (9, 2.2622), (19, 2.0930), (100, 1.9840)):
            self.assertAlmostEqual(va.student_t_quantile(0.975, df), t, places=3)

    def test_expanded_level_at_ten_rounds_is_98_3_percent(self):
        # docs/experiments.md: 98.3 % at 10 rounds for 95 %.
        self.assertAlmostEqual(va.expanded_confidence(0.95, 10), 0.983, places=3)
        self.assertEqual(va.expanded_confidence(0.95, 1), 0.95)

    def test_verdict_rule_is_the_products(self):
        self.assertEqual(va.decide(1.03, 1.2, 0.02), "faster")
        self.assertEqual(va.decide(0.8, 0.97, 0.02), "slower")
        self.assertEqual(va.decide(0.99, 1.01, 0.02), "equivalent")
        self.assertEqual(va.decide(0.99, 1.05, 0.02), "inconclusive")

    def test_paired_interval_holds_the_ratio_and_is_deterministic(self):
        a = [100, 104, 98, 101, 99, 103, 97, 102, 100, 101]
        b = [x * 1.2 for x in a]
        r, lo, hi = va.paired_ratio_of_medians(a, b)
        self.assertAlmostEqual(r, 1.2)
        # Every resample has the same ratio: the interval is the point.
        self.assertAlmostEqual(lo, 1.2)
        self.assertAlmostEqual(hi, 1.2)
        noisy = [x * (1.2 if i % 2 else 1.1) for i, x in enumerate(a)]
        r, lo, hi = va.paired_ratio_of_medians(a, noisy)
        self.assertLess(lo, r)
        self.assertGreater(hi, r)
        self.assertEqual((r, lo, hi), va.paired_ratio_of_medians(a, noisy))

    def test_paired_rounds_must_pair(self):
        with self.assertRaises(ValueError):
            va.paired_ratio_of_medians([1, 2], [1])


class AgreementTest(unittest.TestCase):
    base = [100.0, 101, 99, 100, 102, 98, 100, 101, 99, 100]

    def test_same_effect_agrees_in_sign_and_size(self):
        arm = [x * 1.25 for x in self.base]
        j = va.judge(experiment(self.base, arm, 1.25, (1.24, 1.26), "faster"),
                     self.base, [x * 1.25 for x in self.base])
        self.assertEqual((j["sign"], j["size"]), ("yes", "yes"))
        self.assertEqual(j["tio_verdict"], "faster")
        self.assertAlmostEqual(j["difference"], 0.0)

    def test_effect_of_another_size_is_no(self):
        arm = [x * 1.25 for x in self.base]
        j = va.judge(experiment(self.base, arm, 1.25, (1.24, 1.26), "faster"),
                     self.base, [x * 1.10 for x in self.base])
        self.assertEqual((j["sign"], j["size"]), ("yes", "NO"))
        self.assertAlmostEqual(j["difference"], 0.15)

    def test_opposite_effects_disagree_in_sign(self):
        arm = [x * 1.25 for x in self.base]
        j = va.judge(experiment(self.base, arm, 1.25, (1.24, 1.26), "faster"),
                     self.base, [x * 0.8 for x in self.base])
        self.assertEqual(j["sign"], "NO")
        self.assertEqual(j["tio_verdict"], "slower")

    def test_no_effect_in_either_tool_agrees_in_sign(self):
        self.assertTrue(va.sign_agrees(1.004, (0.99, 1.02), 0.998, (0.98, 1.01)))
        self.assertFalse(va.sign_agrees(1.004, (1.001, 1.02), 0.998, (0.997, 0.999)))

    def test_noisy_rounds_leave_the_size_open(self):
        swing = [1.0, 1.3, 0.8, 1.2, 0.9, 1.25, 0.85, 1.1, 0.95, 1.15]
        arm = [x * 1.2 for x in self.base]
        j = va.judge(experiment(self.base, arm, 1.2, (1.19, 1.21), "faster"),
                     self.base, [x * 1.2 * s for x, s in zip(self.base, swing)])
        self.assertEqual(j["size"], "open")

    def test_guardrails_are_named(self):
        arm = [x * 1.25 for x in self.base]
        j = va.judge(experiment(self.base, arm, 1.25, (1.24, 1.26), "faster",
                                ("trend", "other_cpu")), self.base, arm)
        self.assertEqual(j["blkperf_suspect"], ["other_cpu", "trend"])


class CommandLineTest(unittest.TestCase):
    def test_prints_a_row_from_the_files(self):
        base = [100.0, 101, 99, 100, 102, 98, 100, 101, 99, 100]
        arm = [x * 1.2 for x in base]
        with tempfile.TemporaryDirectory() as d:
            e = os.path.join(d, "e.json")
            t = os.path.join(d, "t.tsv")
            with open(e, "w") as f:
                json.dump({"experiment": experiment(base, arm, 1.2, (1.19, 1.21),
                                                    "faster")}, f)
            with open(t, "w") as f:
                for i, x in enumerate(base):
                    f.write(f"{i}\tA\t{x}\n{i}\tB\t{x * 1.21}\n")
                f.write("99\tA\t5\n")  # a round without its B is left out
            out = subprocess.run([sys.executable, va.__file__, "--blkperf", e,
                                  "--tio", t, "--label", "128k", "--header"],
                                 capture_output=True, text=True, check=True).stdout
        lines = out.strip().split("\n")
        self.assertEqual(len(lines), 3)
        self.assertEqual(lines[0].count("|"), lines[1].count("|"))
        self.assertEqual(lines[0].count("|"), lines[2].count("|"))
        self.assertTrue(lines[2].startswith("| 128k | 1.200 (10 rounds) |"), lines[2])
        self.assertIn("| 1.210 (10 rounds) |", lines[2])
        self.assertTrue(lines[2].endswith("| yes | yes |"), lines[2])


if __name__ == "__main__":
    unittest.main()
