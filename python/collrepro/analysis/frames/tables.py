"""Small Markdown/HTML table and number formatting helpers for the reports."""

import html
import math

from collrepro.analysis.frames.units import format_bytes, time_unit


def fmt_time(seconds):
    if seconds is None or not math.isfinite(seconds):
        return "-"
    name, scale = time_unit(abs(seconds))
    return f"{seconds / scale:.3g} {name}"


def fmt_float(value, digits=3):
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return f"{value:.{digits}g}"


FORMATS = {"msg_bytes": format_bytes, "median": fmt_time, "min": fmt_time, "max": fmt_time,
           "median_a": fmt_time, "median_b": fmt_time, "baseline_median": fmt_time,
           "proposed_median": fmt_time, "ratio": fmt_float, "speedup": fmt_float,
           "p_value": fmt_float, "eq5_limit": fmt_float, "efficiency": fmt_float,
           "median_native": fmt_time, "median_mockup": fmt_time, "ci_low": fmt_float,
           "ci_high": fmt_float}


def format_cell(column, value):
    fn = FORMATS.get(column)
    if fn is not None:
        try:
            return fn(value)
        except (TypeError, ValueError):
            pass
    return str(value)


def markdown_table(frame, columns=None):
    columns = list(columns or frame.columns)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for _, row in frame.iterrows():
        cells = [format_cell(c, row[c]).replace("|", "\\|") for c in columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def html_table(frame, columns=None):
    columns = list(columns or frame.columns)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(format_cell(c, row[c]))}</td>" for c in columns)
                   + "</tr>\n" for _, row in frame.iterrows())
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody>\n</table>"
