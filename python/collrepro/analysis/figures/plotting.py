"""Shared plotting helpers: panel grids, line and bar panels, footer, saving.

Every figure command builds its figure with panels_figure() and one of the
draw helpers, so layout, colours, legends, units and footers are uniform.
Figures are matplotlib Figure objects on the Agg canvas (no pyplot state).
"""

import math
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullLocator  # noqa: E402
import numpy as np  # noqa: E402

from collrepro import catalogue  # noqa: E402
from collrepro.analysis.frames.aggregate import DEFAULT_KINDS  # noqa: E402
from collrepro.analysis.frames.units import format_bytes, time_unit  # noqa: E402

# call: the call form (blocking, nonblocking, persistent) splits tables and panels as well.
CONTEXT_COLUMNS = ["experiment", "mpi_impl", "mpi_version", "nodes", "nprocs", "ppn",
                   "placement", "sync", "clock", "call"]
_PALETTE = [f"C{i}" for i in range(10)]
# One distinct colour per algorithm, the same in every figure: the catalogue's
# (python/collrepro/catalogue.json; a new algorithm gets a free colour when it is generated).
_FIXED = catalogue.colours()


@dataclass
class FigureOutput:
    """A built figure: name (file stem), the Figure, its panel count, saved paths."""
    name: str
    fig: Figure
    panels: int
    paths: list = field(default_factory=list)


def indexed_color(i):
    """The i-th colour of the palette (for series that are not algorithms, e.g. p:q ratios)."""
    return _PALETTE[i % len(_PALETTE)]


def color_for(label, order=None):
    """Algorithms keep one colour everywhere; other labels follow `order`."""
    if label in _FIXED:
        return _FIXED[label]
    if order is not None and label in order:
        return _PALETTE[order.index(label) % len(_PALETTE)]
    return _PALETTE[sum(map(ord, str(label))) % len(_PALETTE)]


# ---------------------------------------------------------------- axes

def _thin(values, most):
    """At most `most` of the sorted values, evenly spaced and always the largest (where the
    notes and the paper's values sit)."""
    step = max(1, math.ceil(len(values) / most))
    return values[::-1][::step][::-1]


def size_axis(ax, sizes, label="message size per process"):
    """Log2 x axis with ticks at the measured sizes, labelled B/KiB/MiB."""
    ticks = _thin(sorted({float(s) for s in sizes if s > 0}), 7)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: format_bytes(v)))
    ax.tick_params(axis="x", labelsize=7)
    ax.set_xlabel(label)


def figure_time_unit(*seconds):
    """One (unit name, seconds per unit) for a whole figure, from the largest finite time in
    all of `seconds` (arrays or columns): every panel of the figure then shows the same unit."""
    finite = [s for part in seconds for s in np.asarray(part, dtype=float).ravel() if math.isfinite(s)]
    return time_unit(max(finite) if finite else 1.0)


def time_label(ax, unit, label="median run time"):
    """Label the y axis with `unit` (from figure_time_unit); return its divisor."""
    name, scale = unit
    ax.set_ylabel(f"{label} [{name}]")
    return scale


def time_scale(ax, seconds, label="median run time"):
    """Pick s/ms/µs for this one axes (a figure of one panel), label the y axis, return the divisor."""
    return time_label(ax, figure_time_unit(seconds), label)


def log_time_axis(ax):
    """Log y axis with labelled 1-2-5 ticks (plain numbers, no powers of ten)."""
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.grid(True, which="major", alpha=0.3)


# ---------------------------------------------------------------- draw helpers

def _errors(sub, y, scale):
    if "min" not in sub or "max" not in sub:
        return None
    lower = (sub[y] - sub["min"]).clip(lower=0) / scale
    upper = (sub["max"] - sub[y]).clip(lower=0) / scale
    return np.vstack([lower.to_numpy(), upper.to_numpy()])


def draw_lines(ax, data, series, x="msg_bytes", y="median", scale=1.0, errors=True,
               order=None, style=None, label_suffix="", colors=None):
    """One line per value of column `series` (x sorted), min/max error bars; colors: an optional
    {series value: colour} that overrides color_for."""
    for name, sub in sorted(data.groupby(series), key=lambda kv: _rank(kv[0], order)):
        sub = sub.sort_values(x)
        yerr = _errors(sub, y, scale) if errors else None
        kw = dict(marker="o", markersize=3.5, linewidth=1.3, capsize=2)
        kw.update(style or {})
        ax.errorbar(sub[x].to_numpy(dtype=float), sub[y].to_numpy(dtype=float) / scale, yerr=yerr,
                    color=(colors or {}).get(name) or color_for(name, order),
                    label=f"{name}{label_suffix}", **kw)


