"""compare A B: per-point ratio of medians of medians, Mann-Whitney U, verdict."""

import numpy as np
import pandas as pd

from . import plotting as pl
from . import stats
from .aggregate import MATCH_KEY, add_settings, per_launch, shape_label, sortable
from .schema import InputError
from .tables import markdown_table

RESULT_COLUMNS = ["setting", "shape", "algorithm", "msg_bytes", "median_a", "median_b", "n_a", "n_b",
                  "ratio", "p_value", "verdict"]


def launch_medians(rs):
    """Per-launch medians keyed by MATCH_KEY (points with no valid median dropped)."""
    per = per_launch(rs).dropna(subset=["median"])
    return per[MATCH_KEY + ["mpi_impl", "mpi_version", "source", "launch", "median"]]


def _grouped(per):
    return {key: sub["median"].to_numpy() for key, sub in per.groupby(MATCH_KEY, sort=True, dropna=False)}


def compare_medians(per_a, per_b, alpha=0.05, threshold=0.05, need=None, metas=()):
    """One row per point present in both: ratio B/A, p-value, verdict.

    Returns (table, only_in_a, only_in_b).
    """
    need = stats.min_launches(alpha) if need is None else need
    a, b = _grouped(per_a), _grouped(per_b)
    rows = []
    for key in sorted(set(a) & set(b), key=sortable):
        res = stats.compare_point(a[key], b[key], alpha, threshold, need)
        rows.append(dict(zip(MATCH_KEY, key), median_a=float(np.median(a[key])),
                         median_b=float(np.median(b[key])), **res))
    if not rows:
        return pd.DataFrame(columns=list(dict.fromkeys(MATCH_KEY + RESULT_COLUMNS))), len(a), len(b)
    table = add_settings(pd.DataFrame(rows), metas)
    table["shape"] = [shape_label(r) for _, r in table.iterrows()]
    return table, len(set(a) - set(b)), len(set(b) - set(a))


def describe(rs):
    """'openmpi 4.1.4 (library string), 6 launches, DIR'."""
    libs = sorted({(m["mpi_impl"], m["mpi_version"]) for m in rs.metas}) or \
        sorted(set(zip(rs.raw["mpi_impl"], rs.raw["mpi_version"])))
    strings = sorted({str(m.get("mpi_library", "")).splitlines()[0] for m in rs.metas
                      if str(m.get("mpi_library", "")).strip()})
    launches = len(set(zip(rs.summary.get("source", []), rs.summary.get("launch", []))) |
                   set(zip(rs.raw.get("source", []), rs.raw.get("launch", []))))
    text = ", ".join(f"{i} {v}" for i, v in libs)
    if strings:
        text += " (" + "; ".join(strings) + ")"
    return f"{text}, {launches} launches, {rs.label}"


def _libs(rs):
    """'openmpi 4.1.4' (the MPI libraries of a result set, for titles)."""
    libs = sorted({(m["mpi_impl"], m["mpi_version"]) for m in rs.metas}) or \
        sorted(set(zip(rs.raw["mpi_impl"], rs.raw["mpi_version"])))
    return ", ".join(f"{i} {v}" for i, v in libs) or rs.label


def _draw(threshold):
    def draw(ax, sub, _key):
        pl.draw_lines(ax, sub, "algorithm", y="ratio", errors=False)
        # Open rings around the algorithm's own marker, so its colour stays visible.
        for verdict, colour in (("slower", "red"), ("faster", "green")):
            hit = sub[sub["verdict"] == verdict]
            ax.scatter(hit["msg_bytes"], hit["ratio"], s=110, zorder=5, marker="o",
                       facecolors="none", edgecolors=colour, linewidths=1.5)
        ax.axhline(1.0, color="0.4", linewidth=0.8)
        for level in (1.0 + threshold, 1.0 / (1.0 + threshold)):
            ax.axhline(level, color="0.6", linewidth=0.8, linestyle=":")
        pl.size_axis(ax, sub["msg_bytes"])
        ax.set_ylabel("ratio B/A of medians of medians")
        ax.grid(True, alpha=0.3)
    return draw


