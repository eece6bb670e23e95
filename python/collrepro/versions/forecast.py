"""collrepro-py versions forecast: what a budget can detect, before measuring.

    collrepro-py versions forecast FROM [--rounds N] [--target 10%] [--power 0.9]

FROM is an earlier run of the same experiment on this machine (its reports directory, or its
trend's regressions.csv): a pilot. For each point it gives

- the smallest change the first pass finds with probability --power (default 0.9) at --rounds
  paired rounds (default the calibrated design's, collrepro.design.ROUNDS), as the only change
  in its family (the Benjamini-Hochberg level of a lone rejection, alpha / m, m the points of
  its pair of installations);
- with --target, the rounds that find a change of that size with that probability.

The model is the first pass's own procedure (python/collrepro/analysis/verdicts/stats.py,
paired design): n rounds of log ratios d drawn normal about log(1 + change) with the pilot's
launch-to-launch spread (its noise floor: sd(d) = sqrt(2) log(1 + floor)); the 20 % trimmed
mean and its winsorized standard error; the threshold max(5 %, the floor measured in those
rounds); a detection when the paired p against the threshold is below alpha / m. Simulated with
seeded draws (DRAWS per point), the probability found by bisection. What it does not model: the
re-measure's looks (which can only add detections of points the first pass misses, and
false changes), round effects beyond the pilot's spread, and launch modes whose shape is not
normal (their spread is in the pilot's floor; tests/python/test_versions_forecast.py checks the
forecast against the shipped decision code).

Exit codes: 0 done, 2 bad input (FROM not a run's reports, a bad --target, --rounds or --power).
"""

import io
import math
import os
from pathlib import Path

import numpy as np
from scipy import special

from collrepro import design, safeio
from collrepro.analysis.verdicts import stats
from collrepro.cliargs import ArgumentParser
from collrepro.safeio import UserError

DRAWS = 4000
SEED = 20261207
ROUNDS_MAX = 400
LIMIT = 64 * safeio.MIB


# ---------------------------------------------------------------- the first pass, vectorised

def _consistency(n):
    return stats.mad_consistency((n,))


def detect_rate(change, sd, n, m, alpha=stats.ALPHA, z=None):
    """The share of simulated first passes of n paired rounds (log-ratio sd `sd`) that call a
    change of size `change` (a fraction) a change, as the lone one in a family of m."""
    z = _draws(n) if z is None else z
    d = math.log1p(change) + sd * z                      # draws x n
    g = int(math.floor(stats.TRIM * n))
    s = np.sort(d, axis=1)
    kept = s[:, g:n - g]
    h = kept.shape[1]
    mean = kept.mean(axis=1)
    wins = np.concatenate([np.repeat(kept[:, :1], g, axis=1), kept, np.repeat(kept[:, -1:], g, axis=1)], axis=1)
    var = np.maximum(wins.var(axis=1, ddof=1), stats.SD_FLOOR ** 2)
    se = np.sqrt((n - 1) * var / (h * (h - 1)))
    resid = np.abs(d - np.median(d, axis=1, keepdims=True))
    floor = np.expm1(np.median(resid, axis=1) / _consistency(n) / math.sqrt(2.0))
    thr = np.log1p(np.maximum(stats.MIN_THRESHOLD, floor))
    up = special.stdtr(h - 1, -(mean - thr) / se)
    down = special.stdtr(h - 1, (mean + thr) / se)
    p = np.minimum(1.0, 2.0 * np.minimum(up, down))
    return float(np.mean(p < alpha / max(m, 1)))


def _draws(n, draws=DRAWS):
    return np.random.default_rng(SEED + n).standard_normal((draws, n))


def smallest_change(sd, n, m, power=0.9, alpha=stats.ALPHA):
    """The smallest change (fraction) found with probability `power` (bisection on log(1 + c))."""
    z = _draws(n)
    lo, hi = 0.0, 8.0
    if detect_rate(math.expm1(hi), sd, n, m, alpha, z) < power:
        return math.inf
    for _ in range(40):
        mid = (lo + hi) / 2
        if detect_rate(math.expm1(mid), sd, n, m, alpha, z) >= power:
            hi = mid
        else:
            lo = mid
    return math.expm1(hi)


def rounds_for(target, sd, m, power=0.9, alpha=stats.ALPHA, first=4, last=ROUNDS_MAX):
    """The fewest rounds (first..last) whose first pass finds `target` with probability `power`;
    None beyond `last`."""
    if detect_rate(target, sd, last, m, alpha) < power:
        return None
    lo, hi = first, last
    while lo < hi:
        mid = (lo + hi) // 2
        if detect_rate(target, sd, mid, m, alpha) >= power:
            hi = mid
        else:
            lo = mid + 1
    return lo


