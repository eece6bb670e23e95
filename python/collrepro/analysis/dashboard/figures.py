"""The dashboard's interactive figures, built with plotly (Debian's python3-plotly) and stored
as JSON for plotly.js: time against size per algorithm and installation, the trend of a
point's time across the installations of one library (ratio to the first, on a log axis), and
a point's history: its per-launch medians on every installation of a library, one point at a
time from a menu."""

import plotly.graph_objects as go
import plotly.io as pio
from matplotlib.colors import to_hex

from collrepro.analysis.figures.plotting import color_for
from collrepro.analysis.frames.units import format_bytes

DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star")
CHANGE_COLOUR = "#d62728"
# The verdict labels by severity (the point a history shows first) and their colours.
SEVERITY = ("regression", "changed-not-comparable", "improvement", "inconclusive", "same")
VERDICT_COLOUR = {"regression": "#d62728", "improvement": "#2ca02c", "changed-not-comparable": "#c89000",
                  "inconclusive": "#888888", "same": "#4a5a90"}


def colour(algorithm):
    """The algorithm's colour of the static figures, as CSS hex for plotly.js."""
    return to_hex(color_for(algorithm))


def to_json(fig):
    """The figure as the JSON plotly.js draws (validated by plotly)."""
    return pio.to_json(fig, validate=True, remove_uids=True)


def _size_axis(sizes):
    ticks = sorted({float(s) for s in sizes if s > 0})
    return dict(type="log", tickvals=ticks, ticktext=[format_bytes(s) for s in ticks],
                title="message size per process")


def _layout(title, height=420):
    return dict(title=dict(text=title, font=dict(size=14)), height=height, template="plotly_white",
                margin=dict(l=60, r=20, t=50, b=60), legend=dict(font=dict(size=10)),
                hovermode="closest")


def time_vs_size(agg, title):
    """One trace per (algorithm, installation): median of medians against size, with error bars
    from the min and max of the per-launch medians. agg: aggregate rows with `installation`."""
    fig = go.Figure()
    installations = list(dict.fromkeys(agg["installation"]))
    for (algorithm, installation), sub in sorted(agg.groupby(["algorithm", "installation"]),
                                                 key=lambda kv: (kv[0][0], installations.index(kv[0][1]))):
        sub = sub.sort_values("msg_bytes")
        k = installations.index(installation)
        text = [f"{algorithm} @ {installation}<br>{format_bytes(b)}: {m:.4g} s "
                f"[{lo:.4g}, {hi:.4g}]<br>{n} launches"
                for b, m, lo, hi, n in zip(sub["msg_bytes"], sub["median"], sub["min"], sub["max"],
                                           sub["n_launches"])]
        fig.add_trace(go.Scatter(
            x=sub["msg_bytes"].astype(float).tolist(), y=sub["median"].tolist(),
            name=f"{algorithm} @ {installation}", mode="lines+markers", text=text,
            hoverinfo="text", line=dict(color=colour(algorithm), dash=DASHES[k % len(DASHES)]),
            marker=dict(symbol=SYMBOLS[k % len(SYMBOLS)], size=7),
            error_y=dict(type="data", symmetric=False, array=(sub["max"] - sub["median"]).tolist(),
                         arrayminus=(sub["median"] - sub["min"]).tolist(), thickness=1, width=3)))
    fig.update_layout(**_layout(title), xaxis=_size_axis(agg["msg_bytes"]),
                      yaxis=dict(type="log", title="time [s] (median of launch medians; bars: min-max)"))
    return fig


def trend_figure(series, marks, installations, title):
    """Median relative to the library's first installation, per (algorithm, size); red crosses
    where a significant change starts. series: trend.series rows of one library and setting."""
    fig = go.Figure()
    for (algorithm, size), sub in sorted(series.groupby(["algorithm", "msg_bytes"])):
        sub = sub.sort_values("position")
        fig.add_trace(go.Scatter(
            x=sub["installation"].tolist(), y=sub["ratio"].tolist(), mode="lines+markers",
            name=f"{algorithm}, {format_bytes(size)}", line=dict(color=colour(algorithm)),
            text=[f"{algorithm} {format_bytes(size)} @ {i}: x{r:.3g} ({n} launches)"
                  for i, r, n in zip(sub["installation"], sub["ratio"], sub["n_launches"])],
            hoverinfo="text"))
    if len(marks):
        fig.add_trace(go.Scatter(
            x=marks["installation"].tolist(), y=marks["ratio"].tolist(), mode="markers",
            name="significant change", marker=dict(symbol="x", size=13, color=CHANGE_COLOUR),
            text=[f"change: {a} {format_bytes(s)} at {i}" for a, s, i in
                  zip(marks["algorithm"], marks["msg_bytes"], marks["installation"])],
            hoverinfo="text"))
    fig.add_hline(y=1.0, line=dict(color="#888", width=1))
    fig.update_layout(**_layout(title, 380),
                      xaxis=dict(type="category", categoryorder="array", categoryarray=installations,
                                 title="installation (library order)"),
                      yaxis=dict(type="log", title="time relative to the first installation (log)"))
    return fig


def _jitter(launches):
    """Small x offsets that spread the launches of one installation (launch order)."""
    order = {launch: n for n, launch in enumerate(sorted(set(launches)))}
    span = max(len(order) - 1, 1)
    return [0.24 * (order[launch] / span - 0.5) if len(order) > 1 else 0.0 for launch in launches]


