"""Paper figure sets: seed 000 Fig 4 (and its improvement vs size), seed 001 Figs 4-6, seed 004
Figs 2-5.

Each builder takes the aggregated table (aggregate.aggregate) and the meta
dicts, and returns a list of FigureOutput; all layout goes through
plotting.panels_figure. The papers' reported values drawn beside ours come from
paper_values; every panel of one figure shows times in the same unit.
"""

import math

import pandas as pd

from collrepro.analysis.figures import paper_values as pv
from collrepro.analysis.figures import plotting as pl
from collrepro.analysis.frames.aggregate import speedup_series
from collrepro.analysis.figures.models import eq5_limit
from collrepro.analysis.loading.schema import InputError

SEED000 = {"fully-connected": ["halfduplex-fc", "root-gathering", "native"],
           "ring": ["halfduplex-ring", "ring-allgather"]}
SEED000_PAIRS = {"fully-connected": ("root-gathering", "halfduplex-fc"),
                 "ring": ("ring-allgather", "halfduplex-ring")}
SEED001 = {"allgather": ["fullduplex-allgather", "eurompi-twostep", "native", "root-gathering"],
           "allgatherv": ["fullduplex-allgatherv", "fullduplex-allgatherv-ordered", "native",
                          "root-gathering"]}
SEED001_HEADLINE_NOTE = (f"its only reported value is the abstract's 'up to {pv.SEED001_HEADLINE:g}x on "
                        f"{pv.SEED001_HEADLINE_NPROCS} compute nodes' (dotted, on "
                        f"{pv.SEED001_HEADLINE_NPROCS}-process panels only)")
SEED001_PROPOSED = {"allgather": "fullduplex-allgather", "allgatherv": "fullduplex-allgatherv"}
SEED004 = {  # file stem -> (collectives, paper figures)
    "seed004-fig2-4-neighbor-alltoall": (["neighbor-alltoall"], "Figs 2 and 4"),
    "seed004-fig3-neighbor-alltoallw": (["neighbor-alltoallw"], "Fig 3"),
    "seed004-fig5-neighbor-allgather": (["neighbor-allgather", "neighbor-alltoall"], "Fig 5"),
}
TOPOLOGY_NAMES = {"fully-connected": "fully connected", "ring": "ring", "torus": "torus"}


def _select(agg, mask, what):
    data = agg[mask]
    if data.empty:
        raise InputError(f"no data for {what} in the result set")
    return data


def _time_vs_size(data, order=None):
    """Draw callback: median time vs message size, log-log, min/max bars, in one time unit
    for the whole figure (from the largest time in `data`)."""
    unit = pl.figure_time_unit(data["median"], data["max"])

    def draw(ax, sub, _key):
        scale = pl.time_label(ax, unit)
        pl.draw_lines(ax, sub, "algorithm", scale=scale, order=order)
        pl.size_axis(ax, sub["msg_bytes"])
        pl.log_time_axis(ax)
    return draw


# ---------------------------------------------------------------- seed 000

def _measured_word(metas):
    return "simulated" if any(m.get("simulated") for m in metas) else "measured"


def _improvement_note(ax, sub, key, word):
    """Top-left note: this panel's improvement at its largest size and the paper's value."""
    topology = key["topology"]
    baseline, proposed = SEED000_PAIRS[topology]
    sp = speedup_series(sub, baseline, proposed)
    if len(sp):
        last = sp.sort_values("msg_bytes").iloc[-1]
        ours = f"{word} {baseline}/{proposed} at {pl.format_bytes(last.msg_bytes)}: {last.speedup:.2f}x"
    else:
        ours = f"{word} {baseline}/{proposed}: -"
    paper = pv.seed000_note(topology, sub["nprocs"].max(), key["p"], key["q"])
    ax.text(0.03, 0.95, ours + "\n" + paper, transform=ax.transAxes, fontsize=7, va="top")


def _seed000_paper_footer(data, metas):
    return (pl.footer_text(data, metas) + f"\npaper values: {pv.SEED000_SOURCE}; a run at another "
            f"process count is compared with the paper's {pv.SEED000_SCALED_NPROCS}-process panel "
            "with the same p:q")


def _half_duplex(agg):
    return (agg["collective"] == "allgather") & (agg["kb"] == 0).fillna(False)


