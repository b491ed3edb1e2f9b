#!/usr/bin/env python3
"""The markdown table of bench/kernel_experiments.sh: one row per
experiment (`blkperfd run --vary ... --json`), and the rewrite of a marked
block of a doc with it.

  experiment_table.py header
  experiment_table.py row --command TEXT --status EXIT --json FILE --stderr FILE
      A row: the command, then for each arm after the baseline its IOPS
      ratio to the baseline, the interval (with the confidence), the
      verdict (with "about N more rounds" when inconclusive) and the
      guardrails that mark it suspect. A run that exited non-zero or
      printed no experiment gets "no verdict" and the last line of its
      stderr (the product's refusal or error), never figures.
  experiment_table.py replace DOC NAME FILE
      Replaces what lies between the lines "<!-- kernel_experiments.sh:
      NAME -->" and "<!-- end kernel_experiments.sh: NAME -->" of DOC with
      FILE's text. Fails (exit 1) when DOC lacks either marker.
"""
import argparse
import json
import sys

HEADER = ("| command | IOPS ratio (B / A) | interval | verdict | suspect (guardrails) |\n"
          "| --- | --- | --- | --- | --- |")


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def verdict_text(metric):
    v = metric.get("verdict", "")
    if v == "inconclusive" and metric.get("more_rounds"):
        n = metric["more_rounds"]
        v += f": about {n} more round{'' if n == 1 else 's'} would decide"
    return v


def rows(command, status, report, stderr_text):
    """Markdown rows for one run: one per non-baseline arm, or one saying
    why there is no verdict."""
    experiment = (report or {}).get("experiment")
    if status != 0 or not experiment:
        last = [line for line in stderr_text.strip().split("\n") if line.strip()]
        why = last[-1][:300] if last else "no output"
        return [f"| `{cell(command)}` | - | - | no verdict (exit {status}): "
                f"{cell(why)} | - |"]
    confidence = experiment.get("confidence", 0.95)
    out = []
    suspect_of = {}
    for g in experiment.get("guardrails", []):
        if g.get("suspect"):
            suspect_of.setdefault(g.get("arm"), set()).add(g["kind"])
    arms = experiment["arms"]
    baseline = arms[0]["name"]
    for arm in arms[1:]:
        iops = arm["iops"]
        kinds = sorted(suspect_of.get(arm["name"], set())
                       | suspect_of.get(baseline, set())
                       | suspect_of.get(None, set()))
        name = "" if len(arms) == 2 else f" ({arm['name']})"
        if iops.get("ratio") is None:
            figures = "- | -"
        else:
            figures = (f"{iops['ratio']:.3f} | {iops['ci'][0]:.3f}-{iops['ci'][1]:.3f} "
                       f"({confidence * 100:g} %)")
        out.append(f"| `{cell(command)}`{cell(name)} | {figures} | "
                   f"{cell(verdict_text(iops))} | {', '.join(kinds) or '-'} |")
    return out


def replace(doc_text, name, body):
    begin = f"<!-- kernel_experiments.sh: {name} -->"
    end = f"<!-- end kernel_experiments.sh: {name} -->"
    lines = doc_text.split("\n")
    try:
        b = lines.index(begin)
        e = lines.index(end, b + 1)
    except ValueError:
        raise ValueError(f"the doc lacks the markers '{begin}' ... '{end}'")
    return "\n".join(lines[:b + 1] + body.rstrip("\n").split("\n") + lines[e:])


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    sub.add_parser("header")
    r = sub.add_parser("row")
    r.add_argument("--command", required=True)
    r.add_argument("--status", type=int, required=True)
    r.add_argument("--json", required=True)
    r.add_argument("--stderr", required=True)
    x = sub.add_parser("replace")
    x.add_argument("doc")
    x.add_argument("name")
    x.add_argument("file")
    args = p.parse_args(argv)
    if args.what == "header":
        print(HEADER)
    elif args.what == "row":
        try:
            with open(args.json) as f:
                report = json.load(f)
        except (OSError, ValueError):
            report = None
        with open(args.stderr) as f:
            stderr_text = f.read()
        print("\n".join(rows(args.command, args.status, report, stderr_text)))
    else:
        with open(args.doc) as f:
            text = f.read()
        with open(args.file) as f:
            body = f.read()
        try:
            text = replace(text, args.name, body)
        except ValueError as e:
            print(f"{args.doc}: {e}", file=sys.stderr)
            return 1
        with open(args.doc, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
