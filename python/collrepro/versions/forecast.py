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
seeded draws (stats.POWER_DRAWS per point), the probability found by bisection. What it does not model: the
re-measure's looks (which can only add detections of points the first pass misses, and
false changes), round effects beyond the pilot's spread, and launch modes whose shape is not
normal (their spread is in the pilot's floor; tests/python/test_versions_forecast.py checks the
forecast against the shipped decision code).

Exit codes: 0 done, 2 bad input (FROM not a run's reports, a bad --target, --rounds, --power or --changed).
"""

import io
import math
import os
from pathlib import Path

import numpy as np

from collrepro import design, safeio
from collrepro.analysis.verdicts import stats
from collrepro.cliargs import ArgumentParser
from collrepro.safeio import UserError

ROUNDS_MAX = 400
LIMIT = 64 * safeio.MIB


def rounds_for(target, sd, m, power=0.9, alpha=stats.ALPHA, first=4, last=ROUNDS_MAX):
    """The fewest rounds (first..last) whose first pass finds `target` with probability `power`;
    None beyond `last`."""
    if stats.paired_detect_rate(target, sd, last, m, alpha) < power:
        return None
    lo, hi = first, last
    while lo < hi:
        mid = (lo + hi) // 2
        if stats.paired_detect_rate(target, sd, mid, m, alpha) >= power:
            hi = mid
        else:
            lo = mid + 1
    return lo


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


def forecast(rows, rounds, power=0.9, target=None, changed=1):
    """Per pilot row: its label, pair, floor, the smallest change found at `rounds`, and the rounds
    for `target` (a list of dicts). changed: how many points of a family the change hits (BH tests
    k changes of m near alpha k / m; 1, the lone change, is the strictest)."""
    out = []
    for (before, after), fam in rows.groupby(["before", "after"], sort=False):
        m = max(1, round(len(fam) / min(changed, len(fam))))
        for _, r in fam.iterrows():
            sd = stats.sd_of_floor(r["noise_floor"])
            row = dict(point=_label(r), before=before, after=after, family=len(fam), floor=float(r["noise_floor"]),
                       change=stats.paired_smallest_change(sd, rounds, m, power))
            if target is not None:
                row["rounds"] = rounds_for(target, sd, m, power)
            out.append(row)
    return out


# ---------------------------------------------------------------- inside a versions run

OUTCOME_FILE = "forecast.md"     # <out>-reports/: the forecast against the run's own outcome
MATCH = ("experiment", "library", "setting", "shape", "collective", "algorithm", "msg_bytes", "before", "after")


def earlier_pilot(reports):
    """The paired rows of an earlier run's reports (<out>-reports/), or None: a run reads them
    before it replaces them, as the pilot of its forecast."""
    try:
        return pilot(reports)
    except UserError:
        return None


def _key(r, cols):
    return tuple(str(r.get(c, "")) for c in cols)


def outcome(earlier, table, rounds, power=0.9):
    """Per point of this run's trend `table` that the pilot `earlier` has: the smallest change
    forecast (lone change, `rounds` paired rounds, probability `power`), this run's ratio and
    verdict, whether it was found (a change) and whether its measured change was at least the
    forecast one (then the forecast said it would be found with probability `power`)."""
    cols = [c for c in MATCH if c in earlier.columns and c in table.columns]
    ordered = [r for _, fam in earlier.groupby(["before", "after"], sort=False) for r in fam.to_dict("records")]
    changes = {_key(r, cols): f["change"] for r, f in zip(ordered, forecast(earlier, rounds, power))}
    out = []
    for r in table.to_dict("records"):
        k = _key(r, cols)
        if k not in changes:
            continue
        ratio = float(r.get("ratio", math.nan))
        change = changes[k]
        found = str(r.get("verdict")) in ("regression", "improvement", "changed-not-comparable")
        size = abs(math.expm1(abs(math.log(ratio)))) if ratio > 0 else math.nan
        out.append(dict(point=_label(r), before=r.get("before"), after=r.get("after"), forecast=change,
                        ratio=ratio, verdict=r.get("verdict"), found=found,
                        expected=bool(math.isfinite(change) and size >= change)))
    return out


def outcome_text(rows, rounds, power, source):
    """forecast.md: the forecast against the run's own outcome, summary first."""
    expected = [r for r in rows if r["expected"]]
    found = sum(r["found"] for r in expected)
    below = sum(r["found"] for r in rows if not r["expected"])
    finite = [r["forecast"] for r in rows if math.isfinite(r["forecast"])]
    lines = ["# Forecast against outcome", "",
             f"Before this run, `collrepro-py versions forecast` from the earlier run in {source} "
             f"(the pilot) gave each point the smallest change its first pass of {rounds} paired rounds "
             f"finds with probability {power:g} as the lone change of its family"
             + (f" (median {100 * float(np.median(finite)):.1f} % over {len(rows)} points)" if finite else "")
             + ". After it: "
             + (f"{len(expected)} points changed by at least their forecast change, and {found} of them "
                f"were found ({100 * found / len(expected):.0f} %, against the forecast's {100 * power:.0f} %); "
                if expected else "no point changed by as much as its forecast change; ")
             + f"{below} points were found below it (a change shared by several points is tested at a "
             "looser level, so that is expected).", "",
             "| point | before -> after | forecast smallest change | ratio | verdict | at least the forecast | found |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        change = f"{100 * r['forecast']:.1f} %" if math.isfinite(r["forecast"]) else "beyond x9"
        lines.append(f"| {r['point']} | {r['before']} -> {r['after']} | {change} | {r['ratio']:.3f} | "
                     f"{r['verdict']} | {'yes' if r['expected'] else 'no'} | {'yes' if r['found'] else 'no'} |")
    return "\n".join(lines) + "\n"


def summary_line(earlier, rounds, power=0.9):
    rows = forecast(earlier, rounds, power)
    finite = [r["change"] for r in rows if math.isfinite(r["change"])]
    if not finite:
        return f"forecast: no point of the earlier run can be seen at {rounds} rounds"
    return (f"forecast from the earlier run: at {rounds} paired rounds the first pass finds a lone change of "
            f"{100 * float(np.median(finite)):.1f} % (median over {len(rows)} points; "
            f"{100 * float(np.percentile(finite, 90)):.1f} % at the 90th percentile) with probability {power:g}")


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
    ap.add_argument("--changed", type=int, default=1, metavar="K",
                    help="how many points of a family the change hits (default 1, the lone change; the "
                         "calibration's forecast check uses its settings' own count)")
    a = ap.parse_args(argv)
    if a.changed < 1:
        raise UserError(f"--changed {a.changed}: want 1 or more points")
    if not 4 <= a.rounds <= ROUNDS_MAX:
        raise UserError(f"--rounds {a.rounds}: want 4 to {ROUNDS_MAX} (4 is the least a verdict needs)")
    if not 0.5 <= a.power < 1:
        raise UserError(f"--power {a.power:g}: want a probability from 0.5 to below 1")
    target = _pct(a.target, "--target") if a.target is not None else None
    rows = forecast(pilot(a.source), a.rounds, a.power, target, a.changed)
    hit = "the lone change of its family" if a.changed == 1 else f"one of {a.changed} changed points of its family"
    print(f"forecast from {os.path.relpath(a.source)}: the first pass at {a.rounds} paired rounds, each point as "
          f"{hit} (Benjamini-Hochberg at {stats.ALPHA:g}), found with probability "
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
