"""dashboard DIR... -o OUT: a static HTML site over result directories.

index.html lists the runs (runs.py: the result directories of one experiment measured
together, e.g. the 2- and the 4-process runs of one configuration) and the installations; a run
page (exp-<experiment>.html, or exp-<experiment>--<run>.html when an experiment has several runs)
shows one run: its installations with their process count, placement and oversubscription (each
from its own metadata), interactive time-against-size plots per algorithm and installation, the
verdicts across versions as badges (verdicts.LABELS; the reason on hover), a per-point history
over the installations of each library, ratios on log axes, the guideline checks and the
provenance of every launch. An installation appears once per run; two runs are never merged.
plotly.min.js (from Debian's python3-plotly), style.css and dashboard.js sit beside the pages,
so the site opens from the file system with no server and no network.

The site is built in a temporary directory beside OUT and then swapped in (safeio.atomic_dir),
so an interrupted build leaves the previous site intact, and the temporaries of a killed build
are removed by the next one. OUT is replaced only when it is empty or written by analyze.
"""

import contextlib
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd

from collrepro.analysis.dashboard import figures as figs
from collrepro.analysis.dashboard import html as H
from collrepro.analysis.dashboard import runs as R
from collrepro.analysis.verdicts import guidelines
from collrepro.analysis.verdicts import trend
from collrepro.analysis.verdicts import stats
from collrepro.analysis.figures import plotting as pl
from collrepro.analysis.verdicts import verdicts as V
from collrepro import safeio
from collrepro.analysis.frames.aggregate import MATCH_KEY, add_settings, aggregate, per_launch, shape_label
from collrepro.analysis.frames.units import format_bytes
from collrepro.analysis.loading.errors import InputError

OWNER = "analyze dashboard"
LEGACY_MARKER = ".collrepro-dashboard"   # what dashboards built before safeio carried
# Staging and old sites of builds before safeio: .<OUT>.tmp-<pid>, .<OUT>.old-<pid>
LEGACY_TEMPORARY = re.compile(r"\.(?P<name>.+)\.(?:tmp|old)-(?P<pid>[0-9]+)")


def slug(text):
    return re.sub(r"[^A-Za-z0-9]+", "-", str(text)).strip("-").lower() or "x"


def page_name(experiment, run=None):
    """exp-<experiment>.html; with several runs of the experiment, exp-<experiment>--<run>.html."""
    return f"exp-{slug(experiment)}.html" if run is None else f"exp-{slug(experiment)}--{slug(run)}.html"


def _launches(entry):
    return len({m["launch"] for m in entry.rs.metas}) or entry.rs.summary["launch"].nunique()


def _points(entry):
    data = entry.rs.summary if len(entry.rs.summary) else entry.rs.raw
    return data["point"].nunique()


def oversubscription(meta):
    """The meta's `oversubscription` record; for runs written before it existed, one inferred
    from the ranks per node (ppn) and the node's cores (hwloc), marked as inferred."""
    recorded = meta.get("oversubscription")
    if isinstance(recorded, dict) or meta.get("simulated"):
        return recorded if isinstance(recorded, dict) else None
    cores = (meta.get("hwloc") or {}).get("cores")
    ppn = meta.get("ppn")
    if not isinstance(cores, int) or not isinstance(ppn, int) or cores <= 0:
        return None
    return {"oversubscribed": ppn > cores, "ranks": ppn, "cores": cores, "ranks_per_core": ppn / cores,
            "host": str(meta.get("machine", "")).split(";")[0], "method": "inferred: ppn over hwloc cores"}


def _oversubscribed(entry):
    """The warning line of an entry that ran oversubscribed, else ""."""
    return pl.oversubscription_note([dict(m, oversubscription=oversubscription(m)) for m in entry.rs.metas])


# ---------------------------------------------------------------- verdict tables

def with_row_columns(table):
    """The verdict table with every verdicts.ROW_COLUMNS column (absent ones empty)."""
    table = table.copy()
    for column in V.ROW_COLUMNS:
        if column not in table:
            table[column] = "" if column in ("reason", "comparability") else np.nan
    return table


def _point_key(frame):
    """One string per row naming its (library, point): the join key of verdicts and launches."""
    return trend.point_keys(frame)


