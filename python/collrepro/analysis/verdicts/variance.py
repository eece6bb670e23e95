"""Variance components of a point's launch medians: how much of their spread is the launches'
own (a launch draws a state of the machine: buffer placement, scheduling, frequency) and how much
is the sampling of the repetitions within a launch. They say where more measurement helps
(Kalibera and Jones: spend the repetitions where the variance is).

Per point, on the log scale (a spread of 0.02 is about 2 %):
- launch_sd: the SD of the launch medians that is not explained by the repetitions within the
  launches (sqrt(max(0, total - within))), the part that only more launches (rounds) reduce;
- within_sd: the SD a launch median has from its repetitions alone, estimated from split halves
  (the medians of the even and the odd repetitions of each launch: their difference has four
  times the variance of the whole launch's median, as a median's variance goes as 1/n);
- within_share: within variance / total variance of the launch medians;
- reps_enough: the repetitions per launch beyond which the within part is under a quarter of the
  launch part (4 n within_var / launch_var): more repetitions than that narrow a launch median's
  SD by at most 10 %, so a budget is better spent on rounds.
"""

import math

import numpy as np
import pandas as pd

from collrepro.analysis.frames.aggregate import MATCH_KEY

COLUMNS = ["launches", "reps", "total_sd", "launch_sd", "within_sd", "within_share", "reps_enough"]
ENOUGH = 4.0  # reps_enough: the launch variance at least this many times the within variance


def _halves(times):
    """(median of the even repetitions, of the odd ones, of all) of one launch's log times."""
    x = np.log(np.asarray(times, float))
    return float(np.median(x[0::2])), float(np.median(x[1::2])), float(np.median(x))


def point_components(launches):
    """The components of one point from its launches' repetition times (a list of arrays, each in
    repetition order); a dict of COLUMNS (nan where fewer than 2 launches or 4 repetitions)."""
    usable = [np.asarray(t, float) for t in launches if len(t) >= 4 and np.min(t) > 0]
    reps = int(np.median([len(t) for t in usable])) if usable else 0
    out = dict.fromkeys(COLUMNS, math.nan)
    out.update(launches=len(usable), reps=reps)
    if len(usable) < 2:
        return out
    halves = np.array([_halves(t) for t in usable])
    within = float(np.mean((halves[:, 0] - halves[:, 1]) ** 2) / 4.0)
    total = float(np.var(halves[:, 2], ddof=1))
    launch = max(0.0, total - within)
    out.update(total_sd=math.sqrt(total), launch_sd=math.sqrt(launch), within_sd=math.sqrt(within),
               within_share=within / total if total > 0 else math.nan,
               reps_enough=math.ceil(ENOUGH * reps * within / launch) if launch > 0 else math.inf)
    return out


def components(raw):
    """One row per point (MATCH_KEY) of a results frame of repetitions (valid ones only), with
    COLUMNS."""
    raw = raw[raw["valid"].astype(int) == 1] if "valid" in raw.columns else raw
    key = [c for c in MATCH_KEY if c in raw.columns]
    launch_key = [c for c in ("source", "launch") if c in raw.columns]
    rows = []
    for point, sub in raw.groupby(key, sort=True, dropna=False):
        order = sub.sort_values(launch_key + ["rep"])
        times = [g["time_s"].to_numpy(float) for _, g in order.groupby(launch_key, sort=True)]
        rows.append(dict(zip(key, point if isinstance(point, tuple) else (point,)), **point_components(times)))
    return pd.DataFrame(rows, columns=key + COLUMNS)


def summarise(table):
    """The components of one experiment: medians (and the 90th percentile of reps_enough) over its
    points; a dict."""
    def med(column):
        values = table[column].replace([np.inf], np.nan).dropna()
        return float(values.median()) if len(values) else math.nan
    enough = table["reps_enough"].replace([np.inf], np.nan).dropna()
    return {"points": len(table), "launches": int(table["launches"].median()) if len(table) else 0,
            "reps": int(table["reps"].median()) if len(table) else 0,
            "total_sd": med("total_sd"), "launch_sd": med("launch_sd"), "within_sd": med("within_sd"),
            "within_share": med("within_share"),
            "reps_enough_median": float(enough.median()) if len(enough) else math.nan,
            "reps_enough_p90": float(enough.quantile(0.9)) if len(enough) else math.nan,
            "no_launch_part": int((table["reps_enough"] == np.inf).sum())}
