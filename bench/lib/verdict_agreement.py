#!/usr/bin/env python3
"""Does blkperf's experiment verdict agree with t/io_uring measured side by
side? bench/fidelity_verdict.sh's report: blkperf's arms ran through the
product (`blkperfd run --vary=fixed_buffers=false,true --json`), and
t/io_uring's -B0 / -B1 arms ran in interleaved rounds around it.

  verdict_agreement.py --blkperf EXPERIMENT_JSON --tio ROUNDS_TSV
                       [--label TEXT] [--margin 0.02] [--bar 0.03]
      EXPERIMENT_JSON: blkperfd run --vary ... --json (two arms, the
        baseline first)
      ROUNDS_TSV: lines "round<TAB>arm<TAB>IOPS", arm A (t/io_uring's
        baseline, -B0) or B (-B1), one line per arm and round

Prints a markdown row per block size (with --label) and, on stderr, how
it was judged. The statistics:
  - blkperf: the product's own ratio (median of per-round ratios), its
    interval and verdict, exactly as the JSON has them;
  - t/io_uring: the ratio of the arms' medians, B / A, and its expanded
    percentile-bootstrap interval over paired rounds (rounds resampled
    10,000 times with a fixed seed; quantiles at the expanded level
    Hesterberg 2015 gives, as blkperf's experiment/statistics does), and a
    verdict by the product's rule against --margin;
  - agreement in sign: both ratios on the same side of 1, or both
    intervals holding 1 (neither tool sees an effect); "NO" otherwise;
  - agreement in size: the difference of the two tools' ratios of
    medians (blkperf's from its JSON samples), with a 95 % interval from
    each tool's rounds resampled on their own (the tools ran at other
    moments: unpaired): "yes" when the whole interval lies within
    +-bar (0.03, bench/fidelity.sh's bar), "NO" when wholly outside,
    "open" when the rounds cannot tell.
"""
import argparse
import json
import math
import random
import statistics
import sys

RESAMPLES = 10000
SEED = 20261207


def student_t_cdf(x, df):
    """P(T <= x) for Student's t with df degrees of freedom (Simpson's
    rule on the density; 1e-7 accurate for the quantiles used here)."""
    if x < 0:
        return 1 - student_t_cdf(-x, df)
    log_c = (math.lgamma((df + 1) / 2) - math.lgamma(df / 2)
             - 0.5 * math.log(df * math.pi))
    steps = 4000
    h = x / steps
    total = 0.0
    for i in range(steps + 1):
        t = i * h
        w = 1 if i in (0, steps) else (4 if i % 2 else 2)
        total += w * math.exp(log_c - (df + 1) / 2 * math.log1p(t * t / df))
    return 0.5 + total * h / 3


def student_t_quantile(p, df):
    """The t with P(T <= t) = p (bisection). REQUIRES 0.5 <= p < 1."""
    lo, hi = 0.0, 1.0
    while student_t_cdf(hi, df) < p:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        if student_t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def expanded_confidence(confidence, n):
    """2 Phi(sqrt(n/(n-1)) t(1-(1-c)/2, n-1)) - 1 (Hesterberg, 2015);
    `confidence` itself for n < 2."""
    if n < 2:
        return confidence
    t = student_t_quantile(1 - (1 - confidence) / 2, n - 1)
    z = math.sqrt(n / (n - 1)) * t
    return 1 - math.erfc(z / math.sqrt(2))


