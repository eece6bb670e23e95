"""trend DIR...: installations in version (or date) order; per point, one comparison per
consecutive pair of installations of a library, under the method of stats.py (paired by round
where the two ran in the same seeded rounds, else unpaired; Benjamini-Hochberg per pair and
experiment; the interval gate) and the comparability check of comparability.py."""

import re
from collections import Counter

import numpy as np
import pandas as pd

from collrepro.analysis.verdicts import comparability
from collrepro.analysis.figures import plotting as pl
from collrepro.analysis.verdicts import stats
from collrepro.analysis.verdicts import verdicts as V
from collrepro.analysis.frames.aggregate import MATCH_KEY, add_settings, shape_label, sortable
from collrepro.analysis.verdicts.compare import launch_medians
from collrepro.analysis.loading.schema import InputError
from collrepro.analysis.frames.tables import markdown_table

VERDICTS = V.LABELS
POINT_COLUMNS = ["experiment", "library", "setting", "shape", "algorithm", "msg_bytes"]
RESULT_COLUMNS = ["before", "after"] + V.ROW_COLUMNS + ["perm_p", "noise_floor", "first_regression"]


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


def per_installation(entries, given=None):
    """Per-launch medians of every entry, with columns library, installation, position (the
    installation's place in its library's order) and entry (given[i], else i: the entry's place
    in the order the directories were given)."""
    frames, position = [], {}
    for i, e in enumerate(entries):
        pos = position.setdefault(e.installation.impl, {}).setdefault(
            e.installation.name, len(position.get(e.installation.impl, {})))
        frames.append(launch_medians(e.rs).assign(library=e.installation.impl,
                                                  installation=e.installation.name, position=pos,
                                                  base=getattr(e.installation, "base", ""),
                                                  entry=i if given is None else given[i]))
    return pd.concat(frames, ignore_index=True)


def _nprocs(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def metas_by_side(entries):
    """{(experiment, installation name, process count): the meta records of its launches}: the
    runs of one installation at different process counts stay apart."""
    out = {}
    for e in entries:
        for m in e.rs.metas:
            out.setdefault((e.experiment, e.installation.name, _nprocs(m.get("nprocs"))), []).append(m)
    return out


def _side_pairs(groups):
    """The (before, after) groups to compare: consecutive releases of a library, and each derived
    installation (a synthetic release, an A/A copy) against its own base, never a neighbour."""
    named = {g["installation"].iat[0]: g for g in groups}

    def base_of(g):
        base = g["base"].iat[0] if "base" in g else ""
        return named.get(base) if base else None

    releases = [g for g in groups if base_of(g) is None]
    yield from zip(releases, releases[1:])
    yield from ((base_of(g), g) for g in groups if base_of(g) is not None)


def _pairs(per):
    """(family key, point fields, before, after, before medians, after medians, (before rounds,
    after rounds)) for every pair of installations of a library that measured a point (_side_pairs)."""
    for key, sub in sorted(per.groupby(["library"] + MATCH_KEY, sort=False, dropna=False),
                           key=lambda kv: sortable(kv[0])):
        by_inst = sorted(sub.groupby(["position", "installation"]), key=lambda kv: kv[0][0])
        fields = dict(zip(["library"] + MATCH_KEY, key))
        for g0, g1 in _side_pairs([g for _, g in by_inst]):
            before, after = g0["installation"].iat[0], g1["installation"].iat[0]
            family = (fields["library"], fields.get("experiment", ""), _nprocs(fields.get("nprocs")), before, after)
            yield (family, fields, before, after, g0["median"].to_numpy(float), g1["median"].to_numpy(float),
                   (g0["round"].to_numpy(), g1["round"].to_numpy()))


def verdicts(per, alpha, threshold, need, metas=(), side_metas=None):
    """One row per (library, point, consecutive pair of installations), each with
    verdicts.ROW_COLUMNS; Benjamini-Hochberg within each pair and experiment. side_metas:
    {(experiment, installation, process count): metas} for the comparability check (none: no
    metadata reasons). A family: one pair of installations in one experiment and run (process count)."""
    side_metas = side_metas or {}
    families = {}
    for family, fields, before, after, a, b, rounds in _pairs(per):
        _, exp, procs = family[:3]
        reasons = comparability.comparable(side_metas.get((exp, before, procs), []),
                                           side_metas.get((exp, after, procs), []), a, b, before, after)[1]
        families.setdefault(family, []).append(
            (fields, before, after, stats.measure(a, b, need, minimum=threshold, rounds=rounds),
             (not reasons, "; ".join(reasons))))
    rows = []
    for family, items in families.items():
        decided = stats.decide_family([m for _, _, _, m, _ in items], [c for *_, c in items], alpha)
        for (fields, before, after, _, _), d in zip(items, decided):
            rows.append(dict(fields, before=before, after=after, **d,
                             change_at=[after] if d["verdict"] in V.CHANGED else []))
    if not rows:
        return pd.DataFrame(columns=POINT_COLUMNS + RESULT_COLUMNS + ["change_at"])
    table = add_settings(pd.DataFrame(rows), metas)
    table["shape"] = [shape_label(r) for _, r in table.iterrows()]
    keys = point_keys(table)
    first = {}
    for k, v, after in zip(keys, table["verdict"], table["after"]):
        if v == V.REGRESSION and k not in first:
            first[k] = after
    table["first_regression"] = [first.get(k, "") for k in keys]
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
            f"Trend: {library}, {setting} (lines: message sizes; x: a change (any label) ends here)",
            footer, extra_legend=[pl.proxy_line("significant change", color="red", marker="x",
                                                linestyle="none")], xroom=1.0))
    return figs


