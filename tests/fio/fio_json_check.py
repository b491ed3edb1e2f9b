#!/usr/bin/env python3
"""Checks blkperf's fio-format JSON as fio's consumers read it.

  fio_json_check.py acceptance BLKPERF.json
  fio_json_check.py clat2csv BLKPERF.json CSV   # fio_jsonplus_clat2csv's CSV
  fio_json_check.py pkb BLKPERF.json
  fio_json_check.py schema FIO.json BLKPERF.json

Each prints what it checked and exits 1 naming the first failure.
"""
import csv
import json
import sys


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def load(path):
    with open(path) as f:
        return json.load(f)


def acceptance(doc):
    read = doc["jobs"][0]["read"]
    if not read["iops"] > 0:
        fail("jobs[0].read.iops is %r, not positive" % read["iops"])
    if not read["clat_ns"].get("bins"):
        fail("jobs[0].read.clat_ns.bins is missing or empty")
    if "99.000000" not in read["clat_ns"].get("percentile", {}):
        fail("jobs[0].read.clat_ns.percentile has no key 99.000000")
    for d in ("read", "write", "trim"):
        if d not in doc["jobs"][0]:
            fail("jobs[0] has no %s object" % d)
    print("acceptance: iops=%f bins=%d p99=%d" % (
        read["iops"], len(read["clat_ns"]["bins"]),
        read["clat_ns"]["percentile"]["99.000000"]))


def clat2csv(doc, csv_path):
    """fio_jsonplus_clat2csv's cumulative column gives each percentile."""
    clat = doc["jobs"][0]["read"]["clat_ns"]
    rows = []
    with open(csv_path) as f:
        reader = csv.reader(f, skipinitialspace=True)
        header = [h.strip() for h in next(reader)]
        value_col = header.index("nsec")
        cum_col = header.index("read_clat_ns_cumulative")
        for row in reader:
            if len(row) > cum_col and row[cum_col].strip():
                rows.append((int(row[value_col]), int(row[cum_col])))
    if not rows:
        fail("the CSV has no read clat_ns rows")
    total = rows[-1][1]
    if total != clat["N"]:
        fail("CSV counts %d I/Os, the JSON's N is %d" % (total, clat["N"]))
    checked = 0
    for key, value in clat["percentile"].items():
        rank = float(key) / 100.0 * total
        csv_value = next(v for v, cum in rows if cum >= rank)
        if csv_value != value:
            fail("percentile %s: fio_jsonplus_clat2csv gives %d, blkperf %d" %
                 (key, csv_value, value))
        checked += 1
    print("clat2csv: %d percentiles match over %d bins" % (checked, len(rows)))


# The keys PerfKitBenchmarker's fio.py ParseResults reads, with the
# percentiles it asks fio for (its percentile_list adds 25 and 75).
PKB_PERCENTILES = [1, 5, 10, 20, 25, 30, 40, 50, 60, 70, 75, 80, 90, 95, 99,
                   99.5, 99.9, 99.95, 99.99]


def pkb(doc):
    samples = 0
    for job in doc["jobs"]:
        name = job["jobname"]
        for mode in ("read", "write", "trim"):
            m = job[mode]
            if not m["io_bytes"]:
                continue
            for k in ("bw", "bw_min", "bw_max", "bw_dev", "bw_agg", "bw_mean",
                      "iops"):
                float(m[k])
            clat = m["clat_ns"]
            for k in ("min", "max", "mean", "stddev"):
                float(clat[k])
            for p in PKB_PERCENTILES:
                key = "%f" % p
                if key not in clat["percentile"]:
                    fail("%s:%s clat_ns.percentile lacks %s" % (name, mode, key))
            samples += 1
    if samples == 0:
        fail("no job direction with io_bytes: PKB would find no samples")
    print("pkb: %d job directions parsed" % samples)


# Keys whose members are data (bucket values, percentiles): compared by the
# type of their values only.
DATA_KEYS = {"percentile", "bins", "job options", "global options"}
# What blkperf does not emit, and why (docs/fio.md): disk_util's per-device
# read/write split is not measured, so the list is empty.
ALLOWED_MISSING = {".disk_util[]"}


def shape(value, path, out):
    if isinstance(value, dict):
        out[path] = "object"
        last = path.rsplit(".", 1)[-1]
        if last in DATA_KEYS:
            for v in value.values():
                out[path + ".*"] = type(v).__name__
            return
        for k, v in value.items():
            shape(v, path + "." + k, out)
    elif isinstance(value, list):
        out[path] = "array"
        for v in value:
            shape(v, path + "[]", out)
    else:
        out[path] = type(value).__name__


def schema(fio_doc, blkperf_doc):
    want, have = {}, {}
    shape(fio_doc, "", want)
    shape(blkperf_doc, "", have)
    missing = []
    for path, kind in sorted(want.items()):
        if any(path.startswith(a) for a in ALLOWED_MISSING):
            continue
        if path not in have:
            missing.append("%s (%s): absent" % (path, kind))
        elif have[path] != kind:
            missing.append("%s: fio %s, blkperf %s" % (path, kind, have[path]))
    if missing:
        fail("keys fio emits that blkperf's output lacks:\n  " +
             "\n  ".join(missing))
    print("schema: every one of fio's %d key paths is in blkperf's output "
          "with fio's type" % len(want))


def main():
    cmd = sys.argv[1]
    if cmd == "acceptance":
        acceptance(load(sys.argv[2]))
    elif cmd == "clat2csv":
        clat2csv(load(sys.argv[2]), sys.argv[3])
    elif cmd == "pkb":
        pkb(load(sys.argv[2]))
    elif cmd == "schema":
        schema(load(sys.argv[2]), load(sys.argv[3]))
    else:
        fail("unknown command " + cmd)


if __name__ == "__main__":
    main()