def _change_at(row):
    """The installation at which a verdict row's change starts ("" when it names none)."""
    for column in ("after", "installation_after", "to", "first_change"):
        if str(row.get(column) or "") not in ("", "nan"):
            return str(row[column])
    return ""


def verdict_cells(table, columns):
    """The table's `columns`, with `verdict` as a badge (raw HTML) and `_label` the bare label."""
    shown = table.copy()
    shown["_label"] = shown["verdict"]
    shown["verdict"] = [H.verdict_badge(r) for r in table.to_dict("records")]
    filled = lambda c: c == "verdict" or shown[c].replace("", np.nan).notna().any()   # noqa: E731
    return shown, [c for c in columns if c in shown and filled(c)]


ROW_CLASS = {V.REGRESSION: "bad", V.IMPROVEMENT: "good", V.INCONCLUSIVE: "na"}


# ---------------------------------------------------------------- run page sections

def installations_section(run):
    rows = pd.DataFrame([{
        "installation": e.label, "library": e.installation.impl,
        "version": e.installation.version, "identity": e.installation.identity or "-",
        "processes": R.layout(e), "placement": R.placement(e),
        "oversubscribed": "yes" if _oversubscribed(e) else "no",
        "launches": _launches(e), "points": _points(e), "directory": str(e.directory)}
        for e in run.entries])
    warnings = "".join(H.warning(f"{e.label}: {_oversubscribed(e)}")
                       for e in run.entries if _oversubscribed(e))
    return (f"<h2 id='installations'>Installations</h2>{warnings}" +
            H.table(rows, list(rows.columns), lambda r: "bad" if r["oversubscribed"] == "yes" else ""))


def plots_section(entries, prefix):
    frames = [aggregate(e.rs).assign(installation=e.label) for e in entries]
    agg = pd.concat(frames, ignore_index=True)
    agg["shape"] = [shape_label(r) for _, r in agg.iterrows()]
    parts = ["<h2 id='plots'>Time against size</h2>",
             "<p class='note'>Median of the per-launch medians; error bars: the smallest and largest "
             "launch median. Colour: algorithm; line style and marker: installation. Click legend entries to "
             "hide or show them.</p>"]
    several_np = agg["nprocs"].nunique() > 1
    for n, ((setting, shape, nprocs), sub) in enumerate(sorted(agg.groupby(["setting", "shape", "nprocs"]))):
        title = f"{setting} ({shape})" if shape and shape not in setting else setting
        title += f", {nprocs} processes" if several_np else ""
        parts.append(f"<h3>{H.esc(title)}</h3>")
        parts.append(H.plot(f"{prefix}-size-{n}", figs.to_json(figs.time_vs_size(sub, title))))
    return "\n".join(parts)


def _mixed_load_warning(entries):
    """A warning when the installations of one library ran with and without oversubscription:
    a change between them may come from the load, not the library."""
    libraries = {}
    for e in entries:
        libraries.setdefault(e.installation.impl, set()).add(bool(_oversubscribed(e)))
    mixed = sorted(lib for lib, flags in libraries.items() if len(flags) > 1)
    return H.warning(f"{', '.join(mixed)}: some installations ran oversubscribed and others not; a "
                     "change between them may come from the load, not the library") if mixed else ""


def launch_table(ordered):
    """Per-launch medians of every entry (in library order), with library, installation,
    position (in its library), setting, shape and point_key."""
    frames, position = [], {}
    for e in ordered:
        mine = position.setdefault(e.installation.impl, {})
        mine.setdefault(e.installation.name, len(mine))
        per = per_launch(e.rs).dropna(subset=["median"])
        frames.append(per[MATCH_KEY + ["launch", "median"]].assign(
            library=e.installation.impl, installation=e.installation.name,
            position=mine[e.installation.name]))
    per = pd.concat(frames, ignore_index=True)
    per["point_key"] = _point_key(per)
    points = per.drop_duplicates("point_key")
    points = add_settings(points, [m for e in ordered for m in e.rs.metas])
    points["shape"] = [shape_label(r) for _, r in points.iterrows()]
    for column in ("setting", "shape"):
        per[column] = per["point_key"].map(dict(zip(points["point_key"], points[column])))
    return per


