"""Per-launch Tukey-filtered medians, median of medians, settings, speedups.

Method (as seed 004 §4 describes its measurements):
1. per launch and point: keep valid repetitions; quartiles Q1, Q3 by linear
   interpolation (numpy/pandas default, R type 7); keep values in
   [Q1 - k*IQR, Q3 + k*IQR] with k from the summary row (default 3); median;
2. across launches: median of the per-launch medians, with their min and max.
"""

import re
import sys
from fractions import Fraction

import numpy as np
import pandas as pd

from collrepro import catalogue
from collrepro import contract as C
from collrepro.contract import SUMMARY_MEASUREMENT_COLUMNS
from collrepro.analysis.loading.schema import IDENTITY_COLUMNS, InputError

DEFAULT_K = 3.0
LAUNCH_KEY = ["source", "launch", "point"]
# A point across launches: every identity column except the launch.
POINT_KEY = [c for c in IDENTITY_COLUMNS if c != "launch"]
# Identity columns besides the launch key itself.
IDENT_EXTRA = [c for c in POINT_KEY if c != "point"]
# Columns that pair algorithms at the same point (for speedups and panels).
PAIR_KEY = [c for c in POINT_KEY if c not in ("algorithm", "point")]
# Columns that match one point in two result sets (compare, trend).
MATCH_KEY = [c for c in POINT_KEY if c not in ("mpi_impl", "mpi_version")]
STAT_COLUMNS = ["n_launches", "median", "min", "max", "n", "n_invalid", "n_kept"]
# The summary's cost-model and bound coefficients, and its statistics.
COEFF_COLUMNS = [c for c in SUMMARY_MEASUREMENT_COLUMNS if c.startswith(("cost_", "bound_"))]
SUMMARY_STAT_COLUMNS = [c for c in SUMMARY_MEASUREMENT_COLUMNS if c not in COEFF_COLUMNS]
# Tail percentiles: of the valid repetitions before the Tukey filter (the filter cuts the tail).
TAIL_COLUMNS = [c for c in SUMMARY_STAT_COLUMNS if re.fullmatch(r"p[0-9]+", c)]     # p50, p90, p99

# Fallback algorithm kinds when the meta files do not list them: the catalogue's
# (python/collrepro/catalogue.json, generated from collbench --list-algorithms --format json),
# proposed first, then baselines, then natives.
DEFAULT_KINDS = catalogue.kinds()


AGG_COLUMNS = (POINT_KEY + ["setting", "kind", "block_ratio"] + STAT_COLUMNS + TAIL_COLUMNS + ["tick_s"]
               + COEFF_COLUMNS)


def sortable(key):
    """A tuple of column values (some NA: the shape columns of other families) made sortable."""
    return tuple((1, 0) if pd.isna(v) else (0, v) for v in key)


# ---------------------------------------------------------------- per launch

def _check_constant_identity(raw):
    counts = raw.groupby(LAUNCH_KEY, sort=False)[IDENT_EXTRA].nunique()
    bad = counts[(counts > 1).any(axis=1)]
    if len(bad):
        (source, launch, point), row = bad.index[0], bad.iloc[0]
        cols = ", ".join(row[row > 1].index)
        raise InputError(f"{source}: launch {launch} point {point}: rows disagree on {cols}")


def _k_per_launch(raw_keys, summary):
    """k from the summary row of each (source, launch, point), else DEFAULT_K."""
    k = summary.set_index(LAUNCH_KEY)["k"] if len(summary) else pd.Series(dtype=float)
    k = k[~k.index.duplicated()]
    return k.reindex(raw_keys).fillna(DEFAULT_K).to_numpy()


# Scheduler ticks (Linux HZ = 100, 250, 1000), largest first, and the tick test's parameters.
SCHEDULER_TICKS_S = (0.010, 0.004, 0.001)
TICK_TOLERANCE = 0.05        # a time within 5% of a tick of a multiple of it is "on" the tick
TICK_MIN_FRACTION = 0.5      # 10x what times spread evenly across ticks give (2 x 5%)


