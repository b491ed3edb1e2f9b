#!/usr/bin/env python3
"""Starts blkperfd exactly as the deployments do, and waits for it to be ready.

For the Kubernetes DaemonSet (deploy/kubernetes/*.yaml) and the systemd
unit with its env file (deploy/systemd/): the command, arguments and
environment come from those files; every path the daemon is given is mapped
into a temporary root (mounted Secrets, ConfigMaps and emptyDirs; the unit's
/etc/blkperf, StateDirectory= and LogsDirectory=; the benchmarked block
device becomes a small file). Secrets are certificates made here with the
names the manifests' comments give (the daemon's: DNS SAN of the headless
Service and localhost; a client's: the URI SAN its role needs in the roles
file that is shipped). The daemon runs in a network namespace of its own,
so its listen addresses (0.0.0.0:7777, 0.0.0.0:9477) are used unchanged.

FleetJobTest: the fleet-run Job's own arguments against daemons whose
certificates carry only the Service's DNS name (see there).

Ready means: the DaemonSet's own readinessProbe answers within READY_S: an
exec probe's command (mapped the same way) exits 0; a grpc probe (the
kubelet's own, plaintext, no client certificate) is made as the kubelet
makes it, grpc.health.v1.Health/Check on the pod's address and the probe's
port, here by `blkperf health` without TLS flags, and must say SERVING; the
liveness probe is checked the same way. For systemd, `blkperf health` with
the shipped roles file's viewer identity. A daemon that exits (TLS without a
roles file exits 1) fails the test with its stderr. Root (network
namespace); every file lives under TEST_TMPDIR.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import yaml

READY_S = 20
ARGS = None


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


class Pki:
    """A CA and leaf certificates (P-256) made with openssl."""

    def __init__(self, d):
        self.dir = d
        self.ca_key, self.ca = self._path("ca.key"), self._path("ca.crt")
        run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
             "ec_paramgen_curve:P-256", "-nodes", "-keyout", self.ca_key,
             "-out", self.ca, "-days", "2", "-subj", "/CN=blkperf test CA"])

    def _path(self, name):
        return os.path.join(self.dir, name)

    def leaf(self, name, san, server):
        key, csr, crt = (self._path(f"{name}.{e}") for e in ("key", "csr", "crt"))
        ext = self._path(f"{name}.ext")
        usage = "serverAuth" if server else "clientAuth"
        with open(ext, "w") as f:
            f.write(f"subjectAltName={san}\nextendedKeyUsage={usage}\n"
                    "keyUsage=digitalSignature\n")
        run(["openssl", "req", "-newkey", "ec", "-pkeyopt",
             "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", csr,
             "-subj", f"/CN={name}"])
        run(["openssl", "x509", "-req", "-in", csr, "-CA", self.ca, "-CAkey",
             self.ca_key, "-CAcreateserial", "-out", crt, "-days", "2",
             "-extfile", ext])
        return crt, key


def identity_san(identity):
    return f"URI:{identity}" if "://" in identity else f"DNS:{identity}"


def roles_of(text):
    """[(role, identity)] of a roles file."""
    out = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            role, identity = line.split(None, 1)
            out.append((role, identity.strip()))
    return out


class Mapper:
    """Absolute deployment paths -> paths under a temporary root."""

    def __init__(self, root, binaries):
        self.root, self.binaries, self.prefixes = root, binaries, []

    def add(self, path):
        self.prefixes.append(path.rstrip("/"))
        local = self.root + path
        return local

    def __call__(self, text):
        for name, local in self.binaries.items():
            text = text.replace(f"/usr/local/bin/{name}", local)
        for p in sorted(self.prefixes, key=len, reverse=True):
            text = re.sub(re.escape(p) + r"(?=/|$|,|\s)", self.root + p, text)
        return text


class Daemon:
    """blkperfd in a network namespace of its own."""

    def __init__(self, argv, env, log):
        self.log = log
        self.proc = subprocess.Popen(
            ["unshare", "--net", "sh", "-c",
             'ip link set lo up && exec "$@"', "sh", *argv],
            env=env, stdout=log, stderr=subprocess.STDOUT)

    def wait_ready(self, probe):
        deadline = time.monotonic() + READY_S
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return f"blkperfd exited {self.proc.returncode}"
            last = subprocess.run(
                ["nsenter", "--net=/proc/%d/ns/net" % self.proc.pid, *probe],
                capture_output=True, text=True, timeout=30)
            if last.returncode == 0:
                return None
            time.sleep(0.5)
        return f"not ready in {READY_S}s: {last.stdout}{last.stderr}"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Base(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.root = os.path.join(self.dir, "root")
        self.pki = Pki(self.dir)
        self.map = Mapper(self.root, {"blkperfd": ARGS.blkperfd,
                                      "blkperf": ARGS.blkperf})

    def tearDown(self):
        shutil.rmtree(self.dir)

    def start(self, argv, env, probe, also=None):
        """Starts the daemon and waits for `probe`; then `also` (another
        probe) must pass too."""
        log_path = os.path.join(self.dir, "blkperfd.log")
        with open(log_path, "w") as log:
            daemon = Daemon(argv, env, log)
            try:
                error = daemon.wait_ready(probe)
                if error is None and also is not None:
                    error = daemon.wait_ready(also)
            finally:
                daemon.stop()
        with open(log_path) as f:
            self.assertIsNone(error, f"{shlex.join(argv)}\n{f.read()}")

    # --- Kubernetes ---

    def kubernetes(self):
        docs = []
        for path in ARGS.manifests:
            with open(path) as f:
                docs += [d for d in yaml.safe_load_all(f) if d]
        ds = next(d for d in docs if d["kind"] == "DaemonSet")
        maps = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ConfigMap"}
        return ds["spec"]["template"]["spec"], maps

    def fill_volume(self, volume, local, maps):
        """Writes what the volume would hold at `local`; returns its roles."""
        if "configMap" in volume:
            os.makedirs(local)
            cm = maps[volume["configMap"]["name"]]
            for key, text in cm["data"].items():
                with open(os.path.join(local, key), "w") as f:
                    f.write(text)
        elif "secret" in volume:
            os.makedirs(local)
            name = volume["secret"]["secretName"]
            if name == "blkperfd-tls":
                crt, key = self.pki.leaf(
                    "server", "DNS:blkperfd.blkperf.svc.cluster.local,"
                    "DNS:localhost", server=True)
            else:
                crt, key = self.client_cert_for_secret(name, maps)
            for src, dst in ((crt, "tls.crt"), (key, "tls.key"),
                             (self.pki.ca, "ca.crt")):
                shutil.copy(src, os.path.join(local, dst))
        elif "emptyDir" in volume:
            os.makedirs(local)
        elif volume.get("hostPath", {}).get("type") == "BlockDevice":
            os.makedirs(os.path.dirname(local), exist_ok=True)
            with open(local, "wb") as f:
                f.truncate(1 << 20)
        else:
            self.fail(f"volume kind not mapped: {volume}")

    def client_cert_for_secret(self, secret, maps):
        self.fail(f"the DaemonSet mounts a client certificate ({secret}): "
                  "its probes need none")

    def probe_command(self, probe):
        """The argv that makes `probe` (a container probe) as the kubelet
        does, inside the daemon's network namespace."""
        if "exec" in probe:
            return [self.map(a) for a in probe["exec"]["command"]]
        self.assertIn("grpc", probe, f"probe kind not mapped: {probe}")
        return [ARGS.blkperf, f"--server=127.0.0.1:{probe['grpc']['port']}",
                "--connect_timeout=2s", "health"]

