#!/usr/bin/env python3
"""Tests of delay_proxy.py against a local echo server (no root needed).

  * bytes come back complete and in order through delay and jitter (4 MiB of
    random data in chunks of random sizes);
  * each round trip takes 2*delay +- 2*jitter: never less, and it varies
    (jitter applied; the proxy's seed is fixed, so the samples are too);
  * a connection beyond --max_connections is refused and the refusal logged;
  * bad flags are refused naming the flag.
"""
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

PROXY = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     "delay_proxy.py")
DELAY_MS = 10.0
JITTER_MS = 4.0


class EchoServer:
    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            conn, _ = self.server.accept()
            threading.Thread(target=self._echo, args=(conn,),
                             daemon=True).start()

    @staticmethod
    def _echo(conn):
        with conn:
            while data := conn.recv(65536):
                conn.sendall(data)


class Proxy:
    def __init__(self, target_port, *flags):
        self.dir = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        port_file = os.path.join(self.dir, "port")
        self.log = os.path.join(self.dir, "log")
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(
                [sys.executable, PROXY, f"--target=127.0.0.1:{target_port}",
                 f"--port_file={port_file}", "--seed=7", *flags],
                stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while not os.path.exists(port_file):
            assert self.process.poll() is None, self.read_log()
            assert time.monotonic() < deadline, "no port file"
            time.sleep(0.02)
        with open(port_file) as f:
            self.address = ("127.0.0.1", int(f.read()))

    def read_log(self):
        with open(self.log) as f:
            return f.read()

    def close(self):
        self.process.terminate()
        self.process.wait(10)


class DelayProxyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.echo = EchoServer()
        cls.proxy = Proxy(cls.echo.port, f"--delay_ms={DELAY_MS}",
                          f"--jitter_ms={JITTER_MS}")

    @classmethod
    def tearDownClass(cls):
        cls.proxy.close()

    def test_bytes_arrive_complete_and_in_order(self):
        rng = random.Random(1)
        payload = rng.randbytes(4 << 20)
        received = bytearray()
        with socket.create_connection(self.proxy.address, timeout=30) as s:
            reader = threading.Thread(
                target=lambda: received.extend(read_all(s, len(payload))))
            reader.start()
            sent = 0
            while sent < len(payload):
                n = rng.randint(1, 200_000)
                s.sendall(payload[sent:sent + n])
                sent += n
            reader.join(60)
        self.assertEqual(len(received), len(payload))
        self.assertTrue(received == payload, "bytes reordered or changed")

    def test_round_trip_is_twice_the_delay_with_jitter(self):
        rtts = []
        with socket.create_connection(self.proxy.address, timeout=10) as s:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for i in range(20):
                started = time.monotonic()
                s.sendall(b"%08d" % i)
                self.assertEqual(read_all(s, 8), b"%08d" % i)
                rtts.append((time.monotonic() - started) * 1e3)
        print("RTTs (ms):", " ".join(f"{r:.1f}" for r in rtts))
        self.assertGreaterEqual(min(rtts), 2 * (DELAY_MS - JITTER_MS))
        # Jitter was applied: the spread of 20 samples of two uniform
        # +-4 ms draws is several ms (scheduling noise only adds).
        self.assertGreater(max(rtts) - min(rtts), 2.0)
        # Generous upper bound for a loaded, shared machine.
        self.assertLess(sorted(rtts)[len(rtts) // 2],
                        2 * (DELAY_MS + JITTER_MS) + 50)


class LimitsTest(unittest.TestCase):
    def test_connection_over_the_limit_is_refused_and_logged(self):
        echo = EchoServer()
        proxy = Proxy(echo.port, "--max_connections=1")
        try:
            with socket.create_connection(proxy.address, timeout=10) as first:
                first.sendall(b"x")
                self.assertEqual(read_all(first, 1), b"x")
                with socket.create_connection(proxy.address,
                                              timeout=10) as second:
                    second.sendall(b"y")
                    try:  # closed: EOF, or a reset for the unread "y"
                        self.assertEqual(read_all(second, 1), b"")
                    except ConnectionResetError:
                        pass
            self.assertIn("--max_connections", proxy.read_log())
        finally:
            proxy.close()

    def test_bad_flags_are_refused_naming_the_flag(self):
        for flags, name in ((["--jitter_ms=5", "--delay_ms=1"], "--jitter_ms"),
                            (["--delay_ms=-1"], "--delay_ms"),
                            (["--target=nohostport"], "--target")):
            args = [sys.executable, PROXY, *flags]
            if not any(f.startswith("--target") for f in flags):
                args.append("--target=127.0.0.1:1")
            out = subprocess.run(args, capture_output=True, text=True,
                                 timeout=20)
            self.assertEqual(out.returncode, 2, flags)
            self.assertIn(name, out.stderr, flags)


def read_all(sock, n):
    data = bytearray()
    while len(data) < n:
        chunk = sock.recv(min(65536, n - len(data)))
        if not chunk:
            break
        data.extend(chunk)
    return bytes(data)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
