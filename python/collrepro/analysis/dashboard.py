"""dashboard DIR... -o OUT: a static HTML site over result directories.

index.html lists the experiments and installations; exp-<name>.html shows one experiment: its
installations (with a warning when a run was oversubscribed), interactive time-against-size
plots per algorithm and installation, the trend across versions with the significant changes
marked, the guideline checks and the provenance of every launch. plotly.min.js (from Debian's
python3-plotly), style.css and dashboard.js sit beside the pages, so the site opens from the
file system with no server and no network.

The site is built in a temporary directory beside OUT and then swapped in (safeio.atomic_dir),
so an interrupted build leaves the previous site intact, and the temporaries of a killed build
are removed by the next one. OUT is replaced only when it is empty or written by analyze.
"""

import contextlib
import re
import shutil
from pathlib import Path

import pandas as pd

from . import dashboard_figures as figs
from . import dashboard_html as H
from . import guidelines, stats, trend
from . import plotting as pl
from .. import safeio
from .aggregate import aggregate, shape_label
from .errors import InputError

OWNER = "analyze dashboard"
LEGACY_MARKER = ".collrepro-dashboard"   # what dashboards built before safeio carried
# Staging and old sites of builds before safeio: .<OUT>.tmp-<pid>, .<OUT>.old-<pid>
LEGACY_TEMPORARY = re.compile(r"\.(?P<name>.+)\.(?:tmp|old)-(?P<pid>[0-9]+)")


def slug(text):
    return re.sub(r"[^A-Za-z0-9]+", "-", str(text)).strip("-").lower() or "x"


def page_name(experiment):
    return f"exp-{slug(experiment)}.html"


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


# ---------------------------------------------------------------- experiment page sections

def installations_section(entries):
    rows = pd.DataFrame([{
        "installation": e.label, "library": e.installation.impl,
        "version": e.installation.version, "identity": e.installation.identity or "-",
        "launches": _launches(e), "points": _points(e), "directory": str(e.directory),
        "oversubscribed": "yes" if _oversubscribed(e) else "no"} for e in entries])
    warnings = "".join(H.warning(f"{e.label}: {_oversubscribed(e)}")
                       for e in entries if _oversubscribed(e))
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


def trend_section(entries, prefix, order, alpha, threshold, need):
    libraries = pd.Series([e.installation.impl for e in entries]).value_counts()
    head = "<h2 id='trend'>Trend across versions</h2>"
    if not (libraries >= 2).any():
        return head + "<p>One installation per library: no trend to show.</p>", 0
    ordered, table, series = trend.analyse(entries, order, alpha, threshold, need)
    if table.empty:
        return head + "<p>No point was measured on two installations of one library.</p>", 0
    counts = table["verdict"].value_counts().to_dict()
    parts = [head, _mixed_load_warning(entries),
             f"<p class='note'>{H.esc(trend.method_note(alpha, threshold, need))}</p>",
             "<p>Points: " + H.esc(", ".join(f"{k}: {counts.get(k, 0)}" for k in trend.VERDICTS)) + "</p>"]
    changed = table[table["verdict"] != "same"]
    if len(changed):
        parts.append(H.table(changed, ["library", "setting", "shape", "algorithm", "msg_bytes", "verdict",
                                       "before", "after", "ratio", "ci_low", "ci_high", "p_value",
                                       "q_value", "n_before", "n_after", "comparability", "reason"],
                             lambda r: {"regression": "bad", "improvement": "good"}.get(r["verdict"], "na")))
    marks = trend.change_marks(table, series)
    long = series.assign(setting=trend.point_keys(series).map(
        dict(zip(trend.point_keys(table), table["setting"]))))
    names = {}
    for e in ordered:
        names.setdefault(e.installation.impl, {})[e.installation.name] = None
    for n, ((library, setting), sub) in enumerate(sorted(long.groupby(["library", "setting"]))):
        title = f"{library}: {setting}"
        hit = marks.loc[marks.index.intersection(sub.index)]
        parts.append(f"<h3>{H.esc(title)}</h3>")
        parts.append(H.plot(f"{prefix}-trend-{n}",
                            figs.to_json(figs.trend_figure(sub, hit, list(names[library]), title))))
    return "\n".join(parts), int((table["verdict"] == "regression").sum())


