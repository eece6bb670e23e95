"""HTML of the dashboard: the page frame, tables, plot placeholders and the two assets (style
sheet and the script that draws every plot with plotly.js). Pages work from file:// with no
server: plotly.js sits beside them and each plot's data is embedded in its page."""

import html
import json

from collrepro.analysis.verdicts import verdicts as V
from collrepro.analysis.frames.tables import fmt_float, format_cell

STYLE = """
body { font-family: sans-serif; margin: 0 auto 3em; padding: 0 1.5em; color: #222; max-width: 1300px; }
header { border-bottom: 2px solid #444; margin-bottom: 1em; }
header a { margin-right: 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
tr.bad td { background: #fde2e2; } tr.good td { background: #e3f4e3; } tr.na td { color: #888; }
.warning { background: #fff3cd; border: 1px solid #e0b000; padding: 0.6em 1em; margin: 1em 0; }
.warning::before { content: "\\26A0  "; font-weight: bold; }
.errors { background: #fde2e2; border: 1px solid #d62728; padding: 0.6em 1em; }
.errors:empty { display: none; }
.plot { min-height: 380px; border: 1px solid #eee; margin: 0.5em 0 1.5em; }
.note { color: #555; font-size: 0.9em; }
code, .mono { font-family: monospace; font-size: 0.9em; word-break: break-all; }
details summary { cursor: pointer; }
.badge { display: inline-block; padding: 0 6px; border: 1px solid; border-radius: 8px; font-size: 0.85em;
         white-space: nowrap; cursor: help; margin: 1px 2px; }
.v-regression { background: #fde2e2; border-color: #d62728; color: #8b1a1a; }
.v-improvement { background: #e3f4e3; border-color: #2ca02c; color: #1d6b1d; }
.v-changed-not-comparable { background: #fff3cd; border-color: #e0b000; color: #6b5000; }
.v-same { background: #eef0f8; border-color: #8890b0; color: #3a4060; }
.v-inconclusive { background: #f4f4f4; border-color: #999; border-style: dashed; color: #555; }
"""

# Draws every <div class="plot"> from the JSON in the <script> element named by its data-figure
# attribute. Script errors are listed in #script-errors and counted in body[data-script-errors],
# so that a reader (and the browser test) sees when a plot failed to draw.
SCRIPT = """
(function () {
  var errors = 0;
  function report(text) {
    errors += 1;
    document.body.setAttribute("data-script-errors", String(errors));
    var box = document.getElementById("script-errors");
    if (box) { var p = document.createElement("div"); p.textContent = "Script error: " + text; box.appendChild(p); }
  }
  window.addEventListener("error", function (e) { report(e.message + " (" + (e.filename || "") + ":" + (e.lineno || "") + ")"); });
  window.addEventListener("unhandledrejection", function (e) { report(String(e.reason)); });
  function draw() {
    document.body.setAttribute("data-script-errors", String(errors));
    var plots = document.querySelectorAll("div.plot");
    if (plots.length && typeof Plotly === "undefined") { report("plotly.min.js did not load: keep it beside the pages"); return; }
    var pending = plots.length;
    function done() { pending -= 1; if (pending <= 0) document.body.setAttribute("data-plots-drawn", String(plots.length)); }
    if (!pending) done();
    plots.forEach(function (div) {
      try {
        var fig = JSON.parse(document.getElementById(div.getAttribute("data-figure")).textContent);
        Plotly.newPlot(div, fig.data, fig.layout, {responsive: true, displaylogo: false})
          .then(function () { div.setAttribute("data-drawn", "1"); done(); },
                function (err) { report(String(err)); done(); });
      } catch (err) { report(div.id + ": " + err); done(); }
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", draw); else draw();
})();
"""


def esc(text):
    return html.escape(str(text))


def page(title, body, nav=()):
    """A complete page. nav: (label, href) links of the header."""
    links = "".join(f'<a href="{esc(href)}">{esc(label)}</a>' for label, href in nav)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>
