"""report DIR: Markdown or HTML summary of one experiment, with its figures."""

import html
import re

import pandas as pd

from collrepro.analysis import arrival, callforms
from collrepro.analysis.verdicts import guidelines
from collrepro.analysis.verdicts import stats
from collrepro.analysis.figures import phases
from collrepro.analysis.figures import overlay
from collrepro.analysis.loading import inventory
from collrepro.analysis.figures import figures
from collrepro.analysis.figures import plotting as pl
from collrepro.analysis.frames.aggregate import TAIL_COLUMNS, aggregate, groups, half_duplex, shape_label, speedups
from collrepro.analysis.figures.models import eq5_limit
from collrepro.analysis.loading.schema import InputError
from collrepro.analysis.frames.tables import fmt_time, html_table, markdown_table
from collrepro.analysis.frames.units import format_bytes


def _meta_items(rs, agg):
    first = rs.metas[0] if rs.metas else {}
    launches = sorted({(m["_dir"], m["launch"]) for m in rs.metas})

    def values(key):
        found = {str(m.get(key)) for m in rs.metas if m.get(key) not in (None, "")}
        return ", ".join(sorted(found)) or "-"
    sync = first.get("sync") or {}
    clock = first.get("clock") or {}
    procs = sorted({f"{r.nprocs} ({r.nodes} node(s) x {r.ppn} ppn)" for r in agg.itertuples()})
    return [
        f"experiment: {values('experiment')} — {values('description')}" + _overrides_note(rs.metas),
        f"directories: {rs.label}",
        f"launches: {len(launches)}; complete: {values('complete')}; "
        f"start: {min((m['start_utc'] for m in rs.metas), default='-')}, "
        f"end: {max((str(m.get('end_utc', '')) for m in rs.metas), default='-')}",
        f"machine: {values('machine')}" + (f" (simulated on {values('platform')})"
                                           if any(m.get("simulated") for m in rs.metas) else ""),
        f"MPI: {values('mpi_library')}",
        f"processes: {', '.join(procs)}; "
        f"placement: {', '.join(sorted(set(agg['placement'])))}",
        f"sync: {sync.get('method', '-')} (error {sync.get('error_s', '-')} s, invalid rate "
        f"{sync.get('invalid_rate', '-')}); clock: {clock.get('name', '-')} "
        f"(resolution {clock.get('resolution_s', '-')} s)",
        f"git revision: {values('git_revision')}; compiler: {values('compiler')}",
        f"command: {values('command')}",
    ]


def command_overrides(metas):
    """The settings every launch's command changed on the command line (`--set KEY=VALUE`, as
    collrun --np auto passes the ratios it kept), in order; the YAML's description does not
    know them."""
    per_launch = []
    for m in metas:
        words = str(m.get("command") or "").split()
        per_launch.append([words[i + 1] for i, w in enumerate(words[:-1]) if w == "--set"])
    if not per_launch:
        return []
    return [s for s in per_launch[0] if all(s in other for other in per_launch[1:])]


def _overrides_note(metas):
    found = command_overrides(metas)
    return f" (set on the command line, over the description: {', '.join(found)})" if found else ""


def _median_pivot(sub):
    cell = [f"{fmt_time(m)} [{fmt_time(lo)}, {fmt_time(hi)}]"
            for m, lo, hi in zip(sub["median"], sub["min"], sub["max"])]
    table = sub.assign(cell=cell).pivot_table(index="msg_bytes", columns="algorithm", values="cell",
                                             aggfunc="first").reset_index()
    table["msg_bytes"] = table["msg_bytes"].map(format_bytes)
    return table.rename(columns={"msg_bytes": "size"}).fillna("-")


def _tick_warning(agg):
    """One paragraph naming the points whose repetitions cluster on scheduler ticks, or ""."""
    ticked = agg[agg["tick_s"].notna()]
    if not len(ticked):
        return ""
    ticks = ", ".join(f"{t * 1e3:g} ms" for t in sorted(set(ticked["tick_s"])))
    shown = "; ".join(f"{r.algorithm} at {format_bytes(r.msg_bytes)}" for r in ticked.head(6).itertuples())
    more = f"; and {len(ticked) - 6} more" if len(ticked) > 6 else ""
    return (f"Warning: {len(ticked)} of {len(agg)} points have repetition times clustered on "
            f"multiples of a scheduler tick ({ticks}): they measure the OS scheduler, not the "
            f"algorithm ({shown}{more}). The column tick_s of aggregate.csv marks them.")