def compare_figure(table, footer, threshold, name="compare", title="B vs A"):
    context = [c for c in pl.varying_context(table) if c not in ("mpi_impl", "mpi_version")]
    return pl.panels_figure(
        name, table, ["setting", "shape"] + context, _draw(threshold),
        lambda key, _s: f"{key['setting']}: {key['shape']}" + pl.context_suffix(key, context),
        f"{title}: time ratio per point (red ring: significantly slower, green ring: "
        f"significantly faster; dotted: ±{threshold:.0%} threshold)", footer,
        extra_legend=[pl.proxy_line("significantly slower", color="red", marker="o", markersize=9,
                                    markerfacecolor="none", linestyle="none"),
                      pl.proxy_line("significantly faster", color="green", marker="o", markersize=9,
                                    markerfacecolor="none", linestyle="none")])


def mw_note(alpha, need):
    return (f"Mann-Whitney U (two-sided) over the per-launch medians. With nA and nB launches the "
            f"smallest reachable p-value is 2/C(nA+nB, nA): 3 vs 3 gives 0.1, 4 vs 4 gives 0.029, "
            f"so at alpha={alpha} at least {stats.min_launches(alpha)} launches per side are needed "
            f"(here required: {need}). Points with fewer launches are marked 'insufficient' and "
            f"never counted as regressions.")


def write_report(outdir, table, only_a, only_b, desc_a, desc_b, alpha, threshold, need, figure):
    counts = table["verdict"].value_counts().to_dict()
    order = {"slower": 0, "faster": 1, "insufficient": 2, "same": 3}
    shown = table.assign(_o=table["verdict"].map(order)).sort_values(["_o", "ratio"], ascending=[True, False])
    lines = [
        "# collrepro comparison: B vs A", "",
        f"- A: {desc_a}", f"- B: {desc_b}",
        f"- threshold: {threshold:.1%}, alpha: {alpha}, minimum launches per side: {need}",
        f"- common points: {len(table)}; only in A: {only_a}; only in B: {only_b}",
        "- verdicts: " + ", ".join(f"{k}: {counts.get(k, 0)}" for k in order), "",
    ]
    if counts.get("insufficient", 0):
        lines += [f"**No verdict for {counts['insufficient']} of {len(table)} points**: fewer than {need} "
                  "launches on a side (`insufficient` in compare.csv and below); they are neither "
                  "regressions nor improvements: measure more launches.", ""]
    lines += [
        "A point is **slower** only if the test is significant (p < alpha) **and** "
        "median-of-medians B/A > 1 + threshold; **faster** mirrors this (B/A < 1/(1 + threshold)).",
        "", mw_note(alpha, need), "", f"![ratio B/A]({figure})", "",
        markdown_table(shown, RESULT_COLUMNS), "",
    ]
    path = outdir / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def run(rs_a, rs_b, outdir, alpha=0.05, threshold=0.05, need=None):
    """Write compare.csv, report.md and compare.png/pdf; return (exit code, paths)."""
    need = stats.min_launches(alpha) if need is None else need
    per_a, per_b = launch_medians(rs_a), launch_medians(rs_b)
    table, only_a, only_b = compare_medians(per_a, per_b, alpha, threshold, need, rs_a.metas)
    if table.empty:
        raise InputError("the two result sets have no point in common")
    outdir.mkdir(parents=True, exist_ok=True)
    table.to_csv(outdir / "compare.csv", index=False)
    footer = pl.footer_text(pd.concat([per_a, per_b]), rs_a.metas + rs_b.metas)
    fo = compare_figure(table, footer, threshold,
                        title=f"B = {_libs(rs_b)} vs A = {_libs(rs_a)}")
    pl.save(fo, outdir)
    report = write_report(outdir, table, only_a, only_b, describe(rs_a), describe(rs_b),
                          alpha, threshold, need, fo.paths[0].name)
    code = 1 if (table["verdict"] == "slower").any() else 0
    return code, [outdir / "compare.csv", report] + fo.paths, fo, table