def _full_duplex(agg):
    return agg["collective"].isin(SEED001) & (agg["kb"] > 0).fillna(False)


def seed000(agg, metas):
    """Fig 4: time vs size, one panel per (p/q, topology) present; and the improvement
    T(baseline)/T(proposed) vs size with the paper's 4 MB values."""
    allowed = agg.apply(lambda r: r["algorithm"] in SEED000.get(r["topology"], ()), axis=1)
    data = _select(agg, _half_duplex(agg) & allowed, "seed 000 (half-duplex allgather, kb=0)")
    context = pl.varying_context(data)
    draw_times = _time_vs_size(data)
    word = _measured_word(metas)

    def draw(ax, sub, key):
        draw_times(ax, sub, key)
        _improvement_note(ax, sub, key, word)

    def title(key, _sub):
        return (f"{key['p']}/{key['q']}, {TOPOLOGY_NAMES.get(key['topology'], key['topology'])}"
                + pl.context_suffix(key, context))
    fo = pl.panels_figure("seed000-fig4", data, ["topology", "p", "q"] + context, draw, title,
                          "Seed 000 Fig. 4: half-duplex inter-group all-to-all broadcast "
                          "(senders/receivers, topology)", _seed000_paper_footer(data, metas))
    out = [fo]
    improvement = seed000_improvement(data, metas)
    if improvement is not None:
        out.append(improvement)
    return out


def _ratio_text(p, q):
    g = math.gcd(int(p), int(q)) or 1
    return f"{int(p) // g}:{int(q) // g}"


def seed000_improvement(data, metas):
    """Improvement vs size, a panel per (topology, nprocs x ppn), a line per p/q (one colour per
    p:q ratio in the whole figure), the paper's 4 MB value as a star of the line's colour."""
    parts = [speedup_series(data[data["topology"] == topology], *pair)
             for topology, pair in SEED000_PAIRS.items()]
    sp = pd.concat(parts, ignore_index=True)
    if sp.empty:
        return None
    sp = sp.assign(series=[f"p/q = {p}/{q} ({_ratio_text(p, q)})" for p, q in zip(sp["p"], sp["q"])],
                   fraction=sp["p"] / (sp["p"] + sp["q"]))
    fraction_of = dict(zip(sp["series"], sp["fraction"]))
    fractions = sorted(set(fraction_of.values()))
    colors = {s: pl.indexed_color(fractions.index(f)) for s, f in fraction_of.items()}
    order = sorted(fraction_of, key=lambda s: (fraction_of[s], s))
    context = [c for c in pl.varying_context(sp) if c not in ("nprocs", "ppn")]
    shown = sp.rename(columns={"speedup": "median", "speedup_lo": "min", "speedup_hi": "max"})

    def draw(ax, sub, key):
        pl.draw_lines(ax, sub, "series", order=order, colors=colors)
        sizes = list(sub["msg_bytes"])
        scaled = False
        for p, q, series in sub[["p", "q", "series"]].drop_duplicates().itertuples(index=False):
            paper = pv.seed000_fig4(key["topology"], key["nprocs"], p, q)
            if paper is None:
                continue
            scaled = scaled or paper.scaled
            sizes.append(pv.SEED000_SIZE_BYTES)
            ax.plot([pv.SEED000_SIZE_BYTES], [paper.value], marker="*", markersize=11,
                    markeredgecolor="k", markeredgewidth=0.5, color=colors[series], linestyle="none",
                    zorder=5, label="_paper")
        ax.axhline(1.0, color="0.5", linewidth=0.8)
        pl.size_axis(ax, sizes)
        baseline, proposed = SEED000_PAIRS[key["topology"]]
        ax.set_ylabel(f"T({baseline}) / T({proposed})", fontsize=8)
        if scaled:
            ax.text(0.03, 0.95, f"stars: the paper's {pv.SEED000_SCALED_NPROCS}-process panel, "
                    "same p:q", transform=ax.transAxes, fontsize=7, va="top")
        ax.grid(True, alpha=0.3)

    def title(key, _sub):
        return (f"{TOPOLOGY_NAMES.get(key['topology'], key['topology'])}, {key['nprocs']} processes, "
                f"{key['ppn']} per node" + pl.context_suffix(key, context))
    star = pl.proxy_line(f"paper, Fig. 4 text, {pv.SEED000_SIZE_TEXT}", color="0.3", marker="*",
                         markersize=10, linestyle="none")
    return pl.panels_figure(
        "seed000-fig4-improvement", shown, ["topology", "nprocs", "ppn"] + context, draw, title,
        "Seed 000 Fig. 4: improvement T(baseline)/T(proposed) of the half-duplex algorithms",
        _seed000_paper_footer(data, metas), extra_legend=[star])


