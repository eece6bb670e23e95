"""compare A B: per point, B against A under the method of stats.py (paired by round where both
ran in the same seeded rounds of one `collrun --installations`, else unpaired; Benjamini-Hochberg
over the common points; the interval gate) and the comparability check of comparability.py."""

import numpy as np
import pandas as pd

from collrepro.analysis.verdicts import comparability
from collrepro.analysis.figures import plotting as pl
from collrepro.analysis.verdicts import stats
from collrepro.analysis.verdicts import verdicts as V
from collrepro.analysis.frames.aggregate import MATCH_KEY, add_settings, per_launch, shape_label, sortable
from collrepro.analysis.loading.schema import InputError
from collrepro.analysis.frames.tables import markdown_table

RESULT_COLUMNS = ["setting", "shape", "algorithm", "msg_bytes", "median_a", "median_b"] + V.ROW_COLUMNS + \
    ["perm_p", "noise_floor"]


def round_keys(metas):
    """{(directory, launch): 'seed/round'} of the launches whose metadata record the round they
    ran in (launch_order, written by `collrun --installations`): launches of two installations
    with the same key ran in the same round of one seeded run."""
    keys = {}
    for m in metas:
        order = m.get("launch_order")
        if isinstance(order, dict) and "seed" in order and "round" in order and "_dir" in m:
            keys[(str(m["_dir"]), int(m["launch"]))] = f"{order['seed']}/{order['round']}"
    return keys


def launch_medians(rs):
    """Per-launch medians keyed by MATCH_KEY (points with no valid median dropped), with the
    round each launch ran in (`round`: 'seed/round', '' where not recorded)."""
    per = per_launch(rs).dropna(subset=["median"])
    keys = round_keys(rs.metas)
    per = per.assign(round=[keys.get((str(s), int(n)), "") for s, n in zip(per["source"], per["launch"])])
    return per[MATCH_KEY + ["mpi_impl", "mpi_version", "source", "launch", "round", "median"]]


def _grouped(per):
    return {key: (sub["median"].to_numpy(), sub["round"].to_numpy())
            for key, sub in per.groupby(MATCH_KEY, sort=True, dropna=False)}


def compare_medians(per_a, per_b, alpha=0.05, threshold=0.05, need=None, metas=(), metas_a=None,
                    metas_b=None):
    """One row per point present in both: ratio B/A, p and q, verdict (verdicts.ROW_COLUMNS).
    metas_a / metas_b: the two sides' meta records for the comparability check (default `metas`
    for both). Returns (table, only_in_a, only_in_b)."""
    need = stats.min_launches(alpha) if need is None else need
    metas_a = list(metas if metas_a is None else metas_a)
    metas_b = list(metas if metas_b is None else metas_b)
    a, b = _grouped(per_a), _grouped(per_b)
    keys = sorted(set(a) & set(b), key=sortable)
    measured = [stats.measure(a[k][0], b[k][0], need, minimum=threshold, rounds=(a[k][1], b[k][1]))
                for k in keys]
    sides = comparability.side_reasons(metas_a, metas_b)
    comparables = []
    for k in keys:
        reasons = sides + comparability.point_reasons(a[k][0], b[k][0])
        comparables.append((not reasons, "; ".join(reasons)))
    rows = [dict(zip(MATCH_KEY, k), median_a=float(np.median(a[k][0])), median_b=float(np.median(b[k][0])), **d)
            for k, d in zip(keys, stats.decide_family(measured, comparables, alpha))]
    if not rows:
        return pd.DataFrame(columns=list(dict.fromkeys(MATCH_KEY + RESULT_COLUMNS))), len(a), len(b)
    table = add_settings(pd.DataFrame(rows), metas_a)
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
    return f"{text}, {launches} launch{'' if launches == 1 else 'es'}, {rs.label}"


def _libs(rs):
    """'openmpi 4.1.4' (the MPI libraries of a result set, for titles)."""
    libs = sorted({(m["mpi_impl"], m["mpi_version"]) for m in rs.metas}) or \
        sorted(set(zip(rs.raw["mpi_impl"], rs.raw["mpi_version"])))
    return ", ".join(f"{i} {v}" for i, v in libs) or rs.label