def draw_bars(ax, data, series, x="msg_bytes", y="median", scale=1.0, order=None):
    """Grouped bars: categories = values of x, one bar per series, min/max error bars."""
    cats = sorted(data[x].unique())
    names = sorted(data[series].unique(), key=lambda n: _rank(n, order))
    width = 0.8 / max(1, len(names))
    for i, name in enumerate(names):
        sub = data[data[series] == name].set_index(x).reindex(cats)
        pos = np.arange(len(cats)) - 0.4 + width * (i + 0.5)
        ax.bar(pos, sub[y].to_numpy(dtype=float) / scale, width, yerr=_errors(sub, y, scale),
               capsize=2, color=color_for(name, order), label=str(name), error_kw={"linewidth": 0.8})
    ax.set_xticks(np.arange(len(cats)), [format_bytes(c) for c in cats], fontsize=7)
    ax.grid(True, axis="y", alpha=0.3)


def _rank(name, order):
    if order and name in order:
        return (0, order.index(name), "")
    known = list(DEFAULT_KINDS)
    return (1, known.index(name), "") if name in known else (2, 0, str(name))


# ---------------------------------------------------------------- figures

def varying_context(data):
    """Context columns that take more than one value: they split panels."""
    return [c for c in CONTEXT_COLUMNS if c in data and data[c].nunique() > 1]


def context_suffix(key_map, columns):
    parts = [f"{c}={key_map[c]}" for c in columns if c in key_map]
    return (" (" + ", ".join(parts) + ")") if parts else ""


def panels_figure(name, data, panel_cols, draw, title_of, suptitle, footer, ncols=3,
                  extra_legend=(), xroom=0.65):
    """Group `data` by panel_cols; draw(ax, sub, key_map) per panel; legend, footer.

    extra_legend: proxy handles appended to the figure legend (see proxy_line).
    xroom: inches below each panel for its x tick labels and x label.
    """
    by = panel_cols[0] if len(panel_cols) == 1 else panel_cols
    groups = [(dict(zip(panel_cols, k if isinstance(k, tuple) else (k,))), sub)
              for k, sub in data.groupby(by, sort=True, dropna=False)]
    fig, axes, shape = _grid(len(groups), ncols)
    for ax, (key_map, sub) in zip(axes, groups):
        draw(ax, sub, key_map)
        ax.set_title(title_of(key_map, sub), fontsize=9)
    _finish(fig, axes, shape, suptitle, footer, extra_legend, xroom)
    return FigureOutput(name=name, fig=fig, panels=len(axes))


# Fixed layout in inches (faster and more predictable than tight_layout).
PANEL_W, PANEL_H = 3.8, 2.5       # axes box
LEFT, RIGHT, GAP_W = 0.8, 0.45, 0.85
TITLE_ROOM = 0.3                  # panel title above each axes box


def _grid(n, ncols):
    ncols = max(1, min(ncols, n))
    nrows = max(1, math.ceil(n / ncols))
    fig = Figure(figsize=(max(LEFT + RIGHT + ncols * PANEL_W + (ncols - 1) * GAP_W, 9.0), 4.0))
    FigureCanvasAgg(fig)
    axes = list(fig.subplots(nrows, ncols, squeeze=False).ravel())
    for ax in axes[n:]:
        fig.delaxes(ax)
    return fig, axes[:n], (nrows, ncols)


def _legend_entries(axes):
    seen = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    return list(seen.values()), list(seen.keys())


def proxy_line(label, **style):
    """A legend-only entry (e.g. 'dashed = model')."""
    return Line2D([], [], label=label, **style)


