#!/usr/bin/env python3
"""Lists C++ functions longer than a screen, longest first.

  python3 tools/long_functions.py            # every function over 80 lines
  python3 tools/long_functions.py --max 60 daemon/engine

A function is a brace block whose head (the text since the previous `;`,
`{` or `}`) has a parameter list and is not a control statement, class or
namespace; its length is the lines from its head's first line to its
closing brace. Lambdas and classes inside a function count toward it. A
heuristic over the text (comments and literals removed), good enough to
find what to cut; not a parser.
"""
import argparse
import os
import re
import sys

SKIP_DIRS = {"third_party", "bazel-bin", "bazel-out", "bazel-testlogs"}
NOT_FUNCTIONS = re.compile(
    r"^\s*(if|for|while|switch|catch|do|else|return|try)\b|"
    r"\b(namespace|class|struct|union|enum)\b")


def Strip(text):
    """Comments, string and character literals blanked, newlines kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#" and (i == 0 or text[i - 1] == "\n"):
            j = i  # a preprocessor line, with its continuations
            while True:
                j = text.find("\n", j)
                if j < 0 or text[j - 1] != "\\":
                    break
                j += 1
            j = n if j < 0 else j
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + (m.group(1) if m else "") + '"', i)
            end = n if end < 0 else end + len(m.group(1) if m else "") + 2
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def Functions(path):
    """(name, first line, lines) of each outermost function in `path`."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = Strip(f.read())
    found = []
    stack = []  # (is_function, head start line, name) per open brace
    head_start = 0
    line = 1
    head = []
    for c in text:
        if c == "{":
            head_text = "".join(head)
            in_function = any(f for f, _, _ in stack)
            is_function = (not in_function and ")" in head_text and
                           "(" in head_text and
                           not NOT_FUNCTIONS.search(head_text) and
                           not head_text.rstrip().endswith("="))
            name = ""
            if is_function:
                m = re.search(r"([~\w:<>]+)\s*\(", head_text)
                name = m.group(1) if m else "?"
            stack.append((is_function, head_start, name))
            head = []
            head_start = line
        elif c == "}":
            if stack:
                is_function, start, name = stack.pop()
                if is_function:
                    found.append((name, start, line - start + 1))
            head = []
            head_start = line
        elif c == ";":
            head = []
            head_start = line
        else:
            if not "".join(head).strip() and not c.isspace():
                head_start = line
            head.append(c)
        if c == "\n":
            line += 1
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, default=80,
                        help="list functions longer than this many lines")
    parser.add_argument("roots", nargs="*", default=["."])
    args = parser.parse_args()
    rows = []
    for root in args.roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames
                                 if d not in SKIP_DIRS and not d.startswith("."))
            for name in sorted(filenames):
                if not name.endswith((".cc", ".h")):
                    continue
                path = os.path.normpath(os.path.join(dirpath, name))
                for fn, start, lines in Functions(path):
                    if lines > args.max:
                        rows.append((lines, f"{path}:{start}", fn))
    for lines, where, fn in sorted(rows, reverse=True):
        print(f"{lines:5d}  {where}  {fn}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
