"""The report's call-form section: each algorithm's blocking, nonblocking and persistent call
side by side, the persistent init, the break-even start count and the nonblocking call's overlap.

collbench's sweep key `call` measures a point as a blocking call, a nonblocking one (the i-call
and its wait) or a persistent one (one start and its wait per repetition, after one init that
the summary's init_s times outside the repetitions). The times are the aggregate's (median over
launches of the per-launch medians); init_s is the median over launches. The break-even start
count is the smallest n for which init + n persistent starts take less than n blocking calls:
floor(init_s / (blocking - persistent)) + 1 when a start is faster than the blocking call,
none when it is not. The overlap is the nonblocking point's overlap_pct (median over launches):
how much of the call progressed while the ranks computed between its start and its wait.
"""

import math

import pandas as pd

from .. import contract as C
from collrepro.analysis.frames.aggregate import PAIR_KEY, POINT_KEY, shape_label
from collrepro.analysis.frames.tables import fmt_time
from collrepro.analysis.frames.units import format_bytes

FORMS = C.ENUMS["call"]                       # blocking, nonblocking, persistent
# A row: the point without its call form.
ROW_KEY = [c for c in PAIR_KEY if c != "call"] + ["algorithm"]
CSV_COLUMNS = ["mpi_impl", "mpi_version", "nprocs", "placement", "collective", "shape", "msg_bytes", "algorithm"] + \
    [f"{f}_s" for f in FORMS] + ["init_s", "persistent_over_blocking", "break_even_starts", "overlap_pct"]
# What one form's points add to the row (median over launches): the persistent init, the overlap.
PER_FORM = {"init_s": "persistent", "overlap_pct": "nonblocking"}


def several(agg):
    """True when the data holds more than one call form."""
    return agg["call"].nunique() > 1


def break_even(init_s, blocking, persistent):
    """The smallest n with init_s + n persistent < n blocking; None when a start is not faster."""
    if any(pd.isna(v) for v in (init_s, blocking, persistent)) or persistent >= blocking:
        return None
    return math.floor(init_s / (blocking - persistent)) + 1


def _per_point(summary, column):
    """`column` of its form's points (median over launches), keyed by POINT_KEY."""
    rows = summary[summary["call"] == PER_FORM[column]]
    if not len(rows) or column not in rows:
        return pd.Series(dtype="float64")
    return rows.groupby(POINT_KEY, dropna=False)[column].median()


def table(agg, summary):
    """One row per (context, shape, size, algorithm) with the median of each form it has."""
    if agg.empty or not several(agg):
        return pd.DataFrame(columns=CSV_COLUMNS)
    data = agg.assign(shape=[shape_label(r) for _, r in agg.iterrows()])
    for column in PER_FORM:
        values = _per_point(summary, column)
        data = data.join(values.rename(column), on=POINT_KEY) if len(values) else data.assign(**{column: float("nan")})
    rows = []
    for _, sub in data.groupby(ROW_KEY, sort=True, dropna=False):
        first = sub.iloc[0]
        row = {c: first[c] for c in CSV_COLUMNS if c in first.index}
        medians = dict(zip(sub["call"], sub["median"]))
        for form in FORMS:
            row[f"{form}_s"] = medians.get(form, float("nan"))
        for column, form in PER_FORM.items():
            of_form = sub[sub["call"] == form]
            row[column] = of_form[column].iloc[0] if len(of_form) else float("nan")
        b, p = row["blocking_s"], row["persistent_s"]
        row["persistent_over_blocking"] = p / b if pd.notna(b) and pd.notna(p) and b > 0 else float("nan")
        row["break_even_starts"] = break_even(row["init_s"], b, p)
        rows.append(row)
    return pd.DataFrame(rows, columns=CSV_COLUMNS)


def markdown_rows(tab):
    """The table as the report shows it: times in units, sizes in bytes, break-even as text."""
    out = pd.DataFrame({"context": [f"{r.mpi_impl} {r.mpi_version}, {r.nprocs} procs" for r in tab.itertuples()],
                        "shape": tab["shape"], "size": tab["msg_bytes"].map(format_bytes),
                        "algorithm": tab["algorithm"]})
    for form in FORMS:
        out[form] = tab[f"{form}_s"].map(lambda v: "-" if pd.isna(v) else fmt_time(v))
    out["init"] = tab["init_s"].map(lambda v: "-" if pd.isna(v) else fmt_time(v))
    out["persistent / blocking"] = tab["persistent_over_blocking"].map(lambda v: "-" if pd.isna(v) else f"{v:.2f}")
    out["break-even starts"] = [("-" if pd.isna(p) else "never") if n is None or pd.isna(n) else str(int(n))
                                for n, p in zip(tab["break_even_starts"], tab["persistent_s"])]
    out["overlap"] = tab["overlap_pct"].map(lambda v: "-" if pd.isna(v) else f"{v:.0f} %")
    return out


def blocks(rs, agg, outdir):
    """The report's call-form section, when the data holds more than one form."""
    tab = table(agg, rs.summary)
    if tab.empty:
        return []
    tab.to_csv(outdir / "callforms.csv", index=False)
    return [("h", 2, "Call forms"),
            ("p", "Per algorithm, its median time as a blocking call, as a nonblocking one (the i-call and "
                  "its wait) and as one start and its wait of a persistent call; init: the persistent "
                  "init, once per point, outside the repetitions (median over launches). Break-even "
                  "starts: the smallest n for which the init and n starts take less than n blocking "
                  "calls; never when a start is not faster. Overlap: how much of the nonblocking call "
                  "progressed while the ranks computed between its start and its wait (100 %: all of "
                  "it; the summary's overlap_pct, measured with barrier-synchronized local times). "
                  "Data: callforms.csv."),
            ("table", markdown_rows(tab))]