<link rel="stylesheet" href="style.css">
<script src="plotly.min.js"></script></head>
<body data-script-errors="0">
<header><h1>{esc(title)}</h1><nav>{links}</nav></header>
<div id="script-errors" class="errors"></div>
{body}
<script src="dashboard.js"></script>
</body></html>
"""


def plot(fig_id, fig_json):
    """A plot placeholder and its figure JSON ('</' escaped so it cannot end the script)."""
    data = fig_json.replace("</", "<\\/")
    return (f'<div class="plot" id="{fig_id}" data-figure="{fig_id}-data"></div>\n'
            f'<script type="application/json" id="{fig_id}-data">{data}</script>')


def warning(text):
    return f'<div class="warning">{esc(text)}</div>' if text else ""


def _percent(value):
    value = _number(value)
    return "-" if value is None else f"{value:.1%}"


# The verdict columns the report tables leave unformatted, as the dashboard shows them.
CELL_FORMATS = {"ci_level": _percent, "threshold": _percent, "mde": _percent, "noise_floor": _percent,
                "max_regression": _percent,
                "q_value": lambda v: fmt_float(_number(v), 2), "perm_p": lambda v: fmt_float(_number(v), 2)}


def cell(column, value):
    """A table cell's text: the dashboard's own format of the verdict columns, else the reports'."""
    return CELL_FORMATS[column](value) if column in CELL_FORMATS else format_cell(column, value)


def table(frame, columns, row_class=None, raw_html=()):
    """An HTML table of `columns` (formatted as in the reports); row_class(row) -> CSS class;
    columns in raw_html hold ready HTML (links)."""
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    rows = []
    for _, row in frame.iterrows():
        cls = row_class(row) if row_class else ""
        cells = "".join(f"<td>{row[c] if c in raw_html else esc(cell(c, row[c]))}</td>" for c in columns)
        rows.append(f'<tr class="{cls}">{cells}</tr>' if cls else f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(rows) + "\n</tbody></table>"


def details(summary, body):
    return f"<details><summary>{esc(summary)}</summary>{body}</details>"


def json_block(obj):
    return f'<pre class="mono">{esc(json.dumps(obj, indent=1, sort_keys=True, default=str))}</pre>'


# ---------------------------------------------------------------- verdict badges

def _number(value):
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return None if value != value else value


def hover(row):
    """A verdict row's hover text: its reason, its comparability when the sides are not
    comparable, and its ratio with the interval and threshold (row: a mapping with
    verdicts.ROW_COLUMNS, missing ones tolerated)."""
    reason = str(row.get("reason") or "").strip()
    comparability = str(row.get("comparability") or "").strip()
    parts = [reason] if reason else []
    if comparability:
        parts.append(f"not comparable: {comparability}")
    ratio, low, high = (_number(row.get(c)) for c in ("ratio", "ci_low", "ci_high"))
    if ratio is not None:
        text = f"ratio x{ratio:.3g}"
        if low is not None and high is not None:
            level = _number(row.get("ci_level"))
            text += f" [{low:.3g}, {high:.3g}]" + (f" ({level:.1%} interval)" if level else "")
        threshold = _number(row.get("threshold"))
        if threshold is not None:
            text += f", threshold ±{threshold:.1%}"
        q = _number(row.get("q_value"))
        if q is not None:
            text += f", q={q:.2g}"
        parts.append(text)
    return "; ".join(parts) or str(row.get("verdict", ""))


def badge(label, title, text=None):
    """A verdict badge: the label (one of verdicts.LABELS) in its colour, `title` on hover."""
    cls = label if label in V.LABELS else "inconclusive"
    return (f'<span class="badge v-{cls}" data-verdict="{esc(label)}" title="{esc(title)}">'
            f"{esc(label if text is None else text)}</span>")


def verdict_badge(row):
    return badge(str(row.get("verdict", "")), hover(row))


def badge_summary(rows):
    """One badge per verdict label present among `rows` (dicts with ROW_COLUMNS): the count, and
    on hover the most frequent reasons (comparability for the changes not comparable)."""
    out = []
    for label in V.LABELS:
        mine = [r for r in rows if r.get("verdict") == label]
        if not mine:
            continue
        why = {}
        for r in mine:
            key = str(r.get("comparability") or "").strip() if label == V.NOT_COMPARABLE else ""
            key = key or str(r.get("reason") or "").strip() or "-"
            why[key] = why.get(key, 0) + 1
        top = sorted(why.items(), key=lambda kv: -kv[1])
        title = f"{len(mine)} point(s) {label}; " + "; ".join(f"{n}x {k}" for k, n in top[:4])
        if len(top) > 4:
            title += f"; {len(top) - 4} other reason(s)"
        out.append(badge(label, title, f"{label}: {len(mine)}"))
    return " ".join(out) or "-"
