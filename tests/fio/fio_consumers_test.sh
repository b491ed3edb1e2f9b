#!/bin/bash
# fio's own log consumers read `blkperfd run`'s fio logs: Debian's
# fio_generate_plots and fio2gnuplot draw them (their image files exist,
# fio2gnuplot's statistics are those of blkperf's log), and
# tools/hist/fiologparser_hist.py from Debian's fio source package (found or
# fetched as bench/lib/tio_build.sh does, in /var/cache/blkperf-tio) reads
# the histogram log: its sample count is the run's I/O count, its min and
# max are blkperf's lowest and highest clat bins (named by their upper
# edges, as the parser names bins), and each percentile lies within the
# bins either side of blkperf's (its linear interpolation between bin
# values against fio's rank rule).
#   fio_consumers_test.sh BLKPERFD TIO_BUILD_SH
set -euo pipefail
blkperfd=$(realpath "$1")
tio_build=$(realpath "$2")
fail() { echo "FAIL: $*"; exit 1; }
for tool in gnuplot fio_generate_plots fio2gnuplot; do
  command -v "$tool" > /dev/null || fail "$tool missing (tools/setup.sh installs gnuplot-nox and fio)"
done
# Debian's python: fiologparser_hist.py needs its numpy and pandas.
python=/usr/bin/python3
"$python" -c 'import numpy, pandas' 2> /dev/null \
  || fail "python3-numpy or python3-pandas missing (tools/setup.sh installs them)"
# shellcheck source=/dev/null
source "$tio_build"
fetch_fio_source /var/cache/blkperf-tio \
  || fail "Debian's fio source is not in /var/cache/blkperf-tio and could not be fetched (apt-get source fio)"
hist_parser=$fio_src/tools/hist/fiologparser_hist.py
[[ -f $hist_parser ]] || fail "$hist_parser missing from fio's source"

dir=$(mktemp -d "${TEST_TMPDIR:-/tmp}/fio_consumers.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
truncate -s 64M target.dat
echo "== blkperfd run with fio's logs"
"$blkperfd" run --target="$dir/target.dat" --nodirect --runtime=2s --ramp=1s \
  --force_async --qd=4 --status_interval=0 --write_iops_log=b \
  --write_bw_log=b --write_lat_log=b --log_avg_msec=200 --write_hist_log=b \
  --log_hist_msec=500 --output_format=fio-json+ > b.json

echo "== fio_generate_plots"
mkdir gen && cp b_iops.1.log b_bw.1.log b_lat.1.log b_slat.1.log b_clat.1.log gen/
(cd gen && fio_generate_plots blkperf > out.txt 2>&1) || fail "fio_generate_plots: $(cat gen/out.txt)"
for kind in lat iops slat clat bw; do
  grep -q "<path" "gen/blkperf-$kind.svg" 2> /dev/null \
    || fail "fio_generate_plots drew no blkperf-$kind.svg"
done

echo "== fio2gnuplot"
mkdir f2g && cp b_iops.1.log f2g/
(cd f2g && fio2gnuplot -p '*_iops.1.log' -g -k -t blkperf > out.txt 2>&1) \
  || fail "fio2gnuplot: $(cat f2g/out.txt)"
for png in b_iops.1-2Draw.png _iops.1.average.png; do
  [[ -s f2g/$png ]] || fail "fio2gnuplot drew no $png: $(ls f2g)"
done
"$python" - f2g/b_iops.1.log f2g/_iops.1.global <<'PY' || fail "fio2gnuplot's statistics"
import sys
values = [float(l.split(",")[1]) for l in open(sys.argv[1]) if l.strip()]
stats = dict(l.strip().split("=") for l in open(sys.argv[2]) if "=" in l)
assert int(stats["values_count"]) == len(values), (stats, len(values))
assert float(stats["min"]) == min(values) and float(stats["max"]) == max(values), stats
assert abs(float(stats["avg"]) - sum(values) / len(values)) < 0.01, stats
print("fio2gnuplot read %d IOPS samples, min %s max %s" % (len(values), stats["min"], stats["max"]))
PY

echo "== fiologparser_hist.py"
# One output interval longer than the run, every window's samples whole in
# it (--noweight: no spreading of a window over its assumed start times).
"$python" "$hist_parser" --noweight -i 100000 --percentiles 25:50:75:90:99 \
  b_clat_hist.1.log > hist.csv 2> hist.err || fail "fiologparser_hist.py: $(cat hist.err)"
"$python" - b.json hist.csv <<'PY' || fail "fiologparser_hist.py against blkperf: $(cat hist.csv)"
import json, sys
read = json.load(open(sys.argv[1]))["jobs"][0]["read"]
clat = read["clat_ns"]
rows = [l.split(",") for l in open(sys.argv[2]) if l.strip()]
header = [c.strip() for c in rows[0]]
assert len(rows) == 2, rows  # the header and the one interval
row = dict(zip(header, (float(c) for c in rows[1])))
values = sorted(int(k) for k in clat["bins"])
assert round(row["samples"]) == clat["N"] == read["total_ios"] > 0, (row, clat["N"])
def width(v):  # the width of the fio bucket whose value is v
    return 1 if v < 128 else 1 << (v.bit_length() - 1 - 6)
def parser_value(v):  # the parser's value of a bin: its upper edge
    return v + width(v) / 2
# The parser names each bin by its upper edge (fio's value + half a width):
# its min and max are blkperf's lowest and highest bins, exactly.
assert row["min"] == parser_value(values[0]), (row, values[0])
assert row["max"] == parser_value(values[-1]), (row, values[-1])
# blkperf's (fio's) percentile is the bin value where the running count
# reaches p; the parser interpolates linearly between its bin values, so
# its figure lies between the bins either side of blkperf's.
for p, name in ((25, "25%"), (50, "median"), (75, "75%"), (90, "90%"), (99, "99%")):
    mine = int(clat["percentile"]["%f" % p]) if "%f" % p in clat["percentile"] else None
    i = values.index(mine) if mine is not None else None
    if mine is None:  # not in the JSON's default list: the rank rule here
        total, running, i = sum(clat["bins"].values()), 0, 0
        ordered = [clat["bins"][str(v)] for v in values]
        running = ordered[0]
        while running < p / 100 * total:
            i += 1
            running += ordered[i]
        mine = values[i]
    low = parser_value(values[max(i - 1, 0)])
    high = parser_value(values[min(i + 1, len(values) - 1)])
    assert low <= row[name] <= high, (p, row[name], mine, low, high)
    print("p%s: fiologparser_hist %.1f ns, blkperf %d ns (bins %d..%d)" % (p, row[name], mine, low, high))
PY
echo PASS