def method_note(alpha, threshold, need):
    return ("Per point and library, one comparison per consecutive pair of installations (before -> "
            "after). " + stats.method_text(alpha, need, threshold))


SHOWN = ["library", "before", "after", "setting", "shape", "algorithm", "msg_bytes", "verdict",
         "ratio", "ci_low", "ci_high", "ci_level", "p_value", "q_value", "threshold", "mde",
         "n_before", "n_after", "design", "n_pairs", "comparability"]


def _side_lines(table, entries):
    """One line per pair of installations: its counts and why its sides are not comparable."""
    lines = []
    keys = [k for k in ("experiment", "nprocs") if k in table] + ["library", "before", "after"]
    for key, sub in table.groupby(keys, sort=True, dropna=False):
        fields = dict(zip(keys, key))
        reasons = Counter(re.sub(r" \(\d+% of launch medians on multiples of ([\d.]+) ms\)", r" (\1 ms ticks)", r)
                          for text in sub["comparability"] for r in dict.fromkeys(str(text).split("; ")) if r)
        listed = "; ".join(f"{r} ({n} of {len(sub)} points)" for r, n in sorted(reasons.items()))
        procs = f" ({_nprocs(fields['nprocs'])} processes)" if _nprocs(fields.get("nprocs")) else ""
        lines.append(f"- {fields.get('experiment', '')} {fields['library']} {fields['before']} -> "
                     f"{fields['after']}{procs}: {stats.counts_text(sub)}"
                     + (f"; not comparable: {listed}" if reasons else "; comparable"))
    return lines


def write_report(outdir, table, entries, alpha, threshold, need, figures):
    lines = ["# collrepro trend", "", "Installations in order:", ""]
    lines += [f"- {e.installation.impl}: {e.installation.name} ({e.installation.identity or '-'}; "
              f"{e.directory}; {stats.run_text(e.rs.metas)})" for e in entries]
    lines += ["", method_note(alpha, threshold, need), "",
              f"Comparisons: {len(table)}; {stats.counts_text(table)}.", "",
              f"Launches behind them: {stats.launches_text(table)}.", "", "Per pair:", ""]
    lines += _side_lines(table, entries) + [""]
    for title, labels in (("Regressions and improvements (comparable)", [V.REGRESSION, V.IMPROVEMENT]),
                          ("Changed, not comparable", [V.NOT_COMPARABLE])):
        rows = table[table["verdict"].isin(labels)]
        if len(rows):
            lines += [f"## {title} ({len(rows)})", "", markdown_table(stats.shown(rows), SHOWN), ""]
    rows = table[table["verdict"] == V.INCONCLUSIVE]
    if len(rows):
        lines += [f"## Inconclusive ({len(rows)})", "",
                  markdown_table(stats.shown(rows), SHOWN + ["max_regression", "reason"]), ""]
    rows = table[table["verdict"] == V.SAME]
    if len(rows):
        lines += [f"## Same ({len(rows)})", "", markdown_table(stats.shown(rows), SHOWN), ""]
    lines += [f"![{f}]({f})" for f in figures] + [""]
    path = outdir / "trend.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def pooled(per):
    """The launches of one installation in several directories as one sample (trend --pool): the
    points matched by their parameters, not their index (a re-measure's subset config numbers its
    points anew), each numbered as in the first directory given that has it (`entry`)."""
    params = [c for c in MATCH_KEY if c != "point"]
    key = pd.Series(list(zip(*(per[c].astype(str) for c in params))), index=per.index)
    first = (per.assign(_key=key).sort_values("entry", kind="stable")
             .drop_duplicates("_key").set_index("_key")["point"])
    return per.assign(point=key.map(first).to_numpy())


def analyse(entries, order="version", alpha=0.05, threshold=0.05, need=None, pool=False):
    """(ordered entries, per-point verdicts, per-installation series); no files written. pool:
    the directories of one installation are one sample (pooled)."""
    need = stats.min_launches(alpha) if need is None else need
    given = {id(e): i for i, e in enumerate(entries)}
    entries = order_entries(entries, order)
    per = per_installation(entries, [given[id(e)] for e in entries])
    if pool:
        per = pooled(per)
    metas = [m for e in entries for m in e.rs.metas]
    return entries, verdicts(per, alpha, threshold, need, metas, metas_by_side(entries)), series(per)


def run(entries, outdir, order="version", alpha=0.05, threshold=0.05, need=None, pool=False):
    """Write trend.csv, regressions.csv, trend.md and one figure per (library, setting)."""
    need = stats.min_launches(alpha) if need is None else need
    if len(entries) < 2:
        raise InputError("trend needs at least two result directories (installations)")
    entries, table, long = analyse(entries, order, alpha, threshold, need, pool)
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
