"""A fleet of real `blkperfd serve` daemons on one machine, for tests.

Each host gets its own network namespace (a veth pair onto a bridge, an
address in a private /24 that only these hosts and the root namespace's
bridge address use), its own time namespace whose CLOCK_MONOTONIC is offset
by hours from the others (`unshare --time --monotonic=...`), its own data
directory and a small file target, and a TCP delay proxy (delay_proxy.py,
delay +- jitter per direction, byte order kept) listening on 127.0.0.1 in
the root namespace in front of its gRPC port. Python 3 standard library
only; needs root (ip netns, unshare) like the rest of blkperf's tests.

Each daemon runs `blkperfd serve --listen=<its ip>:0 --port_file=...
--data_dir=<host dir>/data --allow_read_paths=<host dir>/
--allow_write_paths=<host dir>/ --metrics_listen=<its ip>:9477` plus the
caller's daemon_flags; its output goes to Host.log_path.

Everything is named `bpf-<suffix>...` with a random suffix, so parallel runs
never collide, and everything is removed on exit, on an exception, at
interpreter exit (atexit) and on SIGTERM/SIGINT/SIGHUP: daemons and proxies
are stopped, the namespaces, veths and bridge deleted, the temp dir removed.

Usage (the orchestrator's tests; import with tests/fleet on sys.path):

    from fleet_harness import Fleet

    with Fleet(blkperfd="bazel-bin/daemon/blkperfd", hosts=8,
               delay_ms=5, jitter_ms=1,
               daemon_flags=["--max_workloads=2"]) as fleet:
        hosts = fleet.hosts_flag()        # "127.0.0.1:P1,127.0.0.1:P2,..."
        subprocess.run([blkperf, "fleet", "run", f"--hosts={hosts}",
                        f"--target={fleet.hosts[0].target_path}", ...])
        fleet.hosts[3].kill()             # a host lost mid-run
        fleet.hosts[5].pause()            # a host that stops answering

API:
  Fleet(blkperfd, hosts=8, *, delay_ms=0, jitter_ms=0,
        monotonic_offsets_s=None, daemon_flags=(), target_size=16 MiB,
        workdir=None, start_timeout_s=30, seed=None, insecure_listen="auto",
        spread_cpus=False)
    blkperfd            path of the daemon binary.
    hosts               number of hosts (1..200).
    delay_ms, jitter_ms the proxy's delay and jitter per direction (a round
                        trip through a proxy adds 2*delay +- 2*jitter).
    monotonic_offsets_s one CLOCK_MONOTONIC offset (whole seconds, >= 0) per
                        host; default host i gets i * 3 h (10800 s).
    daemon_flags        extra `blkperfd serve` flags for every host: a list,
                        or a function Host -> list (e.g. per-host TLS files
                        under host.dir).
    insecure_listen     "auto" (default): add --insecure_listen when the
                        daemon has that flag (mutual TLS, issue 9: a
                        non-loopback listen without TLS is refused otherwise)
                        and the host's flags hold no --tls_cert; the hosts
                        listen on the fleet's private bridge address. True
                        or False: always or never add it.
    spread_cpus         True: host i's daemon runs confined to one CPU of the
                        caller's affinity mask, i modulo its size (`taskset
                        -c`), so its workloads' default placement is that
                        CPU: hosts share CPUs only as far as there are too
                        few (separate machines would not at all). False
                        (default): every daemon sees every CPU.
    target_size         bytes of each host's file target (written with zeros).
    workdir             parent of the fleet's temp dir (default $TEST_TMPDIR
                        or the system temp dir).
  Fleet.start() / Fleet.close() are what `with` calls; close() is idempotent.
      Start it from a thread that outlives it (the proxies exit when the
      thread that started them does: PR_SET_PDEATHSIG).
  Fleet.hosts          list of Host.
  Fleet.hosts_flag(direct=False)  comma list of proxy (or direct) addresses.
  Fleet.write_hosts_file(path, direct=False)  one host:port a line.
  Fleet.write_file_sd(path)  Prometheus file_sd JSON, the shared inventory
                        form of `blkperf fleet run --hosts=FILE.json`: one
                        group per host, target its metrics address, label
                        blkperf_grpc its gRPC port, label host its name. The
                        control addresses it implies are the direct ones
                        (ip:blkperf_grpc): file_sd cannot name the proxies.
  Fleet.suffix, Fleet.bridge, Fleet.subnet ("10.a.b.0/24"), Fleet.dir.
  Fleet.leftovers()    netns, links and live pids of this fleet still present
                        (empty after close(); the self-test checks that).
  sweep_dead_fleets()   removes what fleets whose process died by SIGKILL
                        left (their owner pid is recorded in OWNER_DIR);
                        Fleet.start() calls it first.
  Host.index, .name, .netns, .ip, .dir (its temp dir), .data_dir,
      .target_path, .log_path, .pid, .monotonic_offset_s,
      .grpc_address (direct, "10.a.b.c:port", no delay),
      .proxy_address ("127.0.0.1:port", delayed),
      .metrics_address ("10.a.b.c:9477", reachable from the root namespace).
  Host.kill(sig=SIGKILL), Host.stop() (SIGTERM and wait), Host.pause()
      (SIGSTOP), Host.resume() (SIGCONT), Host.alive().
  Host.monotonic_now()  the host's CLOCK_MONOTONIC, read by a process that
      joins its time namespace (nsenter --time), as a float in seconds.
  Host.timens_offsets() the kernel's /proc/<pid>/timens_offsets monotonic
      offset of the daemon, in seconds.
"""
import atexit
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROXY = os.path.join(HERE, "delay_proxy.py")
DEFAULT_OFFSET_STEP_S = 3 * 3600
METRICS_PORT = 9477  # inside each host's own namespace: always free there
MAX_HOSTS = 200
# One file per live fleet, named by its suffix, holding its owner's pid.
OWNER_DIR = "/run/blkperf-fleet"
FIRST_HOST_OCTET = 10