def _finish(fig, axes, shape, suptitle, footer, extra_handles=(), xroom=0.65):
    """Size the figure: title and legend strip on top, panels, footer below."""
    handles, labels = _legend_entries(axes)
    handles += list(extra_handles)
    labels += [h.get_label() for h in extra_handles]
    width = fig.get_figwidth()
    longest = max((len(label) for label in labels), default=1)
    ncol = max(1, min(5, len(labels), int(width / (0.065 * longest + 0.6))))
    legend_rows = math.ceil(len(labels) / ncol) if labels else 0
    title_in = 0.1 + 0.22 * (suptitle.count("\n") + 1)
    top_in = title_in + 0.19 * legend_rows + 0.05 + TITLE_ROOM
    footer = "\n".join(textwrap.fill(line, int(width * 15), subsequent_indent="  ")
                       for line in footer.splitlines())
    bottom_in = 0.13 * (footer.count("\n") + 1) + 0.15 + xroom
    nrows, ncols = shape
    gap_h = xroom + TITLE_ROOM + 0.1
    height = top_in + nrows * PANEL_H + (nrows - 1) * gap_h + bottom_in
    fig.set_size_inches(width, height)
    panel_w = (width - LEFT - RIGHT - (ncols - 1) * GAP_W) / ncols
    fig.subplots_adjust(left=LEFT / width, right=1 - RIGHT / width, bottom=bottom_in / height,
                        top=1 - top_in / height, wspace=GAP_W / panel_w, hspace=gap_h / PANEL_H)
    fig.suptitle(suptitle, y=1 - 0.06 / height, va="top", fontsize=11)
    if labels:
        fig.legend(handles, labels, loc="upper center", ncol=ncol, fontsize=8, frameon=False,
                   bbox_to_anchor=(0.5, 1 - title_in / height))
    fig.text(0.01, 0.06 / height, footer, fontsize=7, ha="left", va="bottom", color="0.25")


def save(fo, outdir, dpi=100):
    """Write <name>.png and <name>.pdf into outdir; record and return the paths."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    fo.paths = []
    for ext in ("png", "pdf"):
        path = outdir / f"{fo.name}.{ext}"
        fo.fig.savefig(path, dpi=dpi)
        fo.paths.append(path)
    return fo.paths


# ---------------------------------------------------------------- footer

def _unique(values):
    out = []
    for v in values:
        if v not in out and v not in (None, ""):
            out.append(v)
    return out


def _procs_text(data):
    rows = data[["nprocs", "nodes", "ppn"]].drop_duplicates().sort_values("nprocs")
    return "; ".join(f"{r.nprocs} processes ({r.nodes} node{'s' if r.nodes != 1 else ''} x {r.ppn} ppn)"
                     for r in rows.itertuples())


def oversubscription_note(metas):
    """One warning line when a launch ran oversubscribed (meta "oversubscription"), else ""."""
    worst = max((m["oversubscription"] for m in metas if isinstance(m.get("oversubscription"), dict)
                 and m["oversubscription"].get("oversubscribed")),
                key=lambda o: o.get("ranks_per_core", 0), default=None)
    if worst is None:
        return ""
    return (f"OVERSUBSCRIBED: {worst.get('ranks')} ranks on {worst.get('cores')} cores of "
            f"{worst.get('host')} ({worst.get('ranks_per_core', 0):.3g} per core): the times "
            "measure the OS scheduler as much as the algorithms")


def footer_text(data, metas):
    """Machine (in simulation the platform, and its role where the platform states one: the
    crossbar is the model-free reference), MPI library (impl+version), process count and
    placement; and a warning line when the run was oversubscribed."""
    libs = _unique(zip(data["mpi_impl"], data["mpi_version"]))
    used = [m for m in metas if (m.get("mpi_impl"), m.get("mpi_version")) in libs] or list(metas)
    machine = "; ".join(_unique(str(m.get("machine")) for m in used)) or "unknown machine"
    lib_strings = _unique(str(m.get("mpi_library", "")).strip().splitlines()[0][:70]
                          for m in used if str(m.get("mpi_library", "")).strip())
    mpi = ", ".join(f"{i} {v}" for i, v in libs)
    if lib_strings:
        mpi += " [" + "; ".join(lib_strings) + "]"
    sims = _unique(str(m.get("platform")) for m in used if m.get("simulated"))
    roles = _unique(str((m.get("simulation") or {}).get("platform_role")) for m in used
                    if m.get("simulated") and (m.get("simulation") or {}).get("platform_role"))
    line1 = (f"machine: {machine}" + (f" (simulated: {', '.join(sims)})" if sims else "")
             + (f": {'; '.join(roles)}" if roles else ""))
    line2 = (f"MPI: {mpi} | {_procs_text(data)} | placement: {', '.join(_unique(data['placement']))}"
             f" | sync: {', '.join(_unique(data['sync']))}, clock: {', '.join(_unique(data['clock']))}")
    warning = oversubscription_note(metas)
    return line1 + "\n" + line2 + ("\n" + warning if warning else "")