def guidelines_section(table, alpha, threshold, need):
    head = "<h2 id='guidelines'>Performance guidelines</h2>"
    if table.empty:
        return head + ("<p>No native collective was measured beside its mock-up (root-gathering, "
                       "gather-bcast, straightforward).</p>"), 0
    parts = [head, f"<p class='note'>{H.esc(guidelines.method_note(alpha, threshold, need))}</p>"]
    counts = table.groupby(["installation", "status"]).size().unstack(fill_value=0).reset_index()
    parts.append(H.table(counts, list(counts.columns)))
    bad = table[table["status"] == "violated"]
    parts.append(f"<h3>Violations ({len(bad)})</h3>")
    columns = ["installation", "guideline", "shape", "native", "mockup", "msg_bytes", "median_native",
               "median_mockup", "ratio", "p_value", "n_native", "n_mockup"]
    parts.append(H.table(bad, columns, lambda r: "bad") if len(bad) else "<p>None found.</p>")
    parts.append(H.details(f"All {len(table)} checks", H.table(
        table, columns + ["status", "comparability"],
        lambda r: {"violated": "bad", "inconclusive": "na"}.get(r["status"], ""))))
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


def experiment_page(experiment, entries, guide, options):
    prefix = slug(experiment)
    description = next((m.get("description") for e in entries for m in e.rs.metas if m.get("description")), "")
    trend_html, regressions = trend_section(entries, prefix, *options)
    guide_html, violations = guidelines_section(guide[guide["experiment"] == experiment], *options[1:])
    body = "\n".join([f"<p>{H.esc(description)}</p>" if description else "",
                      installations_section(entries), plots_section(entries, prefix),
                      trend_html, guide_html, provenance_section(entries)])
    nav = [("index", "index.html"), ("installations", "#installations"), ("plots", "#plots"),
           ("trend", "#trend"), ("guidelines", "#guidelines"), ("provenance", "#provenance")]
    return H.page(f"Experiment {experiment}", body, nav), regressions, violations


def index_page(summary, entries):
    inst = pd.DataFrame([{"installation": e.installation.name, "library": e.installation.impl,
                          "version": e.installation.version, "identity": e.installation.identity or "-",
                          "experiment": e.experiment} for e in entries])
    inst = inst.groupby(["installation", "library", "version", "identity"], sort=False)["experiment"] \
        .agg(lambda s: ", ".join(s)).reset_index()
    warn = summary[summary["oversubscribed"] != ""]
    body = (H.warning(f"{len(warn)} experiment(s) ran oversubscribed ({', '.join(warn['name'])}): their "
                      "times measure the OS scheduler as much as the algorithms") if len(warn) else "")
    body += "<h2>Experiments</h2>" + H.table(
        summary, ["experiment", "installations", "launches", "points", "regressions",
                  "guideline violations", "oversubscribed"],
        lambda r: "bad" if r["regressions"] or r["guideline violations"] else "", raw_html=("experiment",))
    body += "<h2>Installations</h2>" + H.table(inst, list(inst.columns))
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
    guide = guidelines.check(entries, alpha, threshold, need)
    rows = []
    for experiment in dict.fromkeys(e.experiment for e in entries):
        group = [e for e in entries if e.experiment == experiment]
        html, regressions, violations = experiment_page(experiment, group, guide,
                                                        (order, alpha, threshold, need))
        (staging / page_name(experiment)).write_text(html, encoding="utf-8")
        over = [e.label for e in group if _oversubscribed(e)]
        rows.append({"name": experiment,
                     "experiment": f'<a href="{page_name(experiment)}">{H.esc(experiment)}</a>',
                     "installations": ", ".join(e.label for e in group),
                     "launches": sum(_launches(e) for e in group),
                     "points": max(_points(e) for e in group), "regressions": regressions,
                     "guideline violations": violations,
                     "oversubscribed": ", ".join(over)})
    (staging / "index.html").write_text(index_page(pd.DataFrame(rows), entries), encoding="utf-8")


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