# ---------------------------------------------------------------- seed 001

def _seed001_data(agg):
    allowed = agg.apply(lambda r: r["algorithm"] in SEED001.get(r["collective"], ()), axis=1)
    return _select(agg, allowed & _full_duplex(agg), "seed 001 (full-duplex allgather/allgatherv)")


def _settings_figure(name, data, metas, suptitle):
    context = pl.varying_context(data)
    return pl.panels_figure(name, data, ["setting"] + context, _time_vs_size(data),
                            lambda key, _s: key["setting"] + pl.context_suffix(key, context),
                            suptitle, pl.footer_text(data, metas) + "\n" + pv.SEED001_NO_VALUES)


def improvement_table(data, baseline=None):
    """T_old/T_new per setting and size, with the Eq. 5 limit of each setting.

    T_new = fullduplex-allgather(v); T_old = `baseline`, or by default native
    when the setting has it, else root-gathering. The limit uses the group sums
    K_A = bytes_a, K_B = bytes_b of the setting's largest size.
    """
    rows = []
    for setting, sub in data.groupby("setting"):
        proposed = SEED001_PROPOSED[sub["collective"].iloc[0]]
        present = set(sub["algorithm"])
        old = baseline or ("native" if "native" in present else "root-gathering")
        sp = speedup_series(sub, old, proposed)
        if sp.empty:
            continue
        ref = sub.sort_values("msg_bytes").iloc[-1]
        limit = eq5_limit(ref["bytes_a"], ref["bytes_b"])
        rows.append(sp.assign(series=f"{setting} ({old}/{proposed})", eq5_limit=limit))
    if not rows:
        raise InputError("no setting has both a proposed and a baseline algorithm")
    return pd.concat(rows, ignore_index=True)


def _draw_improvement(order):
    def draw(ax, sub, key):
        shown = sub.rename(columns={"speedup": "median", "speedup_lo": "min", "speedup_hi": "max"})
        pl.draw_lines(ax, shown, "series", order=order)
        for series, part in sub.groupby("series"):
            limit = part["eq5_limit"].iloc[0]
            ax.axhline(limit, color=pl.color_for(series, order), linestyle="--", linewidth=1)
            ax.annotate(f"{limit:.2f}", (1.0, limit), xycoords=("axes fraction", "data"),
                        fontsize=7, ha="left", va="center", color=pl.color_for(series, order))
        if int(key["nprocs"]) == pv.SEED001_HEADLINE_NPROCS:
            ax.axhline(pv.SEED001_HEADLINE, color="0.2", linestyle=":", linewidth=1.2)
            ax.annotate(f"{pv.SEED001_HEADLINE:g}x (paper abstract)", (0.02, pv.SEED001_HEADLINE),
                        xycoords=("axes fraction", "data"), fontsize=7, ha="left", va="bottom")
        ax.axhline(1.0, color="0.5", linewidth=0.8)
        pl.size_axis(ax, sub["msg_bytes"])
        ax.set_ylabel("improvement T_old / T_new")
        ax.grid(True, alpha=0.3)
    return draw


def seed001(agg, metas, baseline=None):
    """Figs 4 and 5 (time vs size per setting) and Fig 6 (improvement, Eq. 5 limit)."""
    data = _seed001_data(agg)
    out = []
    for collective, fig, stem in (("allgather", "Fig. 4", "seed001-fig4-allgather"),
                                  ("allgatherv", "Fig. 5", "seed001-fig5-allgatherv")):
        part = data[data["collective"] == collective]
        if len(part):
            out.append(_settings_figure(stem, part, metas, f"Seed 001 {fig}: inter-group "
                                        f"{collective} run time per setting"))
    imp = improvement_table(data, baseline)
    order = sorted(imp["series"].unique())
    context = [c for c in pl.varying_context(imp) if c != "nprocs"]
    legend = [pl.proxy_line("the paper's Eq. 5 model limit (dashed)", color="0.3", linestyle="--")]
    if (imp["nprocs"] == pv.SEED001_HEADLINE_NPROCS).any():
        legend.append(pl.proxy_line(pv.SEED001_HEADLINE_TEXT, color="0.2", linestyle=":"))
    out.append(pl.panels_figure(
        "seed001-fig6-improvement", imp, ["nprocs"] + context, _draw_improvement(order),
        lambda key, _s: f"{key['nprocs']} processes" + pl.context_suffix(key, context),
        "Seed 001 Fig. 6: improvement T_old/T_new per setting", pl.footer_text(data, metas)
        + f"\npaper: Eq. 5 is the paper's model, not a measurement; {SEED001_HEADLINE_NOTE}",
        ncols=2, extra_legend=legend))
    return out