def sd_of_floor(floor):
    """The round log-ratio sd behind a paired noise floor (stats.paired_floor inverted)."""
    return math.sqrt(2.0) * math.log1p(max(float(floor), 0.0))


# ---------------------------------------------------------------- the pilot

def pilot(path):
    """The pilot's paired rows: a frame of point, family key, noise_floor, n_pairs."""
    import pandas as pd
    p = Path(path)
    csv = p if p.is_file() else p / "trend" / "regressions.csv"
    if not csv.is_file():
        raise UserError(f"{path}: not a versions run's reports (want <out>-reports/ with trend/regressions.csv, "
                        "or that CSV): run `collrepro versions` once, or give an earlier run of the experiment")
    rows = pd.read_csv(io.StringIO(safeio.read_bounded(csv, LIMIT, "a trend table")))
    need = {"before", "after", "noise_floor", "design"}
    if not need <= set(rows.columns):
        raise UserError(f"{csv}: lacks {sorted(need - set(rows.columns))}: not a trend table of this version")
    rows = rows[(rows["design"] == stats.PAIRED) & rows["noise_floor"].notna()]
    if rows.empty:
        raise UserError(f"{csv}: no paired row with a noise floor: the pilot needs paired rounds (versions, "
                        "or collrun --installations)")
    return rows


def _label(r):
    from collrepro.analysis.frames.units import format_bytes
    parts = [str(r.get("algorithm", "?")), str(r.get("collective", ""))]
    if r.get("msg_bytes") == r.get("msg_bytes"):
        parts.append(format_bytes(int(r["msg_bytes"])))
    return " ".join(p for p in parts if p)


def forecast(rows, rounds, power=0.9, target=None):
    """Per pilot row: its label, pair, floor, the smallest change found at `rounds`, and the rounds
    for `target` (a list of dicts)."""
    out = []
    for (before, after), fam in rows.groupby(["before", "after"], sort=False):
        m = len(fam)
        for _, r in fam.iterrows():
            sd = sd_of_floor(r["noise_floor"])
            row = dict(point=_label(r), before=before, after=after, family=m, floor=float(r["noise_floor"]),
                       change=smallest_change(sd, rounds, m, power))
            if target is not None:
                row["rounds"] = rounds_for(target, sd, m, power)
            out.append(row)
    return out


def _pct(text, field):
    t = str(text).strip()
    try:
        v = float(t[:-1]) / 100 if t.endswith("%") else float(t)
    except ValueError:
        raise UserError(f"{field} {text!r}: want a change such as 10% or 0.1") from None
    if not 0 < v <= 10:
        raise UserError(f"{field} {text!r}: want a change above 0 and at most 1000 %")
    return v


def main(argv=None):
    ap = ArgumentParser(prog="versions forecast", description=__doc__.split("\n")[0])
    ap.add_argument("source", metavar="FROM", help="an earlier run's reports directory (or its trend/regressions.csv)")
    ap.add_argument("--rounds", type=int, default=design.ROUNDS,
                    help=f"the planned paired rounds of the first pass (default {design.ROUNDS})")
    ap.add_argument("--target", default=None, help="also the rounds that find a change of this size (e.g. 10%%)")
    ap.add_argument("--power", type=float, default=0.9, help="the detection probability (default 0.9)")
    a = ap.parse_args(argv)
    if not 4 <= a.rounds <= ROUNDS_MAX:
        raise UserError(f"--rounds {a.rounds}: want 4 to {ROUNDS_MAX} (4 is the least a verdict needs)")
    if not 0.5 <= a.power < 1:
        raise UserError(f"--power {a.power:g}: want a probability from 0.5 to below 1")
    target = _pct(a.target, "--target") if a.target is not None else None
    rows = forecast(pilot(a.source), a.rounds, a.power, target)
    print(f"forecast from {os.path.relpath(a.source)}: the first pass at {a.rounds} paired rounds, each point as "
          f"the lone change of its family (Benjamini-Hochberg at {stats.ALPHA:g}), found with probability "
          f"{a.power:g} (normal rounds with the pilot's spread; python/collrepro/versions/forecast.py)")
    head = "| point | before -> after | family | pilot noise floor | smallest change found |" + \
        (f" rounds for {100 * target:g} % |" if target is not None else "")
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for r in rows:
        line = (f"| {r['point']} | {r['before']} -> {r['after']} | {r['family']} | {100 * r['floor']:.1f} % | "
                + (f"{100 * r['change']:.1f} %" if math.isfinite(r["change"]) else "beyond x9") + " |")
        if target is not None:
            line += f" {r['rounds'] if r['rounds'] else f'over {ROUNDS_MAX}'} |"
        print(line)
    changes = [r["change"] for r in rows if math.isfinite(r["change"])]
    if changes:
        print(f"\nmedian smallest change found: {100 * float(np.median(changes)):.1f} % over {len(rows)} points")
    return 0
