"""The report's arrival-pattern section: each algorithm's time from the first and from the last
arrival under every pattern, and the fastest algorithm under each.

A repetition of a skewed arrival pattern (collbench's sweep key `arrival`) starts on each rank
at the agreed start plus the rank's own delay; time_s is from the first arrival, time_from_last_s
from the last. Per launch and point both are taken over the same repetitions: the valid ones
whose time_s the Tukey filter keeps (k from the summary, as aggregate.py); across launches the
median of the per-launch medians. Launches without raw rows use their summary's median and
median_from_last. The fastest algorithm of a pattern is the one with the smallest median from
the first arrival at the same shape, size and context.
"""

import numpy as np
import pandas as pd

from .. import contract as C
from collrepro.analysis.frames.aggregate import DEFAULT_K, IDENT_EXTRA, LAUNCH_KEY, POINT_KEY, shape_label
from collrepro.analysis.frames.tables import fmt_time
from collrepro.analysis.frames.units import format_bytes

PATTERNS = C.ENUMS["arrival"]                 # none, one-late, linear, random: the table's order
# A row of the table: the point without its pattern (and the setting that names the pattern).
CONTEXT = ["mpi_impl", "mpi_version", "nprocs", "placement", "collective"]
TABLE_COLUMNS = ["shape", "msg_bytes", "algorithm"]
CSV_COLUMNS = CONTEXT + ["experiment", "family", "shape", "msg_bytes", "algorithm", "sync", "arrival", "arrival_max_s",
                         "n_launches", "from_first", "from_last", "fastest"]


def skewed(rs):
    """True when the data has more than one arrival pattern or any pattern other than none."""
    found = set(rs.summary["arrival"].dropna()) | set(rs.raw["arrival"].dropna())
    return len(found) > 1 or bool(found - {"none"})


def _k(summary, index):
    if not len(summary):
        return np.full(len(index), DEFAULT_K)
    k = summary.set_index(LAUNCH_KEY)["k"]
    return k[~k.index.duplicated()].reindex(index).fillna(DEFAULT_K).to_numpy()


def per_launch(rs):
    """One row per (source, launch, point): median from the first and from the last arrival."""
    parts = []
    raw = rs.raw
    if len(raw):
        valid = raw[raw["valid"] == 1]
        g = valid.groupby(LAUNCH_KEY, sort=False)["time_s"]
        fences = pd.DataFrame({"q1": g.quantile(0.25), "q3": g.quantile(0.75)})
        k = _k(rs.summary, fences.index)
        iqr = fences["q3"] - fences["q1"]
        fences["lo"], fences["hi"] = fences["q1"] - k * iqr, fences["q3"] + k * iqr
        valid = valid.join(fences[["lo", "hi"]], on=LAUNCH_KEY)
        kept = valid[(valid["time_s"] >= valid["lo"]) & (valid["time_s"] <= valid["hi"])]
        medians = kept.groupby(LAUNCH_KEY, sort=False).agg(from_first=("time_s", "median"),
                                                            from_last=("time_from_last_s", "median"))
        ident = raw.groupby(LAUNCH_KEY, sort=False)[IDENT_EXTRA].first()
        parts.append(ident.join(medians).reset_index())
    if len(rs.summary):
        done = parts[0].set_index(LAUNCH_KEY).index if parts else pd.MultiIndex.from_tuples([], names=LAUNCH_KEY)
        only = rs.summary[~rs.summary.set_index(LAUNCH_KEY).index.isin(done)]
        if len(only):
            parts.append(only[LAUNCH_KEY + IDENT_EXTRA].assign(from_first=only["median"].to_numpy(),
                                                                from_last=only["median_from_last"].to_numpy()))
    if not parts:
        return pd.DataFrame(columns=LAUNCH_KEY + IDENT_EXTRA + ["from_first", "from_last"])
    return pd.concat([p for p in parts if len(p)] or parts[:1], ignore_index=True)


def pattern_label(pattern, max_s):
    return "none" if pattern == "none" else f"{pattern} ({fmt_time(max_s)})"


def points(rs):
    """One row per point: the medians over launches from the first and the last arrival, the
    pattern's label, the shape's label, and whether it is the fastest of its pattern."""
    per = per_launch(rs)
    if not len(per):
        return pd.DataFrame(columns=CONTEXT + TABLE_COLUMNS + ["arrival", "arrival_max_s", "pattern",
                                                               "from_first", "from_last", "n_launches", "fastest"])
    g = per.groupby(POINT_KEY, sort=True, dropna=False)
    out = g["from_first"].agg(n_launches="count", from_first="median").join(g["from_last"].median()).reset_index()
    out["shape"] = [shape_label(row) for _, row in out.iterrows()]
    out["pattern"] = [pattern_label(p, m) for p, m in zip(out["arrival"], out["arrival_max_s"])]
    group = CONTEXT + ["shape", "msg_bytes", "pattern"]
    best = out.groupby(group, sort=False, dropna=False)["from_first"].transform("min")
    out["fastest"] = out["from_first"] == best
    return out