def scheduler_ticks(valid):
    """Per (source, launch, point): the scheduler tick its valid times cluster on, else NaN.

    Times cluster on a tick T when at least half of them lie within 5% of T of a multiple of
    T, at two or more different multiples (one narrow peak near a multiple is a fast, steady
    algorithm, not a scheduler artefact), and the median is at least T. Times spread over
    several ticks hit that window 10% of the time. The largest such T is reported.
    """
    keys = [valid[k] for k in LAUNCH_KEY]
    out = pd.Series(np.nan, index=valid.groupby(keys, sort=False).size().index, name="tick_s")
    median = valid.groupby(keys, sort=False)["time_s"].median()
    for tick in reversed(SCHEDULER_TICKS_S):          # smallest first: larger ones overwrite
        ratio = valid["time_s"] / tick
        multiple = ratio.round()
        on = (multiple >= 1) & ((ratio - multiple).abs() <= TICK_TOLERANCE)
        frac = on.groupby(keys, sort=False).mean()
        spread = multiple.where(on).groupby(keys, sort=False).nunique()
        hit = (frac >= TICK_MIN_FRACTION) & (spread >= 2) & (median >= tick)
        out[hit[hit].index] = tick
    return out


def tukey_stats(raw, summary):
    """Per (source, launch, point) statistics recomputed from the raw rows."""
    ident = raw.groupby(LAUNCH_KEY, sort=False)[IDENT_EXTRA].first()
    counts = raw.groupby(LAUNCH_KEY, sort=False)["valid"].agg(n="size", n_valid="sum")
    valid = raw[raw["valid"] == 1]
    grouped = valid.groupby(LAUNCH_KEY, sort=False)["time_s"]
    bounds = pd.DataFrame({"q1_all": grouped.quantile(0.25), "q3_all": grouped.quantile(0.75)})
    bounds["k"] = _k_per_launch(bounds.index, summary)
    iqr = bounds["q3_all"] - bounds["q1_all"]
    bounds["lo"] = bounds["q1_all"] - bounds["k"] * iqr
    bounds["hi"] = bounds["q3_all"] + bounds["k"] * iqr
    tails = pd.DataFrame({c: grouped.quantile(int(c[1:]) / 100) for c in TAIL_COLUMNS})
    valid = valid.join(bounds[["lo", "hi"]], on=LAUNCH_KEY)
    kept = valid[(valid["time_s"] >= valid["lo"]) & (valid["time_s"] <= valid["hi"])]
    g = kept.groupby(LAUNCH_KEY, sort=False)["time_s"]
    stats = pd.DataFrame({"n_kept": g.size(), "median": g.median(), "q1": g.quantile(0.25),
                          "q3": g.quantile(0.75), "min": g.min(), "max": g.max(), "mean": g.mean()})
    out = ident.join(counts).join(bounds[["k"]]).join(stats).join(tails).join(scheduler_ticks(valid))
    out["n_invalid"] = out["n"] - out["n_valid"]
    out["n_kept"] = out["n_kept"].fillna(0).astype("int64")
    out["k"] = out["k"].fillna(DEFAULT_K)
    return out.drop(columns="n_valid").reset_index()


def _summary_only(summary, done):
    """Summary rows of launches whose raw rows are absent."""
    if not len(summary):
        return summary
    idx = summary.set_index(LAUNCH_KEY).index
    rest = summary[~idx.isin(done)]
    return rest[LAUNCH_KEY + IDENT_EXTRA + SUMMARY_STAT_COLUMNS] if len(rest) else rest.iloc[0:0]


def _attach_summary(per, summary):
    if not len(summary):
        for col in COEFF_COLUMNS + ["summary_median"]:
            per[col] = np.nan
        return per
    extra = summary.set_index(LAUNCH_KEY)[COEFF_COLUMNS + ["median"]]
    extra = extra[~extra.index.duplicated()].rename(columns={"median": "summary_median"})
    return per.join(extra, on=LAUNCH_KEY)


def _warn_mismatch(per):
    both = per.dropna(subset=["median", "summary_median"])
    if not len(both):
        return
    rel = (both["median"] - both["summary_median"]).abs() / both["median"].abs().clip(lower=1e-300)
    bad = rel > 1e-6
    if bad.any():
        first = both[bad].iloc[0]
        where = ", ".join(f"{k} {first[k]}" for k in LAUNCH_KEY if k in first)
        line = (f"warning: {int(bad.sum())} per-launch medians differ from the summary CSV "
                f"(max relative difference {rel.max():.3g}; first: {where}); quartile definition or k mismatch?")
        if line not in _WARNED:  # once per process: analyses load the same launches many times
            _WARNED.add(line)
            print(line, file=sys.stderr)


_WARNED = set()