def quantile(values, q):
    """Linear interpolation between order statistics (NumPy's default)."""
    s = sorted(values)
    pos = q * (len(s) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def ratio_of_medians(a, b):
    return statistics.median(b) / statistics.median(a)


def paired_ratio_of_medians(a, b, confidence=0.95):
    """(ratio, lo, hi): median(b) / median(a) over paired rounds and its
    expanded percentile-bootstrap interval (pairs resampled together)."""
    if len(a) != len(b) or not a:
        raise ValueError(f"paired rounds needed: {len(a)} and {len(b)}")
    rng = random.Random(SEED)
    n = len(a)
    draws = []
    for _ in range(RESAMPLES):
        idx = [rng.randrange(n) for _ in range(n)]
        draws.append(math.log(ratio_of_medians([a[i] for i in idx],
                                               [b[i] for i in idx])))
    tail = (1 - expanded_confidence(confidence, n)) / 2
    return (ratio_of_medians(a, b), math.exp(quantile(draws, tail)),
            math.exp(quantile(draws, 1 - tail)))


def difference_interval(x_a, x_b, y_a, y_b, confidence=0.95):
    """(d, lo, hi): d = x's ratio of medians minus y's, each tool's
    paired rounds resampled on their own (unpaired across tools); a plain
    percentile interval at `confidence`."""
    rng = random.Random(SEED + 1)
    draws = []
    for _ in range(RESAMPLES):
        ix = [rng.randrange(len(x_a)) for _ in x_a]
        iy = [rng.randrange(len(y_a)) for _ in y_a]
        draws.append(ratio_of_medians([x_a[i] for i in ix], [x_b[i] for i in ix])
                     - ratio_of_medians([y_a[i] for i in iy], [y_b[i] for i in iy]))
    tail = (1 - confidence) / 2
    return (ratio_of_medians(x_a, x_b) - ratio_of_medians(y_a, y_b),
            quantile(draws, tail), quantile(draws, 1 - tail))


def decide(lo, hi, margin):
    """The product's rule (experiment/statistics.cc Decide), higher is
    better."""
    if lo > 1 + margin:
        return "faster"
    if hi < 1 - margin:
        return "slower"
    if lo >= 1 - margin and hi <= 1 + margin:
        return "equivalent"
    return "inconclusive"


def sign_agrees(r1, ci1, r2, ci2):
    """Same side of 1, or neither interval excludes 1."""
    if (r1 - 1) * (r2 - 1) > 0:
        return True
    return ci1[0] <= 1 <= ci1[1] and ci2[0] <= 1 <= ci2[1]


def size_verdict(lo, hi, bar):
    if -bar <= lo and hi <= bar:
        return "yes"
    if lo > bar or hi < -bar:
        return "NO"
    return "open"


def read_tio(path):
    """{'A': [...], 'B': [...]} in round order from ROUNDS_TSV."""
    rounds = {}
    with open(path) as f:
        lines = f.read().split("\n")
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        r, arm, iops = line.split("\t")
        rounds.setdefault(int(r), {})[arm] = float(iops)
    complete = [rounds[r] for r in sorted(rounds) if set(rounds[r]) == {"A", "B"}]
    return [x["A"] for x in complete], [x["B"] for x in complete]


def judge(experiment, tio_a, tio_b, margin=0.02, bar=0.03):
    """Everything a row says, as a dict."""
    arms = experiment["arms"]
    if len(arms) != 2 or not arms[0].get("baseline"):
        raise ValueError("the experiment must have two arms, the baseline first")
    base, arm = arms[0], arms[1]
    b_ratio, (b_lo, b_hi) = arm["iops"]["ratio"], arm["iops"]["ci"]
    t_ratio, t_lo, t_hi = paired_ratio_of_medians(tio_a, tio_b)
    d, d_lo, d_hi = difference_interval(base["iops"]["samples"], arm["iops"]["samples"],
                                        tio_a, tio_b)
    suspect = sorted({g["kind"] for g in experiment.get("guardrails", [])
                      if g.get("suspect")})
    return {
        "blkperf_ratio": b_ratio, "blkperf_ci": (b_lo, b_hi),
        "blkperf_verdict": arm["verdict"], "blkperf_rounds": len(arm["iops"]["samples"]),
        "blkperf_suspect": suspect,
        "blkperf_ratio_of_medians": ratio_of_medians(base["iops"]["samples"],
                                                     arm["iops"]["samples"]),
        "tio_ratio": t_ratio, "tio_ci": (t_lo, t_hi),
        "tio_verdict": decide(t_lo, t_hi, margin), "tio_rounds": len(tio_a),
        "sign": "yes" if sign_agrees(b_ratio, (b_lo, b_hi), t_ratio, (t_lo, t_hi)) else "NO",
        "difference": d, "difference_ci": (d_lo, d_hi),
        "size": size_verdict(d_lo, d_hi, bar),
    }


HEADER = ("| bs | blkperf ratio (product) | 95 % interval | verdict | guardrails "
          "| t/io_uring ratio of medians | 95 % interval | verdict "
          "| difference (ratios of medians) | 95 % interval | sign agrees | size within 0.03 |")


def row(label, j):
    f = lambda ci: f"{ci[0]:.3f}-{ci[1]:.3f}"  # noqa: E731
    return (f"| {label} | {j['blkperf_ratio']:.3f} ({j['blkperf_rounds']} rounds) "
            f"| {f(j['blkperf_ci'])} | {j['blkperf_verdict']} "
            f"| {', '.join(j['blkperf_suspect']) or '-'} "
            f"| {j['tio_ratio']:.3f} ({j['tio_rounds']} rounds) | {f(j['tio_ci'])} "
            f"| {j['tio_verdict']} | {j['difference']:+.3f} "
            f"| {j['difference_ci'][0]:+.3f} to {j['difference_ci'][1]:+.3f} "
            f"| {j['sign']} | {j['size']} |")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--blkperf", required=True)
    p.add_argument("--tio", required=True)
    p.add_argument("--label", default="")
    p.add_argument("--margin", type=float, default=0.02)
    p.add_argument("--bar", type=float, default=0.03)
    p.add_argument("--header", action="store_true")
    args = p.parse_args(argv)
    with open(args.blkperf) as f:
        experiment = json.load(f)["experiment"]
    tio_a, tio_b = read_tio(args.tio)
    if len(tio_a) < 2:
        sys.exit(f"{args.tio}: {len(tio_a)} complete t/io_uring rounds, at least 2 needed")
    if args.header:
        print(HEADER)
        print("|" + "---|" * HEADER.count(" | ") + "---|")
    print(row(args.label, judge(experiment, tio_a, tio_b, args.margin, args.bar)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
