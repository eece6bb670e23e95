"""trend DIR...: installations in version (or date) order; per point, the first installation
with a significant change, found by rank-based binary segmentation (changepoint.py)."""

import re

import numpy as np
import pandas as pd

from . import changepoint
from . import plotting as pl
from . import stats
from .aggregate import MATCH_KEY, add_settings, shape_label, sortable
from .compare import launch_medians
from .schema import InputError
from .tables import markdown_table

VERDICTS = ("slower", "faster", "same", "insufficient")
POINT_COLUMNS = ["experiment", "library", "setting", "shape", "algorithm", "msg_bytes"]
RESULT_COLUMNS = ["installations", "launches", "min_launches", "verdict", "first_change", "direction",
                  "ratio", "ci_low", "ci_high", "p_value", "n_before", "n_after", "first_regression",
                  "changes", "note"]


def _start(entry):
    stamps = pd.to_datetime([m["start_utc"] for m in entry.rs.metas], utc=True, errors="coerce")
    if len(stamps) == 0 or stamps.isna().all():
        raise InputError(f"{entry.directory}: no start_utc in the meta files (needed for --order date)")
    return stamps.min()


def order_entries(entries, order):
    """Sort by library, then by natural version or by the earliest meta start_utc."""
    if order == "version":
        return sorted(entries, key=lambda e: e.installation.order_key())
    return sorted(entries, key=lambda e: (e.installation.impl, _start(e), e.installation.name))


def per_installation(entries):
    """Per-launch medians of every entry, with columns library, installation and position (the
    installation's place in its library's order)."""
    frames, position = [], {}
    for e in entries:
        pos = position.setdefault(e.installation.impl, {}).setdefault(
            e.installation.name, len(position.get(e.installation.impl, {})))
        frames.append(launch_medians(e.rs).assign(library=e.installation.impl,
                                                  installation=e.installation.name, position=pos))
    return pd.concat(frames, ignore_index=True)


def significant(change, threshold):
    """'slower' / 'faster' when the change's ratio is beyond the threshold, else ''."""
    if change.ratio > 1.0 + threshold:
        return "slower"
    if change.ratio < 1.0 / (1.0 + threshold):
        return "faster"
    return ""


def _describe(change, names, direction):
    return (f"{names[change.index]}: {direction} x{change.ratio:.3g} [{change.ci_low:.3g}, "
            f"{change.ci_high:.3g}], p={change.p_value:.2g}, {change.n_before}+{change.n_after} launches")


def point_verdict(samples, names, alpha, threshold, need):
    """The verdict of one point from its samples (per-launch medians per installation, in order)."""
    sizes = [len(s) for s in samples]
    base = dict(installations=len(samples), launches=sum(sizes), min_launches=min(sizes),
                verdict="same", first_change="", direction="", ratio=np.nan, ci_low=np.nan,
                ci_high=np.nan, p_value=np.nan, n_before=0, n_after=0, first_regression="",
                changes="", change_at=[], note="")
    short = [f"{n} ({k})" for n, k in zip(names, sizes) if k < need]
    if short:
        return dict(base, verdict="insufficient",
                    note=f"fewer than {need} launches: {', '.join(short)}")
    found = [(c, significant(c, threshold)) for c in changepoint.changes(samples, alpha, 1.0 - alpha)]
    found = [(c, d) for c, d in found if d]
    if not found:
        return base
    first, direction = found[0]
    slower = [c for c, d in found if d == "slower"]
    return dict(base, verdict="slower" if slower else "faster", first_change=names[first.index],
                direction=direction, ratio=first.ratio, ci_low=first.ci_low, ci_high=first.ci_high,
                p_value=first.p_value, n_before=first.n_before, n_after=first.n_after,
                first_regression=names[slower[0].index] if slower else "",
                changes="; ".join(_describe(c, names, d) for c, d in found),
                change_at=[names[c.index] for c, _ in found])


def verdicts(per, alpha, threshold, need, metas=()):
    """One row per (library, point) measured on two or more installations."""
    rows = []
    for key, sub in sorted(per.groupby(["library"] + MATCH_KEY, sort=False, dropna=False),
                           key=lambda kv: sortable(kv[0])):
        by_inst = sorted(sub.groupby(["position", "installation"]), key=lambda kv: kv[0][0])
        if len(by_inst) < 2:
            continue
        names = [inst for (_, inst), _ in by_inst]
        samples = [g["median"].to_numpy(float) for _, g in by_inst]
        rows.append(dict(zip(["library"] + MATCH_KEY, key),
                         **point_verdict(samples, names, alpha, threshold, need)))
    if not rows:
        return pd.DataFrame(columns=POINT_COLUMNS + RESULT_COLUMNS)
    table = add_settings(pd.DataFrame(rows), metas)
    table["shape"] = [shape_label(r) for _, r in table.iterrows()]
    return table


def series(per):
    """Per (library, point, installation): launches, median of medians, min, max, and the
    median relative to the library's first installation that has the point."""
    g = per.groupby(["library"] + MATCH_KEY + ["position", "installation"], dropna=False)["median"]
    out = g.agg(n_launches="size", median="median", min="min", max="max").reset_index()
    out = out.sort_values(["library", "position"])
    first = out.groupby(["library"] + MATCH_KEY, dropna=False)["median"].transform("first")
    return out.assign(ratio=out["median"] / first)


def _draw(labels, marks):
    def draw(ax, sub, _key):
        shown = sub.assign(size=sub["msg_bytes"].map(pl.format_bytes))
        order = [pl.format_bytes(s) for s in sorted(sub["msg_bytes"].unique())]
        pl.draw_lines(ax, shown, "size", x="position", y="ratio", errors=False, order=order)
        hit = marks.loc[marks.index.intersection(sub.index)]
        ax.scatter(hit["position"], hit["ratio"], color="red", marker="x", s=60, zorder=5)
        ax.axhline(1.0, color="0.4", linewidth=0.8)
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=7)
        ax.set_ylabel("time relative to first installation")
        ax.grid(True, alpha=0.3)
    return draw


