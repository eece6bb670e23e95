"""The dashboard's interactive figures, built with plotly (Debian's python3-plotly) and stored
as JSON for plotly.js: time against size per algorithm and installation, and the trend of a
point's time across the installations of one library."""

import plotly.graph_objects as go
import plotly.io as pio
from matplotlib.colors import to_hex

from .plotting import color_for
from .units import format_bytes

DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star")
CHANGE_COLOUR = "#d62728"


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
                      yaxis=dict(title="time relative to the first installation"))
    return fig
