#!/usr/bin/env python3
"""Properties of blkperf_rules.yml that promtool does not check.

  python3 dashboards/check_rules.py dashboards/blkperf_rules.yml \
      dashboards/prometheus_rules_test.yml

* every rule (alert or recording) whose expression uses run_id requires
  run_id!="" (workloads outside fleet runs have no run_id and must never
  count as a run, nor record a run "" group);
* every alert of severity critical has a `for:` (no page on one failed
  scrape);
* every alert has a promtool unit test that expects it to fire, in the
  rules' test file.
Prints each violation and exits 1 if there is one.
"""
import sys

import yaml


def check(rules_path, tests_path):
    with open(rules_path) as f:
        rules = yaml.safe_load(f)
    with open(tests_path) as f:
        tests = yaml.safe_load(f)
    fired = set()
    for test in tests.get("tests", []):
        for case in test.get("alert_rule_test", []):
            if case.get("exp_alerts"):
                fired.add(case["alertname"])
    problems = []
    every = [r for g in rules["groups"] for r in g["rules"]]
    for rule in every:
        name = rule.get("alert") or rule.get("record")
        if "run_id" in rule["expr"] and 'run_id!=""' not in rule["expr"]:
            problems.append(f'{name}: uses run_id without run_id!=""')
    alerts = [r for r in every if "alert" in r]
    for rule in alerts:
        name = rule["alert"]
        severity = rule.get("labels", {}).get("severity")
        if severity == "critical" and not rule.get("for"):
            problems.append(f"{name}: critical without a `for:`")
        if name not in fired:
            problems.append(f"{name}: no unit test in {tests_path} expects "
                            "it to fire")
    return len(alerts), problems


def main():
    count, problems = check(sys.argv[1], sys.argv[2])
    for p in problems:
        print("FAIL:", p)
    print(f"{count} alerts checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