def _series(per):
    """Per (library, point, installation): launches, median of medians, and the ratio to the
    library's first installation that has the point."""
    g = per.groupby(["library", "setting", "point_key", "algorithm", "msg_bytes", "position",
                     "installation"], dropna=False)["median"]
    out = g.agg(n_launches="size", median="median").reset_index().sort_values(["library", "position"])
    first = out.groupby("point_key")["median"].transform("first")
    return out.assign(ratio=out["median"] / first)


def _point_name(row, several_shapes):
    name = f"{row['algorithm']}, {format_bytes(row['msg_bytes'])}"
    return f"{name}, {row['shape']}" if several_shapes else name


def _worst(rows):
    """The most severe verdict row of a point (the one its history names), else None."""
    return min(rows, key=lambda r: figs.SEVERITY.index(r["verdict"]) if r["verdict"] in figs.SEVERITY
               else len(figs.SEVERITY), default=None)


def history_plots(per, table, names, prefix):
    """Per (library, setting): the per-launch medians of one point at a time on every
    installation of the library (a menu picks the point), and the ratio of each point's median
    to the library's first installation (log axis), with the changes marked."""
    rows_of = {}
    for r in table.to_dict("records"):
        rows_of.setdefault(r["point_key"], []).append(r)
    long = _series(per)
    parts = []
    for n, ((library, setting), sub) in enumerate(sorted(per.groupby(["library", "setting"]))):
        pts = sub.drop_duplicates("point_key").sort_values(["algorithm", "msg_bytes", "shape"])
        several = pts["shape"].nunique() > 1
        menu = []
        for _, p in pts.iterrows():
            worst = _worst(rows_of.get(p["point_key"], []))
            menu.append((p["point_key"], _point_name(p, several), worst["verdict"] if worst else "",
                         H.hover(worst) if worst else "measured on one installation: no verdict"))
        title = f"{library}: {setting}"
        parts.append(f"<h3>{H.esc(title)}</h3>")
        parts.append(H.plot(f"{prefix}-history-{n}", figs.to_json(
            figs.history_figure(sub, menu, names[library], f"History, {title}"))))
        ratios = long[(long["library"] == library) & (long["setting"] == setting)]
        starts = {(k, _change_at(r)) for k, rows in rows_of.items() for r in rows
                  if r["verdict"] in V.CHANGED}
        hit = ratios[[(k, i) in starts for k, i in zip(ratios["point_key"], ratios["installation"])]]
        parts.append(H.plot(f"{prefix}-trend-{n}", figs.to_json(
            figs.trend_figure(ratios, hit, names[library], f"Ratio to the first installation, {title}"))))
    return parts


def ratio_plots(table, prefix, threshold):
    """Per library: every verdict with a ratio, as the ratio and its interval on a log axis."""
    parts = []
    for n, (library, sub) in enumerate(table.groupby("library", sort=True)):
        rows, seen = [], {}
        pairs = sub["after"].nunique() > 1 if "after" in sub else False     # several pairs per point
        for r in sub.to_dict("records"):
            name = f"{r['algorithm']} {format_bytes(r['msg_bytes'])} · {r['setting']}"
            if r.get("shape") and str(r["shape"]) not in str(r["setting"]):
                name += f" ({r['shape']})"
            if _change_at(r) and (pairs or r["verdict"] in V.CHANGED):
                name += f" @ {_change_at(r)}"
            seen[name] = seen.get(name, 0) + 1
            rows.append(dict(r, name=name if seen[name] == 1 else f"{name} #{seen[name]}", hover=H.hover(r)))
        if not any(r["ratio"] == r["ratio"] for r in rows):
            continue
        parts.append(H.plot(f"{prefix}-ratios-{n}", figs.to_json(figs.ratio_figure(
            rows, f"{library}: the verdicts as ratios (shaded: ±{threshold:.0%})", threshold))))
    if parts:
        parts.insert(0, "<h3 id='ratios'>Ratios</h3><p class='note'>Each verdict's ratio after / before "
                        "with its interval (log axis), coloured by label; the shaded band is the smallest "
                        "threshold (a point's own threshold can be wider: its noise floor).</p>")
    return parts


