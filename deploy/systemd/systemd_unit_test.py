#!/usr/bin/env python3
"""Checks deploy/systemd/blkperfd.service and blkperfd.env.

  * `systemd-analyze verify` accepts the unit with no warning at all (it
    exits 0 on an unknown key or a bad value and only warns, so any output
    fails the test), with ExecStart= pointing at the real blkperfd;
  * a misspelled key and a bad value are caught that way (negative checks:
    the check is not vacuous);
  * the hardening docs/deployment.md promises is there with these exact values;
  * DeviceAllow= and the env file's allow lists name the same devices, and
    every ${VAR} ExecStart= uses is set in the env file;
  * `systemd-analyze security --offline` rates the unit's exposure at most
    MAX_EXPOSURE (lower is better; 10 is an unhardened service).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

MAX_EXPOSURE = 3.0
REQUIRED = {
    "NoNewPrivileges": "yes",
    "ProtectSystem": "strict",
    "ProtectHome": "yes",
    "PrivateTmp": "yes",
    "StateDirectory": "blkperf",
    "ReadWritePaths": "/var/lib/blkperf",
    "DevicePolicy": "closed",
    "LimitMEMLOCK": "infinity",
    # The fleet start's real-time wait (SCHED_FIFO 1) without CAP_SYS_NICE.
    "LimitRTPRIO": "1",
    "RestrictRealtime": "no",
    "CapabilityBoundingSet": "CAP_IPC_LOCK",
    "AmbientCapabilities": "CAP_IPC_LOCK",
    "RestrictNamespaces": "yes",
    "SystemCallArchitectures": "native",
}
ARGS = None


def settings(text):
    """Key -> list of values of a unit file (continuation lines joined)."""
    out = {}
    for line in text.replace("\\\n", " ").splitlines():
        line = line.strip()
        if not line or line[0] in "#;[":
            continue
        key, _, value = line.partition("=")
        out.setdefault(key, []).append(value.strip())
    return out


def env_file(text):
    out = {}
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            out[key.strip()] = value.strip()
    return out


class SystemdUnitTest(unittest.TestCase):
    def setUp(self):
        with open(ARGS.unit) as f:
            self.unit = f.read()
        with open(ARGS.env) as f:
            self.env = f.read()
        self.dir = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))

    def tearDown(self):
        shutil.rmtree(self.dir)

    def local_copy(self, text):
        """The unit with ExecStart= and EnvironmentFile= on this machine."""
        text = text.replace("/usr/local/bin/blkperfd", ARGS.blkperfd)
        text = re.sub(r"^EnvironmentFile=.*$",
                      f"EnvironmentFile={os.path.abspath(ARGS.env)}", text,
                      flags=re.MULTILINE)
        path = os.path.join(self.dir, "blkperfd.service")
        with open(path, "w") as f:
            f.write(text)
        return path

    def verify(self, text):
        out = subprocess.run(["systemd-analyze", "verify", self.local_copy(text)],
                             capture_output=True, text=True, timeout=60)
        return out.returncode, (out.stdout + out.stderr).strip()

    def test_verify_is_clean(self):
        self.assertIn("ExecStart=/usr/local/bin/blkperfd serve", self.unit)
        rc, output = self.verify(self.unit)
        self.assertEqual((rc, output), (0, ""))

    def test_verify_catches_a_typo_and_a_bad_value(self):
        typo = self.unit.replace("NoNewPrivileges=yes", "NoNewPrivilegs=yes")
        self.assertIn("Unknown key", self.verify(typo)[1])
        bad = self.unit.replace("ProtectSystem=strict", "ProtectSystem=stric")
        self.assertIn("stric", self.verify(bad)[1])

    def test_hardening(self):
        s = settings(self.unit)
        for key, value in REQUIRED.items():
            self.assertEqual(s.get(key), [value], key)
        self.assertTrue(s.get("DeviceAllow"), "no DeviceAllow=")

    def test_devices_and_env_agree(self):
        s = settings(self.unit)
        env = env_file(self.env)
        allowed = set()
        for key in ("BLKPERFD_ALLOW_READ_PATHS", "BLKPERFD_ALLOW_WRITE_PATHS"):
            allowed |= {p for p in env[key].split(",") if p.startswith("/dev/")}
        devices = {v.split()[0] for v in s["DeviceAllow"]}
        self.assertTrue(devices)
        self.assertEqual(devices, allowed)
        used = set(re.findall(r"\$\{?(\w+)\}?", s["ExecStart"][0]))
        self.assertTrue(used)
        self.assertLessEqual(used, set(env), "ExecStart uses unset variables")

    def test_tls_always_with_a_roles_file(self):
        # blkperfd serve exits 1 on TLS without --roles_file.
        flags = env_file(self.env)["BLKPERFD_EXTRA_FLAGS"].split()
        self.assertTrue(any(f.startswith("--tls_cert=") for f in flags))
        roles = [f for f in flags if f.startswith("--roles_file=")]
        self.assertEqual(len(roles), 1, "--tls_cert without --roles_file")
        self.assertEqual(roles[0], "--roles_file=/etc/blkperf/roles")
        self.assertIn("install -D -m 0644 deploy/systemd/blkperfd.roles "
                      "/etc/blkperf/roles", self.unit)
        self.assertNotRegex(self.unit, r"install -m \S+ \S+ /etc/blkperf/",
                            "install into /etc/blkperf needs -D")
        self.assertEqual(settings(self.unit).get("LogsDirectory"), ["blkperf"])

    def test_exposure(self):
        out = subprocess.run(["systemd-analyze", "security", "--offline=yes",
                              self.local_copy(self.unit)],
                             capture_output=True, text=True, timeout=60)
        m = re.search(r"Overall exposure level for \S+: ([0-9.]+)", out.stdout)
        self.assertIsNotNone(m, out.stdout + out.stderr)
        print(m.group(0))
        self.assertLessEqual(float(m.group(1)), MAX_EXPOSURE)


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--unit", required=True)
    parser.add_argument("--env", required=True)
    parser.add_argument("--blkperfd", required=True)
    ARGS, rest = parser.parse_known_args()
    ARGS.blkperfd = os.path.abspath(ARGS.blkperfd)
    unittest.main(argv=[sys.argv[0], "-v", *rest])


if __name__ == "__main__":
    sys.exit(main())
