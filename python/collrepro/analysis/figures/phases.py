"""Per-phase timing (collbench's timing.phases): where each algorithm's time goes.

collbench writes, beside raw-L<L>.csv, a phases-L<L>.csv with one row per phase of every
repetition (results/CONTRACT.md, "phases CSV"). A phase's time (phase_s) runs from the moment
the last rank ended the previous phase to the moment the last rank ended this one, so the
phases of one repetition add up to its time_s.

This module reads those files, checks that they add up, and reduces them as the report
reduces totals: per launch the median over the valid repetitions, then the median over
launches. The stacked bars show, per shape and message size, each algorithm's phases.
"""

import io
from pathlib import Path

import numpy as np
import pandas as pd

from collrepro import contract as C
from collrepro.analysis.figures import plotting as pl
from collrepro.analysis.frames.aggregate import shape_label
from collrepro.analysis.loading.errors import InputError
from collrepro.analysis.loading.loader import data_files, read_data
from collrepro.analysis.frames.units import format_bytes

# The columns of raw that identify a point's shape and context (joined onto the phase rows).
_CONTEXT = ["mpi_impl", "mpi_version", "nprocs", "placement", "family", "collective", "sync", "clock"]


def read_dir(directory):
    """The phases rows of one result directory (empty frame when it has none)."""
    frames = []
    for path, _, _ in data_files(Path(directory))["phases"]:
        frame = pd.read_csv(io.BytesIO(read_data(path, "a phases CSV")))
        if list(frame.columns) != C.PHASES_COLUMNS:
            raise InputError(f"{path}: its columns are not the contract's phases columns "
                             f"({', '.join(C.PHASES_COLUMNS)}): re-run the launch or remove the file")
        frames.append(frame.assign(source=str(directory)))
    if not frames:
        return pd.DataFrame(columns=C.PHASES_COLUMNS + ["source"])
    return pd.concat(frames, ignore_index=True)


def load(rs):
    """Every phase row of a ResultSet, joined to its repetition's raw row (valid flag, time_s,
    shape and context); empty when no directory has a phases file."""
    frames = [read_dir(d) for d in rs.dirs]
    frames = [f for f in frames if len(f)]
    if not frames:
        return pd.DataFrame()
    phases = pd.concat(frames, ignore_index=True)
    keys = ["source", "launch", "point", "rep"]
    raw = rs.raw.copy()
    raw["source"] = raw["source"].astype(str)
    # The shape label once per point, not once per phase row.
    points = raw.drop_duplicates(["source", "launch", "point"])
    labels = points[["source", "launch", "point"]].assign(shape=[shape_label(r) for _, r in points.iterrows()])
    shape = [c for c in C.SHAPE_COLUMNS if c in raw.columns]
    joined = phases.merge(raw[keys + ["time_s", "valid"] + _CONTEXT + shape], on=keys, how="inner")
    if len(joined) < len(phases):
        lost = len(phases) - len(joined)
        raise InputError(f"{lost} phase row(s) name a repetition that no raw row has: the phases file "
                         "does not belong to these results (re-run the launch)")
    return joined.merge(labels, on=["source", "launch", "point"], how="left")


def sum_check(phases):
    """Per repetition, the phases' sum against time_s: -> (repetitions, the largest |difference|
    in seconds)."""
    if phases.empty:
        return 0, 0.0
    per_rep = phases.groupby(["source", "launch", "point", "rep"]).agg(total=("phase_s", "sum"),
                                                                       time_s=("time_s", "first"))
    return len(per_rep), float((per_rep["total"] - per_rep["time_s"]).abs().max())


def table(phases):
    """Median over launches of the per-launch median of each phase (valid repetitions), per
    shape, size, algorithm and phase; with the phase's share of the algorithm's total."""
    valid = phases[phases["valid"].astype(int) == 1]
    keys = ["shape", "msg_bytes", "algorithm", "phase_index", "phase"] + _CONTEXT
    per_launch = valid.groupby(keys + ["source", "launch"], dropna=False)["phase_s"].median().reset_index()
    out = per_launch.groupby(keys, dropna=False).agg(median_s=("phase_s", "median"),
                                                      launches=("launch", "size")).reset_index()
    total = out.groupby(["shape", "msg_bytes", "algorithm"] + _CONTEXT, dropna=False)["median_s"].transform("sum")
    out["share"] = np.where(total > 0, out["median_s"] / total, np.nan)
    return out.sort_values(["shape", "msg_bytes", "algorithm", "phase_index"]).reset_index(drop=True)


def markdown_rows(tab):
    """The table as the report shows it: one row per algorithm and size, phases as text."""
    rows = []
    for (shape, size, algo), sub in tab.groupby(["shape", "msg_bytes", "algorithm"], sort=True):
        parts = [f"{r.phase} {r.median_s * 1e6:.1f} us ({r.share:.0%})" for r in sub.itertuples()]
        rows.append({"shape": shape, "msg_bytes": int(size), "algorithm": algo,
                     "sum_of_phases_us": round(float(sub["median_s"].sum()) * 1e6, 1),
                     "phases": "; ".join(parts), "launches": int(sub["launches"].min())})
    return pd.DataFrame(rows)


def _phase_colors(tab):
    names = list(dict.fromkeys(tab.sort_values("phase_index")["phase"]))
    return {name: pl.color_for(f"phase:{name}", [f"phase:{n}" for n in names]) for name in names}


def figure(tab, metas, context):
    """One figure per shape: a panel per message size, a stacked bar per algorithm, one
    segment per phase (its median time). `context` is the raw data (for the footer)."""
    out = []
    colors = _phase_colors(tab)
    for shape, by_shape in tab.groupby("shape", sort=True):
        sizes = sorted(by_shape["msg_bytes"].unique())
        fo = pl.panels_figure(
            name=f"phases-{_slug(shape)}", data=by_shape.assign(panel=by_shape["msg_bytes"]),
            panel_cols=["panel"],
            draw=lambda ax, sub, _key: _stacked(ax, sub, colors),
            title_of=lambda key, _sub: f"{format_bytes(int(key['panel']))} per process",
            suptitle=f"Where the time goes, per phase: {shape}",
            footer=pl.footer_text(context, metas) + "\nEach bar: the median over launches of each "
                   "phase's per-launch median (valid repetitions); a phase ends when its last rank "
                   "ends it.",
            ncols=min(3, len(sizes)))
        out.append(fo)
    return out


def _stacked(ax, sub, colors):
    algos = sorted(sub["algorithm"].unique())
    scale, unit = _unit(sub.groupby("algorithm")["median_s"].sum().max())
    bottoms = np.zeros(len(algos))
    for name, color in colors.items():
        heights = np.array([sub[(sub["algorithm"] == a) & (sub["phase"] == name)]["median_s"].sum() * scale
                            for a in algos])
        if not heights.any():
            continue
        ax.bar(range(len(algos)), heights, bottom=bottoms, color=color, label=name, width=0.7)
        bottoms += heights
    ax.set_xticks(range(len(algos)))
    ax.set_xticklabels(algos, rotation=30, ha="right", fontsize=7)
    ax.set_ylabel(f"median time per phase ({unit})", fontsize=8)
    ax.set_ylim(0, max(bottoms.max(), 1e-12) * 1.12)


def _unit(seconds):
    if seconds >= 1:
        return 1.0, "s"
    if seconds >= 1e-3:
        return 1e3, "ms"
    return 1e6, "us"


def _slug(text):
    return "".join(ch if ch.isalnum() else "-" for ch in str(text)).strip("-").lower()