def trend_section(run, prefix, order, alpha, threshold, need):
    """The run's verdicts across the installations of each library: summary badges, the points
    that changed or got no verdict, and the per-point histories. Returns (html, verdict rows)."""
    entries = run.entries
    libraries = pd.Series([e.installation.impl for e in entries]).value_counts()
    head = "<h2 id='trend'>Trend across versions</h2>"
    if not (libraries >= 2).any():
        return head + "<p>One installation per library: no trend to show.</p>", []
    ordered, table, _ = trend.analyse(entries, order, alpha, threshold, need)
    if table.empty:
        return head + "<p>No point was measured on two installations of one library.</p>", []
    table = with_row_columns(table)
    table["point_key"] = _point_key(table)
    rows = table.to_dict("records")
    parts = [head, _mixed_load_warning(entries),
             f"<p class='note'>{H.esc(trend.method_note(alpha, threshold, need))} Hover a badge for "
             "its reason.</p>",
             f"<p class='verdicts'>Comparisons ({len(table)}): {H.badge_summary(rows)}</p>"]
    columns = ["library", "setting", "shape", "algorithm", "msg_bytes", "verdict", "first_change",
               "before", "after", "ratio", "ci_low", "ci_high", "ci_level", "p_value", "q_value",
               "threshold", "mde", "max_regression", "design", "n_pairs", "n_before", "n_after", "comparability"]
    shown, cols = verdict_cells(table, columns)
    flagged = shown[shown["_label"] != V.SAME]
    row_class = lambda r: ROW_CLASS.get(r["_label"], "")   # noqa: E731
    if len(flagged):
        parts.append(H.table(flagged, cols, row_class, raw_html=("verdict",)))
    parts.append(H.details(f"All {len(table)} comparisons", H.table(shown, cols, row_class, raw_html=("verdict",))))
    parts += ratio_plots(table, prefix, threshold)
    names = {}
    for e in ordered:
        names.setdefault(e.installation.impl, {})[e.installation.name] = None
    parts.append("<h3 id='history'>Per-point history</h3><p class='note'>Per library and setting: "
                 "one point's per-launch medians on every installation of the library (pick the point "
                 "in the menu above the plot; it opens on the most severe verdict), then every point's "
                 "median relative to the library's first installation (log axis; crosses: a change "
                 "starts there).</p>")
    parts += history_plots(launch_table(ordered), table, {k: list(v) for k, v in names.items()}, prefix)
    return "\n".join(parts), rows


def guidelines_section(table, alpha, threshold, need):
    """The guideline checks of the run (native against mock-up), as badges: a regression is a
    violated guideline. Returns (html, number of violations)."""
    head = "<h2 id='guidelines'>Performance guidelines</h2>"
    if table.empty:
        return head + (f"<p>No native collective was measured beside its mock-up "
                       f"({H.esc(guidelines.mockups())}).</p>"), 0
    table = with_row_columns(table)
    parts = [head, f"<p class='note'>{H.esc(guidelines.method_note(alpha, threshold, need))} A "
             "regression: the native call is slower than its mock-up (the guideline is violated).</p>"]
    summary = pd.DataFrame([{"installation": name, "verdicts": H.badge_summary(sub.to_dict("records"))}
                            for name, sub in table.groupby("installation", sort=False)])
    parts.append(H.table(summary, ["installation", "verdicts"], raw_html=("verdicts",)))
    columns = ["installation", "guideline", "shape", "native", "mockup", "msg_bytes", "median_native",
               "median_mockup", "status", "verdict", "ratio", "ci_low", "ci_high", "p_value", "q_value", "threshold",
               "max_regression", "design", "n_pairs", "n_native", "n_mockup", "comparability"]
    shown, cols = verdict_cells(table, columns)
    bad = shown[shown["_label"] == V.REGRESSION]
    row_class = lambda r: ROW_CLASS.get(r["_label"], "")   # noqa: E731
    parts.append(f"<h3>Violations ({len(bad)})</h3>")
    parts.append(H.table(bad, cols, row_class, raw_html=("verdict",)) if len(bad) else "<p>None found.</p>")
    parts.append(H.details(f"All {len(table)} checks", H.table(shown, cols, row_class, raw_html=("verdict",))))
    return "\n".join(parts), len(bad)


PROVENANCE = ["installation", "directory", "launch", "start_utc", "end_utc", "complete", "machine",
              "processes", "git_revision", "compiler", "oversubscription", "command"]