def _tail_pivot(sub):
    """P50 / P90 / P99 of the valid repetitions (before the filter), per size and algorithm."""
    cell = [" / ".join(fmt_time(v) for v in row) for row in zip(*(sub[c] for c in TAIL_COLUMNS))]
    table = sub.assign(cell=cell).pivot_table(index="msg_bytes", columns="algorithm", values="cell",
                                             aggfunc="first").reset_index()
    table["msg_bytes"] = table["msg_bytes"].map(format_bytes)
    return table.rename(columns={"msg_bytes": "size"}).fillna("-")


def _speedup_pivot(sub):
    table = sub.assign(pair=sub["baseline"] + " / " + sub["proposed"]).pivot_table(
        index="msg_bytes", columns="pair", values="speedup", aggfunc="first").reset_index()
    table["msg_bytes"] = table["msg_bytes"].map(format_bytes)
    for col in table.columns[1:]:
        table[col] = table[col].map(lambda v: "-" if pd.isna(v) else f"{v:.2f}x")
    return table.rename(columns={"msg_bytes": "size"})


def _context(sub):
    return "; ".join(f"{c}={', '.join(map(str, sorted(sub[c].unique())))}"
                     for c in ("mpi_impl", "mpi_version", "nprocs", "placement", "call") if c in sub)


def _limit_note(sub):
    """Seed 001 Eq. 5 model limit for full-duplex settings of two groups (inter-group)."""
    ref = sub.sort_values("msg_bytes").iloc[-1]
    two = groups(ref)
    if len(two) != 2 or half_duplex(ref):
        return ""
    limit = eq5_limit(two[0]["bytes"], two[1]["bytes"])
    return f"; Eq. 5 model limit of the improvement over root gathering: {limit:.2f}"


def _figures(agg, metas, outdir, notes):
    made = []
    for name in figures.available_sets(agg):
        try:
            made += figures.build_and_save(name, agg, metas, outdir / "figures")
        except InputError as err:
            notes.append(f"figure set {name} skipped: {err}")
    if overlay.has_cost_model(agg):
        try:
            _, fo, _, _ = overlay.run(agg, metas, outdir / "overlay")
            made.append(fo)
        except InputError as err:
            notes.append(f"cost-model overlay skipped: {err}")
    return made


def _guideline_blocks(rs, outdir):
    """The performance-guideline section (natives against their mock-ups), when measured."""
    table = guidelines.check(inventory.split(rs))
    if table.empty:
        return []
    table.to_csv(outdir / "guidelines.csv", index=False)
    bad = table[table["status"] == "violated"]
    counts = table.groupby(["installation", "status"]).size().unstack(fill_value=0).reset_index()
    shown = stats.shown(bad[["installation", "guideline", "shape", "native", "msg_bytes", "median_native",
                             "median_mockup", "ratio", "ci_low", "ci_high", "ci_level", "p_value",
                             "q_value", "comparability", "n_native", "n_mockup"]])
    return [("h", 2, "Performance guidelines"),
            ("p", guidelines.method_note(0.05, 0.05, stats.min_launches(0.05)) + " Data: guidelines.csv."),
            ("table", counts), ("p", f"Checks: {len(table)}; {stats.counts_text(table)}. Violations (comparable regressions "
                  f"of a native against its mock-up): {len(bad)}" + ("." if len(bad) else ", none found."))] + \
        ([("table", shown)] if len(bad) else [])


def _phase_blocks(rs, outdir):
    """The per-phase section (timing.phases), when the results have phases files."""
    rows = phases.load(rs)
    if rows.empty:
        return [], []
    reps, worst = phases.sum_check(rows)
    tab = phases.table(rows)
    tab.to_csv(outdir / "phases.csv", index=False)
    made = []
    for fo in phases.figure(tab, rs.metas, rs.raw):
        pl.save(fo, outdir / "figures")
        made.append(fo)
    check = (f"Check: in all {reps} repetitions the phases add up to time_s within {worst:.2g} s."
             if worst <= 1e-9 else
             f"WARNING: in {reps} repetitions the phases differ from time_s by up to {worst:.3g} s: "
             "the phases file does not match its raw file.")
    return [("h", 2, "Phases"),
            ("p", "Per phase, the median over launches of the per-launch median of the phase's time "
                  "(valid repetitions); a phase runs from the moment the last rank ended the previous "
                  "phase to the moment the last rank ended it, so the phases add up to the total. "
                  "Data: phases.csv. " + check),
            ("table", phases.markdown_rows(tab))], made


