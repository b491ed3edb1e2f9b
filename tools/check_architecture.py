#!/usr/bin/env python3
"""Checks the package structure from the sources' #include lines.

  tools/check_architecture.py [REPO_ROOT]

Fails (exit 1, naming each offence) when
  - a file under client/ or fleet/ includes a daemon/ header (a client links
    no daemon internals: shared code lives in base/, model/, cli/, report/
    and wire/);
  - a shared package (base/, model/, cli/, report/, wire/) includes a
    daemon/, client/ or fleet/ header;
  - two packages include each other, directly or through others (a package
    is the directory holding the BUILD.bazel nearest above a file);
  - daemon/engine holds more than 15 source files directly, or fewer than 5
    sub-packages.
Prints "PASS: ..." with the counts otherwise. tools/test.sh runs it.
"""
import os
import re
import sys

SHARED = ("base", "model", "cli", "report", "wire", "experiment", "fio")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SKIP_DIRS = {"third_party", "node_modules", ".git"}


def package_of(path, root):
    d = os.path.dirname(path)
    while d:
        if os.path.exists(os.path.join(root, d, "BUILD.bazel")):
            return d
        d = os.path.dirname(d)
    return ""


def sources(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames
                       if d not in SKIP_DIRS and not d.startswith("bazel-")]
        for f in filenames:
            if f.endswith((".h", ".cc")):
                yield os.path.relpath(os.path.join(dirpath, f), root)


def find_cycle(graph):
    """A list of packages forming a cycle, or None (iterative DFS)."""
    color = {}
    for start in sorted(graph):
        if color.get(start):
            continue
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        color[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                color[node] = 2
                stack.pop()
                path.pop()
                continue
            if color.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if not color.get(nxt):
                color[nxt] = 1
                path.append(nxt)
                stack.append((nxt, iter(sorted(graph.get(nxt, ())))))
    return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    errors = []
    graph = {}
    n_files = 0
    for src in sources(root):
        n_files += 1
        pkg = package_of(src, root)
        top = src.split("/")[0]
        text = open(os.path.join(root, src), errors="replace").read()
        for inc in INCLUDE.findall(text):
            if not os.path.exists(os.path.join(root, inc)):
                continue  # a system or third-party header
            inc_top = inc.split("/")[0]
            if top in ("client", "fleet") and inc_top == "daemon":
                errors.append(f"{src} includes {inc}: client/ and fleet/ "
                              "include no daemon/ header")
            if top in SHARED and inc_top in ("daemon", "client", "fleet"):
                errors.append(f"{src} includes {inc}: shared package {top}/ "
                              f"includes no {inc_top}/ header")
            inc_pkg = package_of(inc, root)
            if inc_pkg != pkg:
                graph.setdefault(pkg, set()).add(inc_pkg)
                graph.setdefault(inc_pkg, set())
    cycle = find_cycle(graph)
    if cycle:
        errors.append("package cycle: " + " -> ".join(p or "//" for p in cycle))
    engine = os.path.join(root, "daemon/engine")
    direct = [f for f in os.listdir(engine) if f.endswith((".h", ".cc"))]
    subs = [d for d in os.listdir(engine)
            if os.path.exists(os.path.join(engine, d, "BUILD.bazel"))]
    if len(direct) > 15:
        errors.append(f"daemon/engine holds {len(direct)} source files "
                      "directly (at most 15): put them in a sub-package")
    if len(subs) < 5:
        errors.append(f"daemon/engine has {len(subs)} sub-packages (at least 5)")
    if n_files < 100:
        errors.append(f"only {n_files} source files found under {root}: "
                      "wrong root?")
    for e in errors:
        print("FAIL:", e)
    if errors:
        return 1
    print(f"PASS: {n_files} files, {len(graph)} packages, no cycle; "
          f"daemon/engine: {len(direct)} files, {len(subs)} sub-packages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