_live_fleets = set()
_live_lock = threading.Lock()
_handlers_installed = False


def _run(*args, check=True):
    return subprocess.run(list(args), check=check, capture_output=True,
                          text=True, timeout=60)


def _wait_for_file(path, process, what, timeout_s):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                text = f.read().strip()
            if text:
                return text
        except FileNotFoundError:
            pass
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode} "
                               "before writing its port file")
        time.sleep(0.05)
    raise TimeoutError(f"{what}: no port file after {timeout_s}s")


def _serve_flags(binary):
    """Names of the flags `blkperfd serve` knows (from --helpfull)."""
    out = subprocess.run([binary, "serve", "--helpfull"], capture_output=True,
                         text=True, timeout=30)
    return set(re.findall(r"^\s+--(\w+) ", out.stdout, re.MULTILINE))


def _stop_process(process, timeout_s=10):
    if process is None or process.poll() is not None:
        return
    try:
        process.send_signal(signal.SIGCONT)
        process.terminate()
        process.wait(timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class Host:
    """One daemon: its namespaces, files, process and proxy."""

    def __init__(self, fleet, index, offset_s):
        self.fleet = fleet
        self.index = index
        self.name = f"host{index}"
        self.netns = f"bpf-{fleet.suffix}-{index}"
        self.veth_root = f"bpf-{fleet.suffix}-h{index}"
        self.veth_ns = f"bpf-{fleet.suffix}-n{index}"
        self.ip = f"{fleet.subnet_prefix}.{FIRST_HOST_OCTET + index}"
        self.dir = os.path.join(fleet.dir, self.name)
        self.data_dir = os.path.join(self.dir, "data")
        self.target_path = os.path.join(self.dir, "target.dat")
        self.log_path = os.path.join(self.dir, "blkperfd.log")
        self.monotonic_offset_s = offset_s
        self.metrics_address = f"{self.ip}:{METRICS_PORT}"
        self.grpc_address = None
        self.proxy_address = None
        self.process = None
        self.proxy = None

    @property
    def pid(self):
        return self.process.pid if self.process else None

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def kill(self, sig=signal.SIGKILL):
        if self.alive():
            self.process.send_signal(sig)
            if sig in (signal.SIGKILL, signal.SIGTERM):
                self.process.wait(30)

    def stop(self):
        _stop_process(self.process, timeout_s=15)

    def pause(self):
        self.kill(signal.SIGSTOP)

    def resume(self):
        self.kill(signal.SIGCONT)

    def monotonic_now(self):
        out = _run("nsenter", f"--target={self.pid}", "--time", sys.executable,
                   "-c", "import time;"
                   "print(time.clock_gettime(time.CLOCK_MONOTONIC))")
        return float(out.stdout)

    def timens_offsets(self):
        with open(f"/proc/{self.pid}/timens_offsets") as f:
            for line in f:
                clock, seconds, nanos = line.split()
                if clock == "monotonic":
                    return int(seconds) + int(nanos) / 1e9
        raise RuntimeError(f"no monotonic line in /proc/{self.pid}/timens_offsets")

    # Setup steps, called by Fleet.start().
    def _make_network(self):
        f = self.fleet
        _run("ip", "netns", "add", self.netns)
        f._netns.append(self.netns)
        _run("ip", "link", "add", self.veth_root, "type", "veth", "peer",
             "name", self.veth_ns)
        f._links.append(self.veth_root)
        _run("ip", "link", "set", self.veth_ns, "netns", self.netns)
        _run("ip", "link", "set", self.veth_root, "master", f.bridge, "up")
        ns = ("ip", "-n", self.netns)
        _run(*ns, "link", "set", "lo", "up")
        _run(*ns, "addr", "add", f"{self.ip}/24", "dev", self.veth_ns)
        _run(*ns, "link", "set", self.veth_ns, "up")

    def _make_files(self, target_size):
        os.makedirs(self.data_dir)
        zeros = bytes(1 << 20)
        with open(self.target_path, "wb") as out:
            left = target_size
            while left > 0:
                left -= out.write(zeros[:min(left, len(zeros))])

    def _start_daemon(self, binary, extra_flags):
        port_file = os.path.join(self.dir, "grpc_port")
        command = [
            "ip", "netns", "exec", self.netns,
            "unshare", "--time", f"--monotonic={self.monotonic_offset_s}",
            *self._cpu_confinement(),
            binary, "serve", f"--listen={self.ip}:0",
            f"--port_file={port_file}", f"--data_dir={self.data_dir}",
            f"--allow_read_paths={self.dir}/",
            f"--allow_write_paths={self.dir}/",
            f"--metrics_listen={self.metrics_address}", *extra_flags]
        with open(self.log_path, "w") as log:
            log.write(" ".join(command) + "\n")
            log.flush()
            # ip netns exec and unshare both exec: the pid is the daemon's.
            self.process = subprocess.Popen(command, stdout=log,
                                            stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL)

    def _cpu_confinement(self):
        """`taskset -c CPU` for a fleet with spread_cpus, else nothing."""
        if not self.fleet.spread_cpus:
            return []
        cpus = sorted(os.sched_getaffinity(0))
        return ["taskset", "-c", str(cpus[self.index % len(cpus)])]

    def _wait_daemon(self, timeout_s):
        port_file = os.path.join(self.dir, "grpc_port")
        try:
            port = _wait_for_file(port_file, self.process,
                                  f"blkperfd on {self.name}", timeout_s)
        except (RuntimeError, TimeoutError) as e:
            with open(self.log_path) as f:
                tail = f.read()[-2000:]
            raise RuntimeError(f"{e}; its log ends:\n{tail}") from None
        self.grpc_address = f"{self.ip}:{port}"

    def _start_proxy(self, delay_ms, jitter_ms, seed):
        port_file = os.path.join(self.dir, "proxy_port")
        with open(os.path.join(self.dir, "proxy.log"), "w") as log:
            self.proxy = subprocess.Popen(
                [sys.executable, PROXY, "--listen=127.0.0.1:0",
                 f"--port_file={port_file}", f"--target={self.grpc_address}",
                 f"--delay_ms={delay_ms}", f"--jitter_ms={jitter_ms}",
                 f"--seed={seed}", "--exit_with_parent"],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def _wait_proxy(self, timeout_s):
        port = _wait_for_file(os.path.join(self.dir, "proxy_port"), self.proxy,
                              f"delay proxy of {self.name}", timeout_s)
        self.proxy_address = f"127.0.0.1:{port}"


class Fleet:
    """See the module docstring."""

    def __init__(self, blkperfd, hosts=8, *, delay_ms=0.0, jitter_ms=0.0,
                 monotonic_offsets_s=None, daemon_flags=(),
                 target_size=16 << 20, workdir=None, start_timeout_s=30,
                 seed=None, insecure_listen="auto", spread_cpus=False):
        if not 1 <= hosts <= MAX_HOSTS:
            raise ValueError(f"hosts {hosts} is not in [1, {MAX_HOSTS}]")
        if delay_ms < 0 or not 0 <= jitter_ms <= delay_ms:
            raise ValueError(f"delay_ms {delay_ms} / jitter_ms {jitter_ms}: "
                             "need 0 <= jitter_ms <= delay_ms")
        if monotonic_offsets_s is None:
            monotonic_offsets_s = [i * DEFAULT_OFFSET_STEP_S
                                   for i in range(hosts)]
        if (len(monotonic_offsets_s) != hosts
                or any(int(o) != o or o < 0 for o in monotonic_offsets_s)):
            raise ValueError("monotonic_offsets_s needs one whole number of "
                             f"seconds >= 0 per host ({hosts})")
        self.blkperfd = os.path.abspath(blkperfd)
        self.delay_ms, self.jitter_ms = delay_ms, jitter_ms
        self.daemon_flags = daemon_flags
        if insecure_listen == "auto":
            insecure_listen = "insecure_listen" in _serve_flags(self.blkperfd)
        self.insecure_listen = insecure_listen
        self.target_size = target_size
        self.spread_cpus = spread_cpus
        self.start_timeout_s = start_timeout_s
        self.rng = random.Random(seed)
        self.suffix = "%06x" % random.SystemRandom().getrandbits(24)
        self.bridge = f"bpf-{self.suffix}-br"
        self.subnet_prefix = self._pick_subnet()
        self.subnet = f"{self.subnet_prefix}.0/24"
        parent = workdir or os.environ.get("TEST_TMPDIR") or None
        self.dir = tempfile.mkdtemp(prefix=f"bpf-{self.suffix}-", dir=parent)
        self.hosts = [Host(self, i, int(o))
                      for i, o in enumerate(monotonic_offsets_s)]
        self._netns, self._links = [], []
        self._closed = False

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _pick_subnet(self):
        used = _run("ip", "-4", "-o", "route", "show", "table", "all").stdout
        used += _run("ip", "-4", "-o", "addr", "show").stdout
        for _ in range(100):
            prefix = (f"10.{self.rng.randint(200, 254)}."
                      f"{random.SystemRandom().randint(0, 255)}")
            if f"{prefix}." not in used:
                return prefix
        raise RuntimeError("no free 10.x.y.0/24 subnet found")

    def start(self):
        _register(self)
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    def _start(self):
        sweep_dead_fleets()
        os.makedirs(OWNER_DIR, exist_ok=True)
        with open(os.path.join(OWNER_DIR, self.suffix), "w") as f:
            f.write(f"{os.getpid()}\n{self.dir}\n")
        _run("ip", "link", "add", self.bridge, "type", "bridge")
        self._links.append(self.bridge)
        _run("ip", "addr", "add", f"{self.subnet_prefix}.1/24", "dev",
             self.bridge)
        _run("ip", "link", "set", self.bridge, "up")
        routes = _run("ip", "-4", "-o", "route", "show", self.subnet).stdout
        if len(routes.splitlines()) != 1:
            raise RuntimeError(f"subnet {self.subnet} is also routed "
                               f"elsewhere (a parallel fleet?): {routes}")
        for h in self.hosts:
            h._make_network()
            h._make_files(self.target_size)
            flags = (self.daemon_flags(h) if callable(self.daemon_flags)
                     else list(self.daemon_flags))
            if (self.insecure_listen
                    and not any(f.startswith("--tls_cert") for f in flags)):
                flags.append("--insecure_listen")
            h._start_daemon(self.blkperfd, flags)
        for h in self.hosts:
            h._wait_daemon(self.start_timeout_s)
            h._start_proxy(self.delay_ms, self.jitter_ms,
                           self.rng.getrandbits(32))
        for h in self.hosts:
            h._wait_proxy(self.start_timeout_s)

    def hosts_flag(self, direct=False):
        return ",".join(self._addresses(direct))

    def _addresses(self, direct):
        return [h.grpc_address if direct else h.proxy_address
                for h in self.hosts]

    def write_hosts_file(self, path, direct=False):
        with open(path, "w") as f:
            f.write("".join(a + "\n" for a in self._addresses(direct)))

    def write_file_sd(self, path):
        groups = [{"targets": [h.metrics_address],
                   "labels": {"blkperf_grpc": h.grpc_address.rsplit(":", 1)[1],
                              "host": h.name}}
                  for h in self.hosts]
        with open(path, "w") as f:
            json.dump(groups, f, indent=1)

    def leftovers(self):
        """Names and pids of this fleet that still exist (see close())."""
        netns = _run("ip", "netns", "list").stdout.split()
        links = _run("ip", "-o", "link", "show").stdout
        found = [n for n in netns if n.startswith(f"bpf-{self.suffix}")]
        found += [w.rstrip(":").split("@")[0] for w in links.split()
                  if w.startswith(f"bpf-{self.suffix}")]
        for h in self.hosts:
            for p in (h.process, h.proxy):
                if p is not None and p.poll() is None:
                    found.append(f"pid {p.pid}")
        if os.path.exists(self.dir):
            found.append(self.dir)
        return found

    def close(self):
        if self._closed:
            return
        self._closed = True
        for h in self.hosts:
            _stop_process(h.proxy)
        for h in self.hosts:
            if h.process is not None and h.process.poll() is None:
                h.process.send_signal(signal.SIGCONT)
                h.process.terminate()
        for h in self.hosts:
            _stop_process(h.process, timeout_s=15)
        for ns in self._netns:
            self._kill_netns_pids(ns)
            _run("ip", "netns", "del", ns, check=False)
        for link in reversed(self._links):
            _run("ip", "link", "del", link, check=False)
        shutil.rmtree(self.dir, ignore_errors=True)
        try:
            os.remove(os.path.join(OWNER_DIR, self.suffix))
        except FileNotFoundError:
            pass
        _unregister(self)

    @staticmethod
    def _kill_netns_pids(ns):
        # Only processes inside our own namespace: ones a test started there.
        pids = _run("ip", "netns", "pids", ns, check=False).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass


def sweep_dead_fleets():
    """Removes the namespaces, links and temp dirs of fleets whose owning
    process is gone (killed with SIGKILL, so its cleanup never ran). Fleets of live
    processes, other tests running in parallel included, are left alone.
    Returns the suffixes swept."""
    swept = []
    try:
        owners = os.listdir(OWNER_DIR)
    except FileNotFoundError:
        return swept
    for suffix in owners:
        path = os.path.join(OWNER_DIR, suffix)
        try:
            with open(path) as f:
                pid, fleet_dir = f.read().split("\n")[:2]
                pid = int(pid)
            os.kill(pid, 0)
            continue  # its owner is alive
        except ProcessLookupError:
            pass
        except (OSError, ValueError):
            continue
        prefix = f"bpf-{suffix}-"
        for ns in _run("ip", "netns", "list").stdout.split():
            if ns.startswith(prefix):
                Fleet._kill_netns_pids(ns)
                _run("ip", "netns", "del", ns, check=False)
        for word in _run("ip", "-o", "link", "show").stdout.split():
            name = word.rstrip(":").split("@")[0]
            if name.startswith(prefix):
                _run("ip", "link", "del", name, check=False)
        if os.path.basename(fleet_dir).startswith(f"bpf-{suffix}-"):
            shutil.rmtree(fleet_dir, ignore_errors=True)
        os.remove(path)
        swept.append(suffix)
    return swept


def _register(fleet):
    global _handlers_installed
    with _live_lock:
        _live_fleets.add(fleet)
        if _handlers_installed:
            return
        _handlers_installed = True
    atexit.register(_close_all)
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        previous = signal.getsignal(sig)
        signal.signal(sig, _make_handler(sig, previous))


def _unregister(fleet):
    with _live_lock:
        _live_fleets.discard(fleet)


def _close_all():
    with _live_lock:
        fleets = list(_live_fleets)
    for f in fleets:
        f.close()


def _make_handler(sig, previous):
    def handler(signum, frame):
        _close_all()
        if callable(previous):
            previous(signum, frame)
        else:
            sys.exit(128 + signum)
    return handler