def point_keys(frame):
    """One string per row naming its (library, point): the join key of verdicts and series."""
    def text(value):
        if pd.isna(value):
            return ""
        if isinstance(value, (int, float, np.integer, np.floating)) and float(value).is_integer():
            return str(int(value))
        return str(value)
    columns = ["library"] + MATCH_KEY
    return pd.Series(["|".join(map(text, row)) for row in frame[columns].itertuples(index=False)],
                     index=frame.index, dtype=object)


def change_marks(table, long):
    """The rows of `long` (series) at which one of the table's significant changes starts."""
    starts = {(k, name) for k, names in zip(point_keys(table), table["change_at"]) for name in names}
    hit = [(k, name) in starts for k, name in zip(point_keys(long), long["installation"])]
    return long[hit]


def trend_figures(long, table, labels_of, footer):
    figs, marks = [], change_marks(table, long)
    groups = long.assign(setting=point_keys(long).map(dict(zip(point_keys(table), table["setting"]))))
    for n, ((library, setting), sub) in enumerate(sorted(groups.groupby(["library", "setting"]),
                                                         key=lambda kv: kv[0])):
        slug = re.sub(r"[^A-Za-z0-9]+", "-", f"{library}-{setting}").strip("-").lower()
        figs.append(pl.panels_figure(
            f"trend-{n:02d}-{slug}", sub, ["algorithm"], _draw(labels_of[library], marks),
            lambda key, _s: key["algorithm"],
            f"Trend: {library}, {setting} (lines: message sizes; x: significant change starts here)",
            footer, extra_legend=[pl.proxy_line("significant change", color="red", marker="x",
                                                linestyle="none")], xroom=1.0))
    return figs


def method_note(alpha, threshold, need):
    return (f"Method: per point and library, the installations in order; binary segmentation with a "
            f"permutation test (max |z| of the Mann-Whitney rank sum over the splits, "
            f"{changepoint.PERMUTATIONS} permutations of the launches) on the per-launch medians; "
            f"a change counts when p < {alpha} and the Hodges-Lehmann ratio is beyond "
            f"±{threshold:.0%}; interval: {1 - alpha:.0%} distribution-free interval of that ratio. "
            f"Every installation needs at least {need} launches of the point, else no verdict "
            "(`insufficient`).")


def write_report(outdir, table, entries, alpha, threshold, need, figures):
    counts = table["verdict"].value_counts().to_dict()
    lines = ["# collrepro trend", "", "Installations in order:", ""]
    lines += [f"- {e.installation.impl}: {e.installation.name} ({e.installation.identity or '-'}; "
              f"{e.directory})" for e in entries]
    lines += ["", method_note(alpha, threshold, need), "",
              f"Points: {len(table)}; " + ", ".join(f"{k}: {counts.get(k, 0)}" for k in VERDICTS), ""]
    changed = table[table["verdict"].isin(["slower", "faster"])]
    if len(changed):
        lines += ["## Significant changes", "",
                  markdown_table(changed, ["library", "setting", "shape", "algorithm", "msg_bytes",
                                           "first_change", "direction", "ratio", "ci_low", "ci_high",
                                           "p_value", "n_before", "n_after", "changes"]), ""]
    refused = table[table["verdict"] == "insufficient"]
    if len(refused):
        lines += ["## No verdict (too few launches)", "",
                  markdown_table(refused, ["library", "setting", "algorithm", "msg_bytes", "note"]), ""]
    lines += [f"![{f}]({f})" for f in figures] + [""]
    path = outdir / "trend.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def analyse(entries, order="version", alpha=0.05, threshold=0.05, need=None):
    """(ordered entries, per-point verdicts, per-installation series); no files written."""
    need = stats.min_launches(alpha) if need is None else need
    entries = order_entries(entries, order)
    per = per_installation(entries)
    metas = [m for e in entries for m in e.rs.metas]
    return entries, verdicts(per, alpha, threshold, need, metas), series(per)


def run(entries, outdir, order="version", alpha=0.05, threshold=0.05, need=None):
    """Write trend.csv, regressions.csv, trend.md and one figure per (library, setting)."""
    need = stats.min_launches(alpha) if need is None else need
    if len(entries) < 2:
        raise InputError("trend needs at least two result directories (installations)")
    entries, table, long = analyse(entries, order, alpha, threshold, need)
    if table.empty:
        raise InputError("no point was measured on two installations of one library; give result "
                         "directories of one experiment on several versions")
    outdir.mkdir(parents=True, exist_ok=True)
    long.to_csv(outdir / "trend.csv", index=False)
    table.drop(columns="change_at").to_csv(outdir / "regressions.csv", index=False)
    labels_of = {}
    for e in entries:
        labels_of.setdefault(e.installation.impl, {})[e.installation.name] = None
    footer = pl.footer_text(pd.concat([e.rs.raw if len(e.rs.raw) else e.rs.summary for e in entries]),
                            [m for e in entries for m in e.rs.metas])
    figs = trend_figures(long, table, {k: list(v) for k, v in labels_of.items()}, footer)
    for fo in figs:
        pl.save(fo, outdir)
    report = write_report(outdir, table, entries, alpha, threshold, need,
                          [fo.paths[0].name for fo in figs])
    paths = [outdir / "trend.csv", outdir / "regressions.csv", report] + [p for f in figs for p in f.paths]
    return paths, figs, table