def _oversubscription_text(meta):
    o = oversubscription(meta)
    if not isinstance(o, dict):
        return "not recorded"
    inferred = " (inferred)" if str(o.get("method", "")).startswith("inferred") else ""
    if not o.get("oversubscribed"):
        return "no" + inferred
    return (f"YES: {o.get('ranks')} ranks on {o.get('cores')} cores "
            f"({o.get('ranks_per_core', 0):.3g}/core){inferred}")


def provenance_section(entries):
    rows, blocks = [], []
    for e in entries:
        for m in sorted(e.rs.metas, key=lambda m: m["launch"]):
            rows.append({"installation": e.label, "directory": str(e.directory),
                         "launch": m["launch"], "start_utc": m.get("start_utc", "-"),
                         "end_utc": m.get("end_utc") or "-", "complete": m.get("complete", "-"),
                         "machine": m.get("machine", "-"),
                         "processes": f"{m.get('nprocs')} ({m.get('nodes')} x {m.get('ppn')})",
                         "git_revision": m.get("git_revision") or (m.get("build") or {}).get("git_revision", "-"),
                         "compiler": m.get("compiler") or (m.get("build") or {}).get("compiler", "-"),
                         "oversubscription": _oversubscription_text(m), "command": m.get("command", "-")})
            shown = {k: v for k, v in m.items() if not k.startswith("_")}
            blocks.append(H.details(f"{e.label}, launch {m['launch']}: full metadata",
                                    H.json_block(shown)))
        library = str(e.rs.metas[0].get("mpi_library", "")) if e.rs.metas else ""
        blocks.append(H.details(f"{e.label}: MPI_Get_library_version", H.json_block(library)))
    frame = pd.DataFrame(rows, columns=PROVENANCE)
    return ("<h2 id='provenance'>Provenance</h2>" +
            H.table(frame, PROVENANCE, lambda r: "bad" if str(r["oversubscription"]).startswith("YES") else "")
            + "\n".join(blocks))


def _run_facts(run):
    """Processes, placement and oversubscription of a run, from its entries' own metadata."""
    over = [e.label for e in run.entries if _oversubscribed(e)]
    return {"processes": ", ".join(dict.fromkeys(R.layout(e) for e in run.entries)),
            "placement": ", ".join(dict.fromkeys(R.placement(e) for e in run.entries)),
            "oversubscribed": ("all" if len(over) == len(run.entries) else ", ".join(over)) if over else "no"}


def run_page(run, options):
    prefix = slug(f"{run.experiment}-{run.label}")
    entries = run.entries
    description = next((m.get("description") for e in entries for m in e.rs.metas if m.get("description")), "")
    trend_html, rows = trend_section(run, prefix, *options)
    guide = guidelines.check(entries, *options[1:])
    guide_html, violations = guidelines_section(guide, *options[1:])
    facts = _run_facts(run)
    head = (f"<p class='run' data-run='{H.esc(run.label)}'>Run <code>{H.esc(run.label)}</code> of experiment "
            f"<b>{H.esc(run.experiment)}</b>: {H.esc(facts['processes'])} processes, placement "
            f"{H.esc(facts['placement'])}, oversubscribed: {H.esc(facts['oversubscribed'])}.</p>")
    body = "\n".join([f"<p>{H.esc(description)}</p>" if description else "", head,
                      installations_section(run), plots_section(entries, prefix),
                      trend_html, guide_html, provenance_section(entries)])
    nav = [("index", "index.html"), ("installations", "#installations"), ("plots", "#plots"),
           ("trend", "#trend"), ("history", "#history"), ("guidelines", "#guidelines"),
           ("provenance", "#provenance")]
    return H.page(f"Experiment {run.title}", body, nav), rows, violations


