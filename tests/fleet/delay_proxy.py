#!/usr/bin/env python3
"""A user-space TCP proxy that delays every byte by a delay +- jitter.

tc netem is not available on the test kernel, so the fleet tests put one of
these in front of each daemon. It listens on --listen (port 0 picks a free
one; the chosen port is written to --port_file), and for each accepted
connection opens one connection to --target and copies bytes both ways.

Each chunk read from one side is written to the other side no earlier than
read time + delay + a uniform sample in [-jitter, +jitter], and never before
the chunk read just before it on the same direction: byte order is kept, so
with jitter a chunk may wait longer than its own sample (never shorter).
The two directions are delayed independently, so a round trip through the
proxy takes 2 * delay +- 2 * jitter (plus the time the peers take).

Bounds: at most --max_connections connections at once (more are refused and
logged), reads of at most 64 KiB, and each direction stops reading while more
than 4 MiB wait to be written.

Usage:
  delay_proxy.py --listen=127.0.0.1:0 --port_file=F --target=10.1.2.3:7777 \
      --delay_ms=20 --jitter_ms=5 [--seed=1]
Runs until SIGTERM or SIGINT; exits 0 then.
"""
import argparse
import collections
import os
import random
import signal
import socket
import sys
import threading
import time

CHUNK_BYTES = 64 * 1024
MAX_QUEUED_BYTES = 4 * 1024 * 1024


def parse_address(text, field):
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"{field} {text!r} is not host:port")
    return host.strip("[]"), int(port)


class DelayedPipe:
    """Copies src -> dst, delaying each chunk; closes dst's write side at EOF."""

    def __init__(self, src, dst, delay_s, jitter_s, rng):
        self.src, self.dst = src, dst
        self.delay_s, self.jitter_s, self.rng = delay_s, jitter_s, rng
        self.queue = collections.deque()  # (deliver_at, bytes); None = EOF
        self.queued_bytes = 0
        self.cond = threading.Condition()
        self.last_deliver_at = 0.0
        self.failed = False
        self.done = threading.Event()

    def start(self):
        for target in (self._read_loop, self._write_loop):
            threading.Thread(target=target, daemon=True).start()

    def _deliver_at(self, now):
        sample = self.rng.uniform(-self.jitter_s, self.jitter_s)
        at = max(now + max(0.0, self.delay_s + sample), self.last_deliver_at)
        self.last_deliver_at = at
        return at

    def _read_loop(self):
        while True:
            try:
                data = self.src.recv(CHUNK_BYTES)
            except OSError:
                data = b""
            with self.cond:
                if data:
                    while (self.queued_bytes > MAX_QUEUED_BYTES
                           and not self.failed):
                        self.cond.wait()
                    if self.failed:
                        return
                    self.queue.append((self._deliver_at(time.monotonic()), data))
                    self.queued_bytes += len(data)
                else:
                    self.queue.append((self._deliver_at(time.monotonic()), None))
                self.cond.notify_all()
            if not data:
                return

    def _write_loop(self):
        while True:
            with self.cond:
                while not self.queue:
                    self.cond.wait()
                deliver_at, data = self.queue[0]
            wait_s = deliver_at - time.monotonic()
            if wait_s > 0:
                time.sleep(wait_s)
            with self.cond:
                self.queue.popleft()
                if data is not None:
                    self.queued_bytes -= len(data)
                self.cond.notify_all()
            try:
                if data is None:
                    self.dst.shutdown(socket.SHUT_WR)
                    self.done.set()
                    return
                self.dst.sendall(data)
            except OSError:
                with self.cond:
                    self.failed = True
                    self.cond.notify_all()
                # The peer is gone: stop the other side too.
                for s in (self.src, self.dst):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                self.done.set()
                return


class DelayProxy:
    def __init__(self, listen, target, delay_s, jitter_s, seed,
                 max_connections):
        self.target = target
        self.delay_s, self.jitter_s = delay_s, jitter_s
        self.rng = random.Random(seed)
        self.max_connections = max_connections
        self.open_connections = 0
        self.lock = threading.Lock()
        self.server = socket.create_server(listen, backlog=128)

    @property
    def port(self):
        return self.server.getsockname()[1]

    def serve_forever(self):
        while True:
            client, peer = self.server.accept()
            with self.lock:
                if self.open_connections >= self.max_connections:
                    print(f"delay_proxy: refused {peer[0]}:{peer[1]}: "
                          f"{self.max_connections} connections open "
                          "(--max_connections)", file=sys.stderr, flush=True)
                    client.close()
                    continue
                self.open_connections += 1
            threading.Thread(target=self._connect, args=(client,),
                             daemon=True).start()

    def _connect(self, client):
        try:
            upstream = socket.create_connection(self.target, timeout=10)
            upstream.settimeout(None)
        except OSError as e:
            print(f"delay_proxy: cannot reach {self.target}: {e}",
                  file=sys.stderr, flush=True)
            client.close()
            self._closed()
            return
        for s in (client, upstream):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        pipes = [DelayedPipe(client, upstream, self.delay_s, self.jitter_s,
                             random.Random(self.rng.random())),
                 DelayedPipe(upstream, client, self.delay_s, self.jitter_s,
                             random.Random(self.rng.random()))]
        threading.Thread(target=self._reap, args=(pipes, client, upstream),
                         daemon=True).start()
        for p in pipes:
            p.start()

    def _reap(self, pipes, client, upstream):
        # Each pipe sets `done` once it delivered EOF or its peer failed.
        for p in pipes:
            p.done.wait()
        client.close()
        upstream.close()
        self._closed()

    def _closed(self):
        with self.lock:
            self.open_connections -= 1


def exit_with_parent():
    """SIGTERM when the parent dies (PR_SET_PDEATHSIG), even by SIGKILL."""
    import ctypes
    pr_set_pdeathsig = 1
    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG)")
    if os.getppid() != parent:  # it died before prctl took effect
        sys.exit(0)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", default="127.0.0.1:0")
    parser.add_argument("--target", required=True)
    parser.add_argument("--delay_ms", type=float, default=0.0)
    parser.add_argument("--jitter_ms", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--max_connections", type=int, default=256)
    parser.add_argument("--port_file", default="")
    parser.add_argument("--exit_with_parent", action="store_true",
                        help="exit when the process that started it dies")
    args = parser.parse_args(argv)
    if args.delay_ms < 0:
        parser.error(f"--delay_ms {args.delay_ms} is negative")
    if args.jitter_ms < 0 or args.jitter_ms > args.delay_ms:
        parser.error(f"--jitter_ms {args.jitter_ms} must be in [0, --delay_ms]")
    try:
        listen = parse_address(args.listen, "--listen")
        target = parse_address(args.target, "--target")
    except ValueError as e:
        parser.error(str(e))
    proxy = DelayProxy(listen, target, args.delay_ms / 1e3,
                       args.jitter_ms / 1e3, args.seed, args.max_connections)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    if args.exit_with_parent:
        exit_with_parent()
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(f"{proxy.port}\n")
        os.rename(args.port_file + ".tmp", args.port_file)
    try:
        proxy.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