def per_launch(rs):
    """One row per (source, launch, point): Tukey-filtered statistics."""
    parts = []
    if len(rs.raw):
        _check_constant_identity(rs.raw)
        parts.append(tukey_stats(rs.raw, rs.summary))
    done = parts[0].set_index(LAUNCH_KEY).index if parts else pd.MultiIndex.from_tuples([], names=LAUNCH_KEY)
    only = _summary_only(rs.summary, done)
    if len(only):
        parts.append(only)
    if not parts:
        raise InputError(f"{rs.label}: the CSV files have a header but no data rows")
    per = pd.concat(parts, ignore_index=True)
    per = _attach_summary(per, rs.summary)
    _warn_mismatch(per)
    return per


# ---------------------------------------------------------------- across launches

def _first_valid(series):
    valid = series.dropna()
    return valid.iloc[0] if len(valid) else np.nan


def median_of_medians(per):
    """Median of the per-launch medians with their min and max, per point."""
    ok = per.dropna(subset=["median"])     # launches whose repetitions were all invalid
    g = ok.groupby(POINT_KEY, sort=True, dropna=False)
    out = g["median"].agg(n_launches="size", median="median", min="min", max="max")
    out = out.join(g[TAIL_COLUMNS].median())       # the median launch's tail
    if "tick_s" in ok:                              # the largest tick any launch clustered on
        out = out.join(g["tick_s"].max())
    else:
        out["tick_s"] = np.nan
    counts = per.groupby(POINT_KEY, sort=True, dropna=False)[["n", "n_invalid", "n_kept"]].sum()
    out = out.join(counts).join(g[COEFF_COLUMNS].agg(_first_valid))
    return out.reset_index()


# ---------------------------------------------------------------- settings

def shape_label(row):
    """A point's shape, as its family's contract entry labels it (shape_label): 'p:q, kA:kB=r'
    (inter-group, plus a non-equal distribution), 'neighborhood on dims' (isomorphic),
    'distribution, root r' (intra).

    A configured setting can hold several shapes (seed 000's three p/q ratios, seed 004's
    neighborhoods), so tables and figures keyed by setting alone would mix them.
    """
    return _label(row, "shape_label")


def _label(row, template):
    """A row's label from its family's template (its columns and the DERIVED_FIELDS); '' for a
    row without a family of the contract (a hand-made frame's)."""
    def get(name):
        value = DERIVED_FIELDS[name](row) if name in DERIVED_FIELDS else row[name]
        return None if pd.isna(value) else value
    return C.render_label(_family(row).get(template, []), get)


def _family(row):
    return C.FAMILIES.get(row.get("family"), {})


def ratio_label(ka, kb):
    """Block-size ratio kA:kB as a small fraction ('4:1'), tolerant of rounding."""
    if kb == 0 or ka == 0:
        return f"{int(ka > 0)}:{int(kb > 0)}"
    frac = Fraction(int(ka), int(kb)).limit_denominator(16)
    return f"{frac.numerator}:{frac.denominator}"


def groups(row):
    """[{size, block, bytes}] of a row's groups, as its family's contract entry names their
    columns (those the row has; [] for a family of one group of all processes)."""
    return [{k: row[g[k]] for k in ("size", "block", "bytes") if g[k] in row} for g in _family(row).get("groups", [])]


def half_duplex(row):
    """Whether some group of the row contributes nothing (False for a family without groups)."""
    return any(g["block"] == 0 for g in groups(row))


def block_ratio(row):
    """kA:kB of a row of two groups (its family's groups): of the largest blocks (equal,
    arithmetic: both ~ 2 s), else of the mean blocks K_A/p : K_B/q (random: the largest block
    is itself random); '' for a family without groups."""
    two = groups(row)
    if len(two) != 2:
        return ""
    a, b = two
    if row["distribution"] != "random":
        return ratio_label(a["block"], b["block"])
    mean_a, mean_b = a["bytes"] / a["size"], b["bytes"] / b["size"]
    if mean_a == 0 or mean_b == 0:
        return ratio_label(mean_a, mean_b)
    frac = Fraction(mean_a / mean_b).limit_denominator(16)
    return f"{frac.numerator}:{frac.denominator}"


def distribution_label(row):
    """'arithmetic', 'random (seed 3)': how block sizes vary."""
    dist = row["distribution"]
    if dist == "random" and not pd.isna(row["dist_seed"]):
        return f"{dist} (seed {row['dist_seed']})"
    return dist