def index_page(summary, runs):
    inst = {}
    for run in runs:
        for e in run.entries:
            row = inst.setdefault(e.installation.name, {
                "installation": e.installation.name, "library": e.installation.impl,
                "version": e.installation.version, "identity": e.installation.identity or "-", "runs": []})
            row["runs"].append(f'<a href="{run.page}">{H.esc(run.title)}</a>')
    inst = pd.DataFrame(list(inst.values()), columns=["installation", "library", "version", "identity", "runs"])
    inst["runs"] = [", ".join(r) for r in inst["runs"]]
    warn = summary[summary["oversubscribed"] != "no"]
    body = (H.warning(f"{len(warn)} run(s) ran oversubscribed ({', '.join(warn['name'])}): their "
                      "times measure the OS scheduler as much as the algorithms") if len(warn) else "")
    body += ("<h2>Runs</h2><p class='note'>One row per run: the result directories of one experiment "
             "measured together. Verdicts: one per point and pair of installations of a library within "
             "the run (consecutive releases, or a derived installation against its base); hover a badge "
             "for the reasons.</p>") + H.table(
        summary, ["experiment", "run", "processes", "placement", "oversubscribed", "installations",
                  "launches", "points", "verdicts", "guideline violations"],
        lambda r: "bad" if r["regressions"] or r["guideline violations"] else "",
        raw_html=("run", "verdicts"))
    body += "<h2>Installations</h2>" + H.table(inst, list(inst.columns), raw_html=("runs",))
    return H.page("collrepro results dashboard", body)


# ---------------------------------------------------------------- the site

def write_assets(directory):
    from plotly.offline import get_plotlyjs
    (directory / "plotly.min.js").write_text(get_plotlyjs(), encoding="utf-8")
    (directory / "style.css").write_text(H.STYLE, encoding="utf-8")
    (directory / "dashboard.js").write_text(H.SCRIPT, encoding="utf-8")


def _ours(outdir):
    return (outdir / safeio.OWNER_MARKER).is_file() or (outdir / LEGACY_MARKER).is_file()


def check_target(outdir):
    outdir = Path(outdir)
    if outdir.exists() and (not outdir.is_dir() or (any(outdir.iterdir()) and not _ours(outdir))):
        raise InputError(f"{outdir}: exists and is not a dashboard built by analyze; give a new or "
                         "empty -o directory (it would be replaced)")


def remove_legacy_temporaries(outdir):
    """Remove the staging and old sites that builds before safeio left when they were killed."""
    with contextlib.suppress(OSError):
        for entry in outdir.parent.iterdir():
            found = LEGACY_TEMPORARY.fullmatch(entry.name)
            if (found and found["name"] == outdir.name and entry.is_dir()
                    and not safeio.pid_alive(int(found["pid"]))):
                shutil.rmtree(entry, ignore_errors=True)


def write_site(entries, staging, order, alpha, threshold, need):
    write_assets(staging)
    runs = R.split_runs(entries)
    several = {}
    for run in runs:
        several[run.experiment] = several.get(run.experiment, 0) + 1
    for run in runs:
        run.page = page_name(run.experiment, run.label if several[run.experiment] > 1 else None)
    rows = []
    for run in runs:
        html, verdict_rows, violations = run_page(run, (order, alpha, threshold, need))
        (staging / run.page).write_text(html, encoding="utf-8")
        rows.append({"name": run.title, "experiment": run.experiment,
                     "run": f'<a href="{run.page}">{H.esc(run.label)}</a>', **_run_facts(run),
                     "installations": ", ".join(e.label for e in run.entries),
                     "launches": sum(_launches(e) for e in run.entries),
                     "points": max(_points(e) for e in run.entries),
                     "verdicts": H.badge_summary(verdict_rows),
                     "regressions": sum(r["verdict"] == V.REGRESSION for r in verdict_rows),
                     "guideline violations": violations})
    (staging / "index.html").write_text(index_page(pd.DataFrame(rows), runs), encoding="utf-8")


def build(entries, outdir, order="version", alpha=0.05, threshold=0.05, need=None):
    """Write the site to outdir (atomically replaced); return the index page's path."""
    need = stats.min_launches(alpha) if need is None else need
    outdir = Path(outdir)
    check_target(outdir)
    if outdir.is_dir() and not (outdir / safeio.OWNER_MARKER).is_file() and (outdir / LEGACY_MARKER).is_file():
        (outdir / safeio.OWNER_MARKER).write_text("adopted: a dashboard built before safeio\n", encoding="utf-8")
    remove_legacy_temporaries(outdir)
    with safeio.atomic_dir(outdir, OWNER) as staging:
        write_site(entries, staging, order, alpha, threshold, need)
    return outdir / "index.html"
