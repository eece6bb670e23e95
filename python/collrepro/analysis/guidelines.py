"""Self-consistent performance guidelines: a library's native collective should not be slower
than a mock-up of the same collective built from its other collectives (Träff's guidelines,
as the PGMPI framework of Hunold and Träff checks them).

Per installation and point, the native algorithm's per-launch medians are tested against the
mock-up's, measured at the same shape and size in the same result directory, with the compare
test (stats.compare_point): a violation is native significantly slower than the mock-up by more
than the threshold.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import stats
from .aggregate import MATCH_KEY, add_settings, shape_label, sortable
from .compare import launch_medians
from .errors import InputError
from .tables import markdown_table


# The rules: the collectives (a row's `collective` column) each guideline covers, the mock-up
# algorithm that emulates them, and the names of the natives they judge.
@dataclass(frozen=True)
class Rule:
    guideline: str
    collectives: tuple
    mockup: str
    natives: tuple


RULES = (
    Rule("inter MPI_Allgather(v) <= intra-group gather + exchange + bcast",
         ("allgather", "allgatherv"), "root-gathering", ("native",)),
    Rule("MPI_Allgather(v) <= MPI_Gather(v) + MPI_Bcast",
         ("intra-allgather", "intra-allgatherv"), "gather-bcast", ("native",)),
    Rule("MPI_Neighbor_* <= one send and receive per neighbour",
         ("neighbor-alltoall", "neighbor-allgather", "neighbor-alltoallw"), "straightforward",
         ("mpi-neighbor", "mpi-neighbor-remapped")),
)
# Columns that pair a native with its mock-up at one point.
PAIR_KEY = [c for c in MATCH_KEY if c not in ("algorithm", "point")]
COLUMNS = ["installation", "guideline", "setting", "shape", "collective", "native", "mockup",
           "msg_bytes", "median_native", "median_mockup", "ratio", "p_value", "n_native", "n_mockup",
           "verdict"]
VERDICT_OF = {"slower": "violated", "faster": "kept", "same": "kept", "insufficient": "insufficient"}


def _rule_of(collective):
    return next((r for r in RULES if collective in r.collectives), None)


def check_entry(entry, alpha=0.05, threshold=0.05, need=None):
    """Rows of the guideline table for one result directory (one installation)."""
    need = stats.min_launches(alpha) if need is None else need
    per = launch_medians(entry.rs)
    rows = []
    for key, sub in per.groupby(PAIR_KEY, sort=False, dropna=False):
        point = dict(zip(PAIR_KEY, key))
        rule = _rule_of(point["collective"])
        if rule is None:
            continue
        mock = sub[sub["algorithm"] == rule.mockup]["median"].to_numpy(float)
        if not len(mock):
            continue
        for native in rule.natives:
            rows_native = sub[sub["algorithm"] == native]
            nat = rows_native["median"].to_numpy(float)
            if not len(nat):
                continue
            res = stats.compare_point(mock, nat, alpha, threshold, need)
            rows.append(dict(point, installation=entry.label, guideline=rule.guideline,
                             native=native, mockup=rule.mockup, algorithm=native,
                             point=rows_native["point"].iat[0],
                             median_native=float(np.median(nat)), median_mockup=float(np.median(mock)),
                             ratio=res["ratio"], p_value=res["p_value"], n_native=res["n_b"],
                             n_mockup=res["n_a"], verdict=VERDICT_OF[res["verdict"]]))
    return rows


def check(entries, alpha=0.05, threshold=0.05, need=None):
    """The guideline table of every entry: one row per (installation, point, native)."""
    rows = [r for e in entries for r in check_entry(e, alpha, threshold, need)]
    if not rows:
        return pd.DataFrame(columns=["experiment"] + COLUMNS)
    metas = [m for e in entries for m in e.rs.metas]
    table = add_settings(pd.DataFrame(rows), metas)
    table["shape"] = [shape_label(r) for _, r in table.iterrows()]
    order = sorted(range(len(table)), key=lambda i: sortable(
        (table["experiment"].iat[i], table["installation"].iat[i], table["collective"].iat[i],
         table["shape"].iat[i], table["native"].iat[i], table["msg_bytes"].iat[i])))
    return table.iloc[order].reset_index(drop=True)


def method_note(alpha, threshold, need):
    return (f"A guideline is violated at a point when the native call's per-launch medians are "
            f"significantly slower than the mock-up's (Mann-Whitney U, p < {alpha}) and the ratio "
            f"native / mock-up of the medians of medians exceeds {1 + threshold:.3g}. Both sides need "
            f"at least {need} launches, else `insufficient`.")


def write_report(outdir, table, alpha, threshold, need):
    """guidelines.md: the violations first, then counts per installation."""
    counts = table.groupby(["experiment", "installation", "verdict"]).size().unstack(fill_value=0)
    bad = table[table["verdict"] == "violated"]
    lines = ["# collrepro performance guidelines", "", method_note(alpha, threshold, need), "",
             "Guidelines checked:", ""]
    lines += [f"- `{r.guideline}`: {', '.join(r.natives)} against `{r.mockup}` "
              f"({', '.join(r.collectives)})" for r in RULES]
    lines += ["", "## Per installation", "", markdown_table(counts.reset_index(), list(
        counts.reset_index().columns)), "", f"## Violations ({len(bad)})", ""]
    lines += [markdown_table(bad, ["experiment", "installation", "collective", "shape", "native",
                                   "msg_bytes", "median_native", "median_mockup", "ratio", "p_value",
                                   "n_native", "n_mockup"]) if len(bad) else "None found.", ""]
    refused = table[table["verdict"] == "insufficient"]
    if len(refused):
        lines += [f"## No verdict: too few launches ({len(refused)})", "",
                  f"These checks have fewer than {need} launches on a side: not a verdict either way "
                  "(`insufficient` in guidelines.csv); measure more launches.", "",
                  markdown_table(refused, ["experiment", "installation", "collective", "shape", "native",
                                           "msg_bytes", "n_native", "n_mockup"]), ""]
    path = outdir / "guidelines.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def run(entries, outdir, alpha=0.05, threshold=0.05, need=None):
    """Write guidelines.csv and guidelines.md; return (paths, table)."""
    need = stats.min_launches(alpha) if need is None else need
    table = check(entries, alpha, threshold, need)
    if table.empty:
        raise InputError("no native collective measured beside its mock-up (root-gathering, "
                         "gather-bcast or straightforward at the same point); add the mock-up to the "
                         "experiment's algorithms")
    outdir.mkdir(parents=True, exist_ok=True)
    table.to_csv(outdir / "guidelines.csv", index=False)
    return [outdir / "guidelines.csv", write_report(outdir, table, alpha, threshold, need)], table
