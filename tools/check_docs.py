#!/usr/bin/env python3
"""Checks that the reference in docs/ cannot drift from the code.

  tools/check_docs.py [REPO_ROOT]

Fails (exit 1, naming each gap) when
  - a field of the API's spec messages (proto/blkperf.proto: WorkloadSpec,
    TargetSpec, JobGroup, SloSpec, BlockSizeSplit, BlockSizeShare,
    SteadyStateSpec, PreconditionSpec) is not
    named in docs/spec.md (as `name`, `x.name` or `x[].name`);
  - a flag defined under cli/ (the spec flags every binary shares) is not
    named in docs/ (as `--name` or `name`);
  - README.md is longer than 200 lines or links a docs/ file that does not
    exist;
  - the commands docs/kernel-experiments.md shows between its
    "kernel_experiments.sh: commands" markers are not exactly those
    bench/kernel_experiments.sh runs (its --list), so no documented
    experiment goes unrun and none runs undocumented.
tools/test.sh runs it.
"""
import os
import re
import subprocess
import sys

SPEC_MESSAGES = ("WorkloadSpec", "TargetSpec", "JobGroup", "SloSpec",
                 "BlockSizeSplit", "BlockSizeShare", "SteadyStateSpec",
                 "PreconditionSpec")


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


def kernel_experiment_errors(root):
    """Differences between docs/kernel-experiments.md's commands block and
    `bench/kernel_experiments.sh --list`, one message each."""
    doc = open(os.path.join(root, "docs/kernel-experiments.md")).read()
    m = re.search(r"\n<!-- kernel_experiments.sh: commands -->\n```sh\n(.*?)```\n"
                  r"<!-- end kernel_experiments.sh: commands -->", doc, re.S)
    if not m:
        return ["docs/kernel-experiments.md has no ```sh block between its "
                "'kernel_experiments.sh: commands' markers"]
    listed = subprocess.run(
        ["bash", os.path.join(root, "bench/kernel_experiments.sh"), "--list"],
        capture_output=True, text=True)
    if listed.returncode != 0 or not listed.stdout.strip():
        return [f"bench/kernel_experiments.sh --list failed: {listed.stderr[-300:]}"]
    documented = m.group(1).rstrip("\n").split("\n")
    run = listed.stdout.rstrip("\n").split("\n")
    errors = [f"docs/kernel-experiments.md shows '{line}', which "
              "bench/kernel_experiments.sh does not run" for line in documented
              if line not in run]
    errors += [f"bench/kernel_experiments.sh runs '{line}', which "
               "docs/kernel-experiments.md does not show" for line in run
               if line not in documented]
    if not errors and documented != run:
        errors.append("docs/kernel-experiments.md's commands are in another order "
                      "than bench/kernel_experiments.sh --list's")
    return errors


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
    errors += kernel_experiment_errors(root)
    if n_fields < 40 or len(flags) < 30:
        errors.append(f"only {n_fields} spec fields and {len(flags)} flags "
                      "found: parser broken?")
    for e in errors:
        print("FAIL:", e)
    if errors:
        return 1
    print(f"PASS: {n_fields} spec fields and {len(flags)} spec flags "
          "described in docs/; the kernel experiments' commands are the "
          "script's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