def history_figure(per, points, installations, title):
    """A point's history across the installations of one library: its per-launch medians
    (markers, spread by launch) and their median per installation (line), one point at a time,
    chosen from a menu; a last entry shows every point's medians at once.

    per: per-launch medians of one library and setting, with columns point_key, installation,
    launch, median; points: [(point_key, name, label, hover)] in menu order (label: the
    point's verdict in this run, "" when none); installations: the library's, in order."""
    fig = go.Figure()
    where = {name: n for n, name in enumerate(installations)}
    buttons, first = [], None
    for k, (key, name, label, why) in enumerate(points):
        sub = per[per["point_key"] == key]
        sub = sub[sub["installation"].isin(where)].sort_values(["installation", "launch"])
        x = [where[i] + j for i, j in zip(sub["installation"], _jitter(sub["launch"]))] if len(sub) else []
        colour = VERDICT_COLOUR.get(label, "#444444")
        fig.add_trace(go.Scatter(
            x=x, y=sub["median"].tolist(), mode="markers", name=f"{name}: launch medians",
            legendgroup=key, visible=False, marker=dict(size=7, color=colour, opacity=0.7),
            text=[f"{name} @ {i}, launch {launch}: {m:.4g} s" for i, launch, m in
                  zip(sub["installation"], sub["launch"], sub["median"])], hoverinfo="text"))
        med = sub.groupby("installation")["median"].median()
        shown = [i for i in installations if i in med.index]
        fig.add_trace(go.Scatter(
            x=[where[i] for i in shown], y=[float(med[i]) for i in shown], mode="lines+markers",
            name=f"{name}: median", legendgroup=key, visible=False,
            line=dict(color=colour, width=1.5), marker=dict(symbol="line-ew-open", size=16),
            text=[f"{name} @ {i}: median {med[i]:.4g} s" for i in shown], hoverinfo="text"))
        heading = f"{title}: {name}" + (f" ({label})" if label else "")
        buttons.append(dict(label=f"{name}" + (f" · {label}" if label else ""), method="update",
                            args=[{"visible": [n // 2 == k for n in range(2 * len(points))]},
                                  {"title.text": heading, "annotations[0].text": why}]))
        if first is None or SEVERITY.index(label or "same") < SEVERITY.index(points[first][2] or "same"):
            first = k
    if not points:
        return fig
    buttons.append(dict(label="every point (medians)", method="update",
                        args=[{"visible": [n % 2 == 1 for n in range(2 * len(points))]},
                              {"title.text": f"{title}: every point", "annotations[0].text": ""}]))
    for n, trace in enumerate(fig.data):
        trace.visible = n // 2 == first
    key, name, label, why = points[first]
    fig.update_layout(**_layout(f"{title}: {name}" + (f" ({label})" if label else ""), 420))
    fig.update_layout(
        showlegend=False,
        title=dict(y=0.97, yref="container", yanchor="top"),
        updatemenus=[dict(buttons=buttons, active=first, direction="down", x=0.0, xanchor="left",
                          y=1.02, yanchor="bottom", showactive=True, font=dict(size=10))],
        annotations=[dict(text=why, xref="paper", yref="paper", x=0, y=-0.22, showarrow=False,
                          xanchor="left", font=dict(size=10, color="#555"))],
        margin=dict(l=60, r=20, t=95, b=90),
        xaxis=dict(tickvals=list(range(len(installations))), ticktext=list(installations),
                   range=[-0.5, len(installations) - 0.5], title="installation (library order)",
                   zeroline=False),
        yaxis=dict(type="log", title="time [s]: per-launch medians; line: their median"))
    return fig


def ratio_figure(rows, title, threshold=None):
    """The verdicts of one library as ratios after / before with their intervals, on a log axis,
    one marker colour per label, the threshold band shaded. rows: dicts with name, verdict,
    ratio, ci_low, ci_high, hover (rows without a ratio are left out)."""
    rows = [r for r in rows if r.get("ratio") == r.get("ratio") and r.get("ratio") not in (None, "")]
    fig = go.Figure()
    for label in SEVERITY:
        mine = [r for r in rows if r["verdict"] == label]
        if not mine:
            continue
        ratio = [float(r["ratio"]) for r in mine]
        high = [float(r["ci_high"]) - x if r["ci_high"] == r["ci_high"] else 0.0 for r, x in zip(mine, ratio)]
        low = [x - float(r["ci_low"]) if r["ci_low"] == r["ci_low"] else 0.0 for r, x in zip(mine, ratio)]
        fig.add_trace(go.Scatter(
            x=ratio, y=[r["name"] for r in mine], mode="markers", name=label,
            marker=dict(color=VERDICT_COLOUR[label], size=8),
            error_x=dict(type="data", symmetric=False, array=high, arrayminus=low, thickness=1.2, width=3),
            text=[f"{r['name']}: {label}<br>{r['hover']}" for r in mine], hoverinfo="text"))
    if threshold:
        fig.add_vrect(x0=1.0 / (1.0 + threshold), x1=1.0 + threshold, fillcolor="#4a5a90", opacity=0.08,
                      line_width=0)
    fig.add_vline(x=1.0, line=dict(color="#888", width=1))
    fig.update_layout(**_layout(title, 140 + 16 * len(rows)))
    fig.update_layout(xaxis=dict(type="log", title="ratio after / before (log); bars: the interval"),
                      yaxis=dict(type="category", categoryorder="array",
                                 categoryarray=[r["name"] for r in reversed(rows)], tickfont=dict(size=9),
                                 automargin=True))
    return fig