class StartTest(Base):
    def test_daemonset_starts_and_becomes_ready(self):
        pod, maps = self.kubernetes()
        c = pod["containers"][0]
        volumes = {v["name"]: v for v in pod["volumes"]}
        for m in c["volumeMounts"]:
            local = self.map.add(m["mountPath"])
            self.fill_volume(volumes[m["name"]], local, maps)
        argv = [self.map(a) for a in c["command"] + c.get("args", [])]
        env = dict(os.environ)
        for e in c.get("env", []):
            env[e["name"]] = self.map(e["value"])
        self.start(argv, env, self.probe_command(c["readinessProbe"]),
                   also=self.probe_command(c["livenessProbe"]))

    # --- systemd ---

    def test_systemd_unit_starts_and_becomes_ready(self):
        with open(ARGS.unit) as f:
            unit = f.read().replace("\\\n", " ")
        exec_start = re.search(r"^ExecStart=(.*)$", unit, re.M).group(1)
        env = {}
        with open(ARGS.env) as f:
            for line in f:
                if line.strip() and not line.lstrip().startswith("#"):
                    k, _, v = line.strip().partition("=")
                    env[k] = v
        # systemd: ${VAR} is replaced inside a word, $VAR splits into words.
        words = []
        for w in shlex.split(exec_start):
            if re.fullmatch(r"\$\w+", w):
                words += env[w[1:]].split()
            else:
                words.append(re.sub(r"\$\{(\w+)\}", lambda m: env[m.group(1)], w))
        for key in ("StateDirectory", "LogsDirectory"):
            for name in re.findall(rf"^{key}=(\S+)", unit, re.M):
                base = "/var/lib/" if key == "StateDirectory" else "/var/log/"
                os.makedirs(self.map.add(base + name))
        self.map.add("/etc/blkperf")
        flags = dict(w[2:].split("=", 1) for w in words if w.startswith("--") and "=" in w)
        for dev in re.findall(r"^DeviceAllow=(\S+)", unit, re.M):
            local = self.map.add(dev)
            os.makedirs(os.path.dirname(local), exist_ok=True)
            with open(local, "wb") as f:
                f.truncate(1 << 20)
        # The files the unit's header installs under /etc/blkperf.
        crt, key = self.pki.leaf("server", "DNS:localhost", server=True)
        for flag, src in (("tls_cert", crt), ("tls_key", key),
                          ("tls_client_ca", self.pki.ca),
                          ("roles_file", ARGS.roles)):
            self.assertIn(flag, flags, f"the unit gives no --{flag}")
            local = self.map(flags[flag])
            os.makedirs(os.path.dirname(local), exist_ok=True)
            shutil.copy(src, local)
        with open(ARGS.roles) as f:
            viewer = [i for r, i in roles_of(f.read()) if r == "viewer"]
        self.assertTrue(viewer, "the shipped roles file has no viewer")
        ccrt, ckey = self.pki.leaf("monitor", identity_san(viewer[0]), server=False)
        port = flags["listen"].rsplit(":", 1)[1]
        probe = [ARGS.blkperf, f"--server=localhost:{port}",
                 f"--tls_ca={self.pki.ca}", f"--tls_cert={ccrt}",
                 f"--tls_key={ckey}", "--connect_timeout=2s", "health"]
        self.start([self.map(w) for w in words], dict(os.environ), probe)