def _order(out):
    """Pattern labels in the contract's order (none, one-late, linear, random), then by delay."""
    labels = out[["arrival", "arrival_max_s", "pattern"]].drop_duplicates()
    labels = labels.assign(rank=labels["arrival"].map({p: i for i, p in enumerate(PATTERNS)}))
    return list(labels.sort_values(["rank", "arrival_max_s"])["pattern"])


def _context_label(row, varying):
    return ", ".join(f"{c}={row[c]}" for c in varying)


def tables(out):
    """(times, fastest): Markdown-ready frames. times: per shape, size and algorithm, one column per
    pattern with 'from first / from last' (the fastest of the pattern marked *); fastest: per shape
    and size, the fastest algorithm of each pattern."""
    order = _order(out)
    varying = [c for c in CONTEXT if out[c].nunique(dropna=False) > 1]
    out = out.assign(where=[_context_label(r, varying) for _, r in out.iterrows()] if varying else "")
    keys = (["where"] if varying else []) + ["shape", "msg_bytes"]
    cell = [f"{fmt_time(f)} / {fmt_time(l)}" + (" *" if best else "")
            for f, l, best in zip(out["from_first"], out["from_last"], out["fastest"])]
    times = out.assign(cell=cell).pivot_table(index=keys + ["algorithm"], columns="pattern", values="cell",
                                              aggfunc="first").reindex(columns=order).reset_index()
    fastest_rows = out[out["fastest"]].sort_values("algorithm").drop_duplicates(keys + ["pattern"])
    fastest = fastest_rows.assign(cell=fastest_rows["algorithm"]).pivot_table(
        index=keys, columns="pattern", values="cell", aggfunc="first").reindex(columns=order).reset_index()
    for frame in (times, fastest):
        frame["msg_bytes"] = frame["msg_bytes"].map(format_bytes)
        frame.columns.name = None
    rename = {"msg_bytes": "size", "where": "context"}
    return (times.rename(columns=rename).fillna("-"), fastest.rename(columns=rename).fillna("-"))


def changed_rankings(fastest):
    """'shape at size' where some pattern's fastest algorithm differs from the one under none."""
    if "none" not in fastest.columns:
        return []
    others = [c for c in fastest.columns if c not in ("context", "shape", "size", "none")]
    out = []
    for _, row in fastest.iterrows():
        differ = [c for c in others if row[c] not in ("-", row["none"]) and row["none"] != "-"]
        if differ:
            where = (f"{row['context']}: " if "context" in fastest.columns else "") + f"{row['shape']} at {row['size']}"
            out.append(f"{where} ({', '.join(f'{c}: {row[c]}' for c in differ)}; none: {row['none']})")
    return out


def blocks(rs, outdir):
    """The report's section (a list of blocks; empty when every rank started at once); writes
    arrival.csv into outdir."""
    if not skewed(rs):
        return []
    out = points(rs)
    if not len(out):
        return [("h", 2, "Arrival patterns"), ("p", "No point of a skewed arrival pattern has a valid median.")]
    out[CSV_COLUMNS].rename(columns={"from_first": "median_from_first", "from_last": "median_from_last"}).to_csv(
        outdir / "arrival.csv", index=False)
    times, fastest = tables(out)
    changed = changed_rankings(fastest)
    empty = [p for p in _order(out) if out.loc[out["pattern"] == p, "from_first"].isna().all()]
    if "none" in empty or "none" not in set(out["pattern"]):
        verdict = "Without valid times under the pattern none, the rankings cannot be compared with simultaneous arrival."
    elif changed:
        verdict = "The fastest algorithm changes with the arrival pattern at: " + "; ".join(changed) + "."
    else:
        verdict = "The fastest algorithm is the same under every pattern measured."
    if empty:
        verdict = (f"No valid repetition under {', '.join(empty)}: every repetition had a rank start more than "
                   "5 us after its own target (late; n_invalid in aggregate.csv), as on an oversubscribed "
                   "machine. " + verdict)
    return [("h", 2, "Arrival patterns"),
            ("p", "Each repetition started on every rank at the agreed start plus the rank's delay under "
                  "the pattern (maximum delay in brackets). Cells: median from the first arrival / median "
                  "from the last arrival (median over launches of the per-launch medians of the repetitions "
                  "the Tukey filter kept); * marks the fastest algorithm of the pattern at that shape and "
                  "size, by the time from the first arrival. Data: arrival.csv."),
            ("table", times),
            ("p", "Fastest algorithm under each pattern (by the median from the first arrival):"),
            ("table", fastest),
            ("p", verdict)]