def _draw(threshold):
    def draw(ax, sub, _key):
        pl.draw_lines(ax, sub, "algorithm", y="ratio", errors=False)
        # Open rings around the algorithm's own marker, so its colour stays visible.
        for verdict, colour in ((V.REGRESSION, "red"), (V.IMPROVEMENT, "green"), (V.NOT_COMPARABLE, "orange")):
            hit = sub[sub["verdict"] == verdict]
            ax.scatter(hit["msg_bytes"], hit["ratio"], s=110, zorder=5, marker="o",
                       facecolors="none", edgecolors=colour, linewidths=1.5)
        ax.axhline(1.0, color="0.4", linewidth=0.8)
        for level in (1.0 + threshold, 1.0 / (1.0 + threshold)):
            ax.axhline(level, color="0.6", linewidth=0.8, linestyle=":")
        pl.size_axis(ax, sub["msg_bytes"])
        ax.set_ylabel("ratio B/A (Hodges-Lehmann)")
        ax.grid(True, alpha=0.3)
    return draw


def compare_figure(table, footer, threshold, name="compare", title="B vs A"):
    context = [c for c in pl.varying_context(table) if c not in ("mpi_impl", "mpi_version")]
    return pl.panels_figure(
        name, table, ["setting", "shape"] + context, _draw(threshold),
        lambda key, _s: f"{key['setting']}: {key['shape']}" + pl.context_suffix(key, context),
        f"{title}: time ratio per point (rings: red regression, green improvement, orange changed "
        f"but not comparable; dotted: ±{threshold:.0%} least threshold)", footer,
        extra_legend=[pl.proxy_line(label, color=colour, marker="o", markersize=9,
                                    markerfacecolor="none", linestyle="none")
                      for label, colour in ((V.REGRESSION, "red"), (V.IMPROVEMENT, "green"),
                                            (V.NOT_COMPARABLE, "orange"))])


SHOWN = ["setting", "shape", "algorithm", "msg_bytes", "median_a", "median_b", "verdict", "ratio",
         "ci_low", "ci_high", "ci_level", "p_value", "q_value", "threshold", "mde", "n_before",
         "n_after", "design", "n_pairs", "reason"]


def write_report(outdir, table, only_a, only_b, desc_a, desc_b, alpha, threshold, need, figure):
    order = {label: i for i, label in enumerate(V.LABELS)}
    shown = table.assign(_o=table["verdict"].map(order)).sort_values(["_o", "ratio"], ascending=[True, False])
    sides = sorted({c for c in table["comparability"] if c})
    lines = [
        "# collrepro comparison: B vs A", "",
        f"- A: {desc_a}", f"- B: {desc_b}",
        f"- least threshold: {threshold:.1%}, FDR: {alpha}, minimum launches per side: {need}",
        f"- common points: {len(table)}; only in A: {only_a}; only in B: {only_b}",
        f"- verdicts: {stats.counts_text(table)}",
        "- comparability: " + ("comparable" if not sides else "not comparable at "
                               f"{int((~table['comparable'].astype(bool)).sum())} points ("
                               + "; ".join(sides[:3]) + ("; ..." if len(sides) > 3 else "") + ")"), "",
    ]
    refused = int(stats.gate_labels(table).eq("insufficient").sum())
    if refused:
        lines += [f"**No verdict for {refused} of {len(table)} points**: fewer than {need} launches on "
                  "a side (`inconclusive`, reason `too few launches`); they are neither regressions "
                  "nor improvements: measure more launches.", ""]
    lines += [stats.method_text(alpha, need, threshold), "", f"![ratio B/A]({figure})", "",
              markdown_table(stats.shown(shown), SHOWN), ""]
    path = outdir / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def run(rs_a, rs_b, outdir, alpha=0.05, threshold=0.05, need=None):
    """Write compare.csv, report.md and compare.png/pdf; return (exit code, paths)."""
    need = stats.min_launches(alpha) if need is None else need
    per_a, per_b = launch_medians(rs_a), launch_medians(rs_b)
    table, only_a, only_b = compare_medians(per_a, per_b, alpha, threshold, need, rs_a.metas,
                                            rs_a.metas, rs_b.metas)
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
    code = 1 if (table["verdict"] == V.REGRESSION).any() else 0
    return code, [outdir / "compare.csv", report] + fo.paths, fo, table