def build_blocks(rs, outdir):
    """Compute everything and return the report as a list of blocks."""
    agg = aggregate(rs)
    if agg.empty:
        raise InputError(f"{rs.label}: no point has a valid median")
    sp = speedups(agg)
    outdir.mkdir(parents=True, exist_ok=True)
    agg.to_csv(outdir / "aggregate.csv", index=False)
    sp.to_csv(outdir / "speedups.csv", index=False)
    notes = []
    made = _figures(agg, rs.metas, outdir, notes)
    blocks = [("h", 1, "collrepro report"), ("list", _meta_items(rs, agg)),
              ("p", "Times are the median over launches of the per-launch medians after the "
                    "Tukey filter (k from the summary, default 3), with the min and max of the "
                    "per-launch medians in brackets. Speedup = baseline / proposed. "
                    "Data: aggregate.csv, speedups.csv.")]
    blocks += [("p", note) for note in notes]
    if warning := pl.oversubscription_note(rs.metas):
        blocks.insert(2, ("p", f"Warning: {warning}. Compare algorithms from runs with one rank per core."))
    if warning := _tick_warning(agg):
        blocks.insert(2, ("p", warning))
    blocks.append(("h", 2, "Median of medians per point"))
    # One table per (setting, shape, varying context): a setting can hold several shapes
    # (seed 000's p/q ratios, seed 004's neighborhoods), and a pivot over the setting alone
    # would show only the first of them.
    agg = agg.assign(shape=[shape_label(r) for _, r in agg.iterrows()])
    sp = sp.assign(shape=[shape_label(r) for _, r in sp.iterrows()])
    keys = ["setting", "shape"] + pl.varying_context(agg)
    several = agg.groupby("setting")["shape"].nunique()
    for key, sub in agg.groupby(keys, sort=True):
        key_map = dict(zip(keys, key))
        title = key_map["setting"] + (f": {key_map['shape']}" if several[key_map["setting"]] > 1 else "")
        blocks += [("h", 3, title), ("p", _context(sub) + _limit_note(sub)),
                   ("table", _median_pivot(sub))]
        if sub[TAIL_COLUMNS].notna().any().any():
            blocks += [("p", "Tail, " + " / ".join(c.upper() for c in TAIL_COLUMNS) + " of the valid "
                             "repetitions before the Tukey filter (median over launches):"),
                       ("table", _tail_pivot(sub))]
        mask = pd.Series(True, index=sp.index)
        for c, v in key_map.items():
            mask &= sp[c] == v
        pairs = sp[mask]
        if len(pairs):
            blocks += [("p", "Speedups:"), ("table", _speedup_pivot(pairs))]
    blocks += callforms.blocks(rs, agg, outdir)
    blocks += arrival.blocks(rs, outdir)
    blocks += _guideline_blocks(rs, outdir)
    phase_blocks, phase_figures = _phase_blocks(rs, outdir)
    blocks += phase_blocks
    made += phase_figures
    blocks.append(("h", 2, "Figures"))
    for fo in made:
        rel = fo.paths[0].relative_to(outdir)
        blocks += [("p", f"{fo.name} ([PDF]({fo.paths[1].relative_to(outdir).as_posix()}))"),
                   ("img", rel.as_posix(), fo.name)]
    return blocks


def render_markdown(blocks):
    out = []
    for block in blocks:
        kind = block[0]
        if kind == "h":
            out.append("#" * block[1] + " " + block[2])
        elif kind == "p":
            out.append(block[1])
        elif kind == "list":
            out.append("\n".join(f"- {item}" for item in block[1]))
        elif kind == "table":
            out.append(markdown_table(block[1]))
        elif kind == "img":
            out.append(f"![{block[2]}]({block[1]})")
        out.append("")
    return "\n".join(out)


def _inline_links(text):
    """Turn the few '[label](path)' links of paragraphs into HTML anchors."""
    escaped = html.escape(text)
    return re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r'<a href="\2">\1</a>', escaped)


def render_html(blocks):
    out = ["<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\"><title>collrepro report</title>",
           "<style>body{font-family:sans-serif;max-width:1200px;margin:auto}"
           "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px}"
           "img{max-width:100%}</style></head><body>"]
    for block in blocks:
        kind = block[0]
        if kind == "h":
            out.append(f"<h{block[1]}>{html.escape(block[2])}</h{block[1]}>")
        elif kind == "p":
            out.append(f"<p>{_inline_links(block[1])}</p>")
        elif kind == "list":
            out.append("<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in block[1]) + "</ul>")
        elif kind == "table":
            out.append(html_table(block[1]))
        elif kind == "img":
            out.append(f'<img src="{html.escape(block[1])}" alt="{html.escape(block[2])}">')
    out.append("</body></html>")
    return "\n".join(out)


def run(rs, outdir, fmt="md"):
    blocks = build_blocks(rs, outdir)
    path = outdir / ("report.html" if fmt == "html" else "report.md")
    text = render_html(blocks) if fmt == "html" else render_markdown(blocks)
    path.write_text(text, encoding="utf-8")
    return path