# ---------------------------------------------------------------- seed 004

def _draw_bars(data, order):
    unit = pl.figure_time_unit(data["median"], data["max"])

    def draw(ax, sub, _key):
        scale = pl.time_label(ax, unit)
        pl.draw_bars(ax, sub, "series", scale=scale, order=order)
        ax.set_xlabel("block size")
    return draw


def _seed004_panel_data(iso, collectives):
    """Rows of one seed 004 figure: the main collective, plus its companions.

    A neighborhood can be measured in several settings of one collective (the paper
    config has Moore d=3 r=3 in Fig. 2 and in Fig. 4): each setting then gets its own
    panel. Companion collectives (the alltoall bars beside Fig. 5's allgather) join the
    main panels of the same neighborhood and torus, one row per algorithm and size (the
    lowest point id when several settings measured it).
    """
    main = iso[iso["collective"] == collectives[0]]
    keys = ["neighborhood", "dims"] + [c for c in pl.CONTEXT_COLUMNS if c in iso]
    comp = iso[iso["collective"].isin(collectives[1:])
               & iso["neighborhood"].isin(set(main["neighborhood"]))]
    if len(comp):
        comp = (comp.sort_values("point")
                .drop_duplicates(keys + ["collective", "algorithm", "msg_bytes"], keep="first")
                .drop(columns="setting")
                .merge(main[keys + ["setting"]].drop_duplicates(), on=keys))
    return pd.concat([main, comp], ignore_index=True) if len(comp) else main.copy()


def seed004(agg, metas):
    """Figs 2-5: grouped bars per block size and algorithm, a panel per neighborhood."""
    iso = _select(agg, agg["collective"].str.startswith("neighbor-"), "seed 004 (neighbor collectives)")
    out = []
    for stem, (collectives, figs) in SEED004.items():
        if iso[iso["collective"] == collectives[0]].empty:
            continue
        data = _seed004_panel_data(iso, collectives)
        mixed = data["collective"].nunique() > 1
        data["series"] = [f"{a} [{c.replace('neighbor-', '')}]" if mixed else a
                          for a, c in zip(data["algorithm"], data["collective"])]
        order = sorted(data["series"].unique()) if mixed else None
        context = pl.varying_context(data)
        by_setting = (data.groupby(["neighborhood", "dims"] + context)["setting"].nunique() > 1).any()
        panel_cols = ["neighborhood", "dims"] + (["setting"] if by_setting else []) + context

        def title(key, _s, by_setting=by_setting, context=context):
            head = f"{key['neighborhood']} on {key['dims']}"
            if by_setting:
                head += f" [{key['setting']}]"
            return head + pl.context_suffix(key, context)
        out.append(pl.panels_figure(
            stem, data, panel_cols, _draw_bars(data, order), title,
            f"Seed 004 {figs}: {' vs '.join(collectives)}, median of per-launch medians "
            "(bars: min/max)", pl.footer_text(data, metas)))
    return out


BUILDERS = {"seed000": seed000, "seed001": seed001, "seed004": seed004}


def build_and_save(which, agg, metas, outdir, **options):
    figs = BUILDERS[which](agg, metas, **options)
    for fo in figs:
        pl.save(fo, outdir)
    return figs


def available_sets(agg):
    """Figure sets for which the aggregated table has data."""
    found = []
    for name, test in (("seed000", lambda a: _half_duplex(a).any()),
                       ("seed001", lambda a: _full_duplex(a).any()),
                       ("seed004", lambda a: a["collective"].str.startswith("neighbor-").any())):
        if len(agg) and test(agg):
            found.append(name)
    return found