class FleetJobTest(Base):
    """The fleet-run Job's own `blkperf fleet run` arguments against two
    daemons started with the DaemonSet's arguments, whose certificates carry
    only the Service's DNS name. The name resolves to both daemons through a
    private /etc/hosts (a mount namespace of its own, as
    fleet/dns_inventory_test.sh does); daemons and client share a network
    namespace, the daemons on 127.0.0.2 and 127.0.0.3. The Job's --runtime
    is cut to RUNTIME (the one argument changed); everything else is as
    shipped."""

    RUNTIME = "--runtime=2s"

    def test_job_completes_tls_with_dns_only_certificates(self):
        docs = []
        for path in ARGS.manifests:
            with open(path) as f:
                docs += [d for d in yaml.safe_load_all(f) if d]
        job = next(d for d in docs if d["kind"] == "Job")
        self.job = job
        jc = job["spec"]["template"]["spec"]["containers"][0]
        hosts = next(a for a in jc["args"] if a.startswith("--hosts=dns:///"))
        name, port = hosts[len("--hosts=dns:///"):].rsplit(":", 1)
        pod, maps = self.kubernetes()
        dc = pod["containers"][0]
        ns = subprocess.Popen(["unshare", "--net", "--mount", "--propagation",
                               "private", "sleep", "600"])
        try:
            self._run_fleet(ns.pid, name, port, jc, pod, dc, maps)
        finally:
            ns.kill()
            ns.wait()

    def _run_fleet(self, pid, name, port, jc, pod, dc, maps):
        enter = ["nsenter", f"--net=/proc/{pid}/ns/net",
                 f"--mount=/proc/{pid}/ns/mnt"]
        time.sleep(0.2)
        run(enter + ["ip", "link", "set", "lo", "up"])
        hosts_file = os.path.join(self.dir, "hosts")
        ips = ["127.0.0.2", "127.0.0.3"]
        with open(hosts_file, "w") as f:
            f.write("127.0.0.1 localhost\n")
            f.writelines(f"{ip} {name}\n" for ip in ips)
        run(enter + ["mount", "--bind", hosts_file, "/etc/hosts"])
        roles = [r for cm in maps.values() for text in cm["data"].values()
                 for r in roles_of(text)]
        operator = [i for role, i in roles if role == "operator"]
        self.assertTrue(operator, "no operator identity for the fleet Job")
        server = self.pki.leaf("server", f"DNS:{name}", server=True)
        client = self.pki.leaf("job", identity_san(operator[0]), server=False)
        shared = os.path.join(self.dir, "shared")
        daemons = []
        try:
            for i, ip in enumerate(ips):
                argv = self._daemon_argv(i, ip, port, pod, dc, maps, server,
                                         shared)
                log = open(os.path.join(self.dir, f"d{i}.log"), "w")
                daemons.append((subprocess.Popen(
                    enter + argv, stdout=log, stderr=subprocess.STDOUT), log))
            job_root = os.path.join(self.dir, "job")
            job_map = Mapper(job_root, {"blkperf": ARGS.blkperf})
            job_volumes = {v["name"]: v for v in
                           self.job["spec"]["template"]["spec"]["volumes"]}
            for m in jc["volumeMounts"]:
                local = job_map.add(m["mountPath"])
                os.makedirs(local)
                if "secret" not in job_volumes[m["name"]]:
                    continue  # the results volume: empty
                for src, dst in ((client[0], "tls.crt"), (client[1], "tls.key"),
                                 (self.pki.ca, "ca.crt")):
                    shutil.copy(src, os.path.join(local, dst))
            shared_map = Mapper(shared, {})
            for v in pod["volumes"]:
                if "hostPath" in v:
                    shared_map.add(v["hostPath"]["path"])
            argv = [shared_map(job_map(self._expand(a, self.job, jc)))
                    for a in jc["command"] + jc["args"]]
            argv = [self.RUNTIME if a.startswith("--runtime=") else a
                    for a in argv]
            time.sleep(1)
            out = subprocess.run(enter + argv, capture_output=True, text=True,
                                 timeout=60)
        finally:
            for proc, log in daemons:
                proc.terminate()
                proc.wait(timeout=20)
                log.close()
        logs = ""
        for i in range(len(ips)):
            with open(os.path.join(self.dir, f"d{i}.log")) as f:
                logs += f.read()
        self.assertEqual(out.returncode, 0,
                         f"{shlex.join(argv)}\n{out.stderr}\n{logs}")
        # The log (stdout and stderr) holds no report: it is in the file.
        self.assertEqual(out.stdout, "")
        report_file = next(a for a in argv if a.startswith("--report_file="))
        with open(report_file.split("=", 1)[1]) as f:
            report = json.load(f)
        self.assertEqual(report["outcome"], "completed")
        self.assertEqual(sorted(h["address"] for h in report["hosts"]),
                         [f"{ip}:{port}" for ip in ips])

    @staticmethod
    def _expand(arg, job, container):
        """Kubernetes' $(VAR) expansion in args, from the container's env:
        a value, or the pod label `job-name` (the Job's name) by fieldRef."""
        env = {}
        for e in container.get("env", []):
            if "value" in e:
                env[e["name"]] = e["value"]
            elif e["valueFrom"]["fieldRef"]["fieldPath"] == \
                    "metadata.labels['job-name']":
                env[e["name"]] = job["metadata"]["name"]
        return re.sub(r"\$\((\w+)\)", lambda m: env[m.group(1)], arg)

    def _daemon_argv(self, i, ip, port, pod, dc, maps, server, shared):
        """The DaemonSet's command and arguments for daemon i, listening on
        ip (the pod IP) with its own files; the benchmarked device is one
        file both share, as the Job names one --target for all."""
        m = Mapper(os.path.join(self.dir, f"d{i}"), {"blkperfd": ARGS.blkperfd})
        volumes = {v["name"]: v for v in pod["volumes"]}
        for mount in dc["volumeMounts"]:
            v = volumes[mount["name"]]
            if "hostPath" in v:
                local = shared + mount["mountPath"]
                if not os.path.exists(local):
                    os.makedirs(os.path.dirname(local), exist_ok=True)
                    with open(local, "wb") as f:
                        f.truncate(4 << 20)
                continue
            local = m.add(mount["mountPath"])
            if v.get("secret", {}).get("secretName") == "blkperfd-tls":
                os.makedirs(local)
                for src, dst in ((server[0], "tls.crt"), (server[1], "tls.key"),
                                 (self.pki.ca, "ca.crt")):
                    shutil.copy(src, os.path.join(local, dst))
            else:
                self.fill_volume(v, local, maps)
        shared_map = Mapper(shared, {})
        for mount in dc["volumeMounts"]:
            if "hostPath" in volumes[mount["name"]]:
                shared_map.add(mount["mountPath"])
        argv = [shared_map(m(a)) for a in dc["command"] + dc.get("args", [])]
        argv = [f"--listen={ip}:{port}" if a.startswith("--listen=") else
                f"--metrics_listen={ip}:0" if a.startswith("--metrics_listen=")
                else f"--health_listen={ip}:0" if a.startswith("--health_listen=")
                else a for a in argv]
        return argv


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--blkperfd", required=True)
    p.add_argument("--blkperf", required=True)
    p.add_argument("--unit", required=True)
    p.add_argument("--env", required=True)
    p.add_argument("--roles", required=True)
    p.add_argument("manifests", nargs="+")
    ARGS, rest = p.parse_known_args()
    for name in ("blkperfd", "blkperf", "unit", "env", "roles"):
        setattr(ARGS, name, os.path.abspath(getattr(ARGS, name)))
    ARGS.manifests = [os.path.abspath(m) for m in ARGS.manifests]
    unittest.main(argv=[sys.argv[0], "-v", *rest])


if __name__ == "__main__":
    sys.exit(main())
