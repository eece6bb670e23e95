"""What the verdicts and the appendix share: where the archives and the regenerated sets are, how
long a set took here, how a claim reads, and the verdict table from the verdicts on disk."""

import time
from pathlib import Path

from collrepro import paths, resultfiles, safeio

REPO = Path(paths.REPO)
ARCHIVE = REPO / "results" / "sim"
OUT = REPO / "results" / "reproduce"
MODEL = "cori-memory"
NODE16 = REPO / "results" / "node16"
VALIDATION = REPO / "results" / "sim" / "validation" / "summary.csv"


def archive_dir(name):
    return ARCHIVE / f"{name}-{MODEL}"


def regenerated_dir(out, name):
    return Path(out) / "sim" / f"{name}-{MODEL}"


def set_minutes(directory):
    """(wall minutes, summed minutes of its simulations) from a set's metadata (start and end of
    each launch or slice); None when it holds none."""
    spans = []
    for m in metas(directory):
        if m.get("start_utc") and m.get("end_utc"):
            spans.append((_utc(m["start_utc"]), _utc(m["end_utc"])))
    if not spans:
        return None
    wall = max(e for _, e in spans) - min(s for s, _ in spans)
    return wall / 60, sum(e - s for s, e in spans) / 60


def metas(directory):
    """The launch metadata of a result directory (plain or compressed, read bounded and checked,
    as every reader of results does)."""
    from collrepro.sim.platforms.platform import META_LIMIT
    d = Path(directory)
    if not d.is_dir():
        return []
    return [safeio.parse_json(resultfiles.read_text(f, META_LIMIT, "a launch's metadata"), f)
            for f, _, _ in resultfiles.result_files(d, ["meta"])["meta"]]


def _utc(text):
    import calendar
    return calendar.timegm(time.strptime(str(text)[:19], "%Y-%m-%dT%H:%M:%S"))


def claim_text(c):
    proposed = " or ".join(c["proposed"])
    from collrepro.analysis.frames.units import format_bytes
    where = ", ".join(f"{k}={format_bytes(v) if k == 'bytes' else v}" for k, v in (c.get("at") or {}).items())
    if c["kind"] == "slower":
        return f"{proposed} slower than {c['baseline']} at {where}"
    what = "up to" if c["kind"] == "max-speedup" else "at " + where + ":"
    return f"{c['baseline']} / {proposed} {what} x{c['value']:g}"


def table_lines(figures, out):
    """Per figure: its archive verdict, its claims' verdicts, its model's validity, from the
    verdict.json files `reproduce` wrote (a figure never judged says so)."""
    lines = ["| figure | against the archive | against the paper | model validity |", "|---|---|---|---|"]
    for fid, fig in figures.items():
        path = Path(out) / fid / "verdict.json"
        if not path.is_file():
            lines.append(f"| {fig['paper']} {fig['figure']} (`{fid}`) | not judged yet | - | - |")
            continue
        doc = safeio.load_json_file(path, safeio.MIB, "a figure's verdict")
        archive = "; ".join(f"{r['what'][len('archive '):]}: {r['verdict']}" for r in doc["rows"]
                            if r["what"].startswith("archive"))
        claims = "; ".join(f"{r['what'][6:]} {r['verdict']} ({_short(r)})" for r in doc["rows"]
                           if r["what"].startswith("claim")) or "no claim in numbers"
        model = "; ".join(f"{v['family']} / {v['library']}: {v['median_abs_error_pct']:.1f} %, ranking "
                          f"{v['ranking_preserved_pct']:.1f} % ({v['goal']})" for v in doc["model_validity"])
        lines.append(f"| {fig['paper']} {fig['figure']} (`{fid}`) | {archive} | {claims} | {model or '-'} |")
    return lines


def _short(row):
    where = row.get("on", "").split(" (")[0]
    return f"{where}: x{row['measured']:.2f}" if row.get("measured") is not None else where


