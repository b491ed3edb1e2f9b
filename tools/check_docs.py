#!/usr/bin/env python3
"""Checks that the reference in docs/ cannot drift from the code.

  tools/check_docs.py [REPO_ROOT]

Fails (exit 1, naming each gap) when
  - a field of the API's spec messages (proto/blkperf.proto: WorkloadSpec,
    TargetSpec, JobGroup, SloSpec, BlockSizeSplit, BlockSizeShare) is not
    named in docs/spec.md (as `name`, `x.name` or `x[].name`);
  - a flag defined under cli/ (the spec flags every binary shares) is not
    named in docs/ (as `--name` or `name`);
  - README.md is longer than 200 lines or links a docs/ file that does not
    exist.
tools/test.sh runs it.
"""
import os
import re
import sys

SPEC_MESSAGES = ("WorkloadSpec", "TargetSpec", "JobGroup", "SloSpec",
                 "BlockSizeSplit", "BlockSizeShare")


def message_fields(proto, name):
    m = re.search(r"\nmessage " + name + r" \{(.*?)\n\}", proto, re.S)
    if not m:
        return None
    fields, depth = [], 0
    for line in m.group(1).split("\n"):
        code = line.split("//")[0]
        if depth == 0:
            f = re.match(r"\s*(?:repeated |optional )?[A-Za-z0-9_.]+ "
                         r"([a-z_0-9]+) = \d+;", code)
            if f:
                fields.append(f.group(1))
        depth += code.count("{") - code.count("}")
    return fields


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    errors = []
    proto = open(os.path.join(root, "proto/blkperf.proto")).read()
    spec_doc = open(os.path.join(root, "docs/spec.md")).read()
    n_fields = 0
    for msg in SPEC_MESSAGES:
        fields = message_fields(proto, msg)
        if fields is None:
            errors.append(f"message {msg} not found in proto/blkperf.proto")
            continue
        for f in fields:
            n_fields += 1
            if not re.search(r"`([a-z_0-9]+(\[\])?\.)?" + f + r"[`( \[]",
                             spec_doc):
                errors.append(f"{msg}.{f} is not described in docs/spec.md")
    docs = "".join(open(os.path.join(root, "docs", d)).read()
                   for d in sorted(os.listdir(os.path.join(root, "docs")))
                   if d.endswith(".md"))
    flags = set()
    for f in sorted(os.listdir(os.path.join(root, "cli"))):
        if f.endswith(".cc") and not f.endswith("_test.cc"):
            text = open(os.path.join(root, "cli", f)).read()
            flags |= set(re.findall(r"ABSL_FLAG\([^,]+,\s*([a-z_0-9]+)", text))
    for flag in sorted(flags):
        if not re.search(r"(--|`)" + flag + r"\b", docs):
            errors.append(f"flag --{flag} (cli/) is not described in docs/")
    readme = open(os.path.join(root, "README.md")).read()
    if readme.count("\n") > 200:
        errors.append(f"README.md has {readme.count(chr(10))} lines "
                      "(at most 200: the rest goes in docs/)")
    for link in re.findall(r"\]\((docs/[^)#]+)", readme):
        if not os.path.exists(os.path.join(root, link)):
            errors.append(f"README.md links {link}, which does not exist")
    if n_fields < 40 or len(flags) < 30:
        errors.append(f"only {n_fields} spec fields and {len(flags)} flags "
                      "found: parser broken?")
    for e in errors:
        print("FAIL:", e)
    if errors:
        return 1
    print(f"PASS: {n_fields} spec fields and {len(flags)} spec flags "
          "described in docs/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
