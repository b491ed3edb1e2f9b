#!/usr/bin/env python3
"""Tests of page_primer.py: it holds the memory it was asked for once it
says ready, lets go of it on SIGTERM or SIGINT, and refuses a bad size."""
import os
import signal
import subprocess
import sys
import unittest

PRIMER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "page_primer.py")


def resident_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


class PagePrimerTest(unittest.TestCase):
    def start(self, mib):
        primer = subprocess.Popen([sys.executable, PRIMER, str(mib)],
                                  stdout=subprocess.PIPE, text=True)
        self.assertEqual(primer.stdout.readline(), "ready\n")
        return primer

    def test_holds_what_it_was_asked_for_until_sigterm(self):
        primer = self.start(48)
        try:
            self.assertGreaterEqual(resident_kib(primer.pid), 48 * 1024)
            self.assertIsNone(primer.poll())  # still holding
        finally:
            primer.send_signal(signal.SIGTERM)
        self.assertEqual(primer.wait(timeout=10), 0)

    def test_sigint_ends_it_too(self):
        primer = self.start(4)
        primer.send_signal(signal.SIGINT)
        self.assertEqual(primer.wait(timeout=10), 0)

    def test_refuses_a_size_that_is_not_a_positive_number(self):
        for bad in ("0", "-1", "1g", ""):
            done = subprocess.run([sys.executable, PRIMER, bad],
                                  capture_output=True, text=True, timeout=10)
            self.assertNotEqual(done.returncode, 0, bad)
            self.assertIn("positive number of MiB", done.stderr)


if __name__ == "__main__":
    unittest.main()
