"""trend DIR...: N result sets in version or date order, first regressing version per point."""

import re

import numpy as np
import pandas as pd

from . import plotting as pl
from . import stats
from .aggregate import MATCH_KEY
from .compare import compare_medians, launch_medians, mw_note
from .schema import InputError
from .tables import markdown_table

PRE_RELEASE = {"a", "alpha", "b", "beta", "rc", "pre", "dev"}


def version_key(version):
    """Natural version order: 4.1.9 < 4.1.10, 4.2.0rc1 < 4.2.0 < 4.2.0.1."""
    key = []
    for token in re.findall(r"\d+|[A-Za-z]+", str(version)):
        if token.isdigit():
            key.append((2, int(token), ""))
        elif token.lower() in PRE_RELEASE:
            key.append((0, 0, token.lower()))
        else:
            key.append((3, 0, token.lower()))
    key.append((1, 0, ""))
    return key


def _start(rs):
    stamps = pd.to_datetime([m["start_utc"] for m in rs.metas], utc=True, errors="coerce")
    if len(stamps) == 0 or stamps.isna().all():
        raise InputError(f"{rs.label}: no start_utc in the meta files (needed for --order date)")
    return stamps.min()


def _library(rs):
    per = rs.raw if len(rs.raw) else rs.summary
    libs = sorted(set(zip(per["mpi_impl"], per["mpi_version"])))
    if len(libs) != 1:
        raise InputError(f"{rs.label}: a trend set must hold one MPI library, found {libs}")
    return libs[0]


def order_sets(sets, order):
    """Sort result sets by MPI version (natural) or by the earliest meta start_utc."""
    if order == "version":
        keyed = [((version_key(_library(rs)[1]), _library(rs)[0]), rs) for rs in sets]
    else:
        keyed = [(_start(rs), rs) for rs in sets]
    return [rs for _, rs in sorted(keyed, key=lambda kv: kv[0])]


def set_labels(sets):
    labels = ["-".join(_library(rs)) for rs in sets]
    if len(set(labels)) < len(labels):
        labels = [f"{lab} ({rs.dirs[0].name})" for lab, rs in zip(labels, sets)]
    return labels


def trend_table(sets, labels, alpha, threshold, need):
    """Long table: one row per (point, set) with ratio and verdict vs the first set."""
    pers = [launch_medians(rs) for rs in sets]
    rows = []
    for i, (label, per) in enumerate(zip(labels, pers)):
        table, _, _ = compare_medians(pers[0], per, alpha, threshold, need, sets[0].metas)
        rows.append(table.assign(set_index=i, set_label=label))
    return pd.concat(rows, ignore_index=True)


def first_regressions(long):
    """Per point: the first set (in order) whose verdict vs the first set is 'slower'."""
    out = []
    for key, sub in long.groupby(MATCH_KEY, sort=True, dropna=False):
        sub = sub.sort_values("set_index")
        slow = sub[sub["verdict"] == "slower"]
        hit = slow.iloc[0] if len(slow) else None
        out.append(dict(zip(MATCH_KEY, key), setting=sub["setting"].iloc[0],
                        first_regression="" if hit is None else hit["set_label"],
                        ratio=np.nan if hit is None else hit["ratio"],
                        p_value=np.nan if hit is None else hit["p_value"]))
    return pd.DataFrame(out)


def _draw(labels, threshold):
    def draw(ax, sub, _key):
        shown = sub.assign(size=sub["msg_bytes"].map(pl.format_bytes))
        order = [pl.format_bytes(s) for s in sorted(sub["msg_bytes"].unique())]
        pl.draw_lines(ax, shown, "size", x="set_index", y="ratio", errors=False, order=order)
        slow = sub[sub["verdict"] == "slower"]
        ax.scatter(slow["set_index"], slow["ratio"], color="red", marker="x", s=60, zorder=5)
        ax.axhline(1.0, color="0.4", linewidth=0.8)
        for level in (1.0 + threshold, 1.0 / (1.0 + threshold)):
            ax.axhline(level, color="0.6", linewidth=0.8, linestyle=":")
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=7)
        ax.set_ylabel("time relative to first set")
        ax.grid(True, alpha=0.3)
    return draw


def trend_figures(long, labels, footer, threshold):
    figs = []
    for n, (setting, sub) in enumerate(sorted(long.groupby("setting"), key=lambda kv: kv[0])):
        slug = re.sub(r"[^A-Za-z0-9]+", "-", setting).strip("-").lower()
        figs.append(pl.panels_figure(
            f"trend-{n:02d}-{slug}", sub, ["algorithm"], _draw(labels, threshold),
            lambda key, _s: key["algorithm"],
            f"Trend: {setting} (lines: message sizes; x: significant regression; "
            f"dotted: ±{threshold:.0%})",
            footer, extra_legend=[pl.proxy_line("significant regression", color="red", marker="x",
                                                linestyle="none")], xroom=1.0))
    return figs


def write_report(outdir, first, labels, dirs, alpha, threshold, need, figures):
    regress = first[first["first_regression"] != ""]
    lines = ["# collrepro trend", "", "Sets in order:", ""]
    lines += [f"{i}. {lab} ({d})" for i, (lab, d) in enumerate(zip(labels, dirs))]
    lines += ["", f"Each point is tested against the first set ({labels[0]}) with the compare test: "
              f"threshold {threshold:.1%}, alpha {alpha}, minimum launches {need}.", "",
              mw_note(alpha, need), "",
              f"Points with a significant regression: {len(regress)} of {len(first)}.", ""]
    if len(regress):
        lines += [markdown_table(regress, ["setting", "algorithm", "msg_bytes", "first_regression",
                                           "ratio", "p_value"]), ""]
    lines += [f"![{f}]({f})" for f in figures] + [""]
    path = outdir / "trend.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def run(sets, outdir, order="version", alpha=0.05, threshold=0.05, need=None):
    """Write trend.csv, regressions.csv, trend.md and one figure per setting."""
    if len(sets) < 2:
        raise InputError("trend needs at least two result sets")
    need = stats.min_launches(alpha) if need is None else need
    sets = order_sets(sets, order)
    labels = set_labels(sets)
    long = trend_table(sets, labels, alpha, threshold, need)
    if long.empty:
        raise InputError("the result sets have no point in common with the first set")
    first = first_regressions(long)
    outdir.mkdir(parents=True, exist_ok=True)
    long.to_csv(outdir / "trend.csv", index=False)
    first.to_csv(outdir / "regressions.csv", index=False)
    footer = pl.footer_text(pd.concat([s.raw if len(s.raw) else s.summary for s in sets]),
                            [m for s in sets for m in s.metas])
    figs = trend_figures(long, labels, footer, threshold)
    for fo in figs:
        pl.save(fo, outdir)
    report = write_report(outdir, first, labels, [s.label for s in sets], alpha, threshold, need,
                          [fo.paths[0].name for fo in figs])
    paths = [outdir / "trend.csv", outdir / "regressions.csv", report] + [p for f in figs for p in f.paths]
    return paths, figs, first