# The fields a label template may read beyond the row's columns.
DERIVED_FIELDS = {"block_ratio": block_ratio, "distribution_label": distribution_label, "shape_label": shape_label}


def _derived_label(row):
    return _label(row, "point_label")


def _config_settings(metas):
    """Experiment name (None for metas without one) -> its configured settings, from the first
    meta of each experiment that lists any. Settings match by point index, which only means
    something within one experiment."""
    found = {}
    for meta in metas:
        config = meta.get("config")
        settings = config.get("settings") if isinstance(config, dict) else None
        if isinstance(settings, list) and settings:
            named = [s for s in settings if isinstance(s, dict) and "name" in s]
            found.setdefault(meta.get("experiment"), named)
    return found


def _settings_of(configured, experiment):
    """The settings that name a row of `experiment`: its own experiment's; none when other
    experiments are named but not this one (their point indices mean other points); the first
    list found when the metas name no experiment."""
    if experiment in configured:
        return configured[experiment]
    return [] if set(configured) - {None} else configured.get(None, [])


def _matches(row, setting):
    for key, value in setting.items():
        if key == "name":
            continue
        if key == "points":
            if row["point"] not in set(value):
                return False
        elif key in row.index and str(row[key]) != str(value):
            return False
    return True


def add_settings(agg, metas=()):
    """Add block_ratio and setting columns.

    setting = the name of the first entry of meta config.settings whose keys all
    match the row (keys: any column incl. block_ratio, or `points`), else a label
    derived from (collective, topology, p:q, kA:kB or distribution).
    """
    agg = agg.copy()
    if not len(agg):
        for col in ("block_ratio", "setting"):
            agg[col] = pd.Series(dtype=object)
        return agg
    agg["block_ratio"] = [block_ratio(row) for _, row in agg.iterrows()]
    configured = _config_settings(metas)
    labels = []
    for _, row in agg.iterrows():
        settings = _settings_of(configured, row.get("experiment"))
        named = next((str(s["name"]) for s in settings if _matches(row, s)), None)
        labels.append(named if named is not None else _derived_label(row))
    agg["setting"] = labels
    return agg


# ---------------------------------------------------------------- kinds, speedups

def algorithm_kinds(metas):
    """Algorithm name -> kind (proposed|baseline|native), meta first, contract fallback."""
    kinds = dict(DEFAULT_KINDS)
    for meta in metas:
        for entry in meta.get("algorithms") or []:
            if isinstance(entry, dict) and "name" in entry and "kind" in entry:
                kinds[entry["name"]] = entry["kind"]
    return kinds


def aggregate(rs):
    """Result set -> aggregated table (one row per point) with settings and kinds."""
    agg = add_settings(median_of_medians(per_launch(rs)), rs.metas)
    kinds = algorithm_kinds(rs.metas)
    agg["kind"] = agg["algorithm"].map(kinds).fillna("unknown")
    return agg[AGG_COLUMNS]


def speedups(agg):
    """speedup = baseline / proposed at each point where both were measured.

    Every (baseline or native) x proposed pair sharing PAIR_KEY is reported;
    speedup_lo/hi use the min/max of the per-launch medians (worst/best case).
    """
    cols = PAIR_KEY + ["setting", "algorithm", "kind", "median", "min", "max"]
    base = agg.loc[agg["kind"].isin(["baseline", "native"]), cols]
    prop = agg.loc[agg["kind"] == "proposed", cols]
    pairs = base.merge(prop, on=PAIR_KEY + ["setting"], suffixes=("_b", "_p"))
    out = pairs[PAIR_KEY + ["setting"]].copy()
    out["baseline"] = pairs["algorithm_b"]
    out["proposed"] = pairs["algorithm_p"]
    out["baseline_median"] = pairs["median_b"]
    out["proposed_median"] = pairs["median_p"]
    out["speedup"] = pairs["median_b"] / pairs["median_p"]
    out["speedup_lo"] = pairs["min_b"] / pairs["max_p"]
    out["speedup_hi"] = pairs["max_b"] / pairs["min_p"]
    return out.reset_index(drop=True)


def speedup_series(agg, baseline, proposed):
    """Speedups for one (baseline, proposed) pair only."""
    sp = speedups(agg)
    return sp[(sp["baseline"] == baseline) & (sp["proposed"] == proposed)]
