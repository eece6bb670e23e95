"""The files of one result directory and their integrity records: which result files it holds
(plain or .gz), reading them bounded, the metadata, and the check of every launch's files
against the row counts, SHA-256 sums and point fingerprints collbench recorded. The loader and
the on-disk migration both build on it (neither imports the other for it).
"""

import csv
import hashlib
from pathlib import Path

from collrepro import resultfiles
from collrepro import contract as C
from collrepro import safeio
from collrepro.analysis.loading import schema
from collrepro.analysis.loading.schema import InputError

# Directories whose metadata has no integrity record (the CLI notes each once).
UNVERIFIED = []


def data_files(directory):
    """{'raw'|'summary'|'meta'|'phases': [(path, launch, slice)]}, each file plain or
    compressed; temporary files skipped; a file in both forms refused (InputError)."""
    try:
        return resultfiles.result_files(directory)
    except safeio.UserError as err:
        raise InputError(str(err)) from None


def _find(directory, name):
    """The path of result file `name` in either form, or None."""
    try:
        return resultfiles.find(directory, name)
    except safeio.UserError as err:
        raise InputError(str(err)) from None


def read_data(path, what="a result CSV"):
    """The plain bytes of a result CSV in either form (size capped; one line when damaged)."""
    try:
        return resultfiles.read_bytes(path, schema.MAX_CSV_BYTES, what)
    except safeio.UserError as err:
        raise InputError(str(err)) from None


def read_meta(path, launch):
    meta = schema.check_meta(path, schema.read_meta_json(path))
    schema.check_meta_launch(path, meta, launch)
    meta["_path"] = str(path)
    meta["_dir"] = str(path.parent)
    return meta


# ---------------------------------------------------------------- integrity

_POINT_FIELD = 2  # `point` is the third column of both tables (no quoted field before it)


def _point_field(line):
    parts = line.split(b",", _POINT_FIELD + 1)
    return parts[_POINT_FIELD] if len(parts) > _POINT_FIELD else b""


def _points_of(raw_lines, summary_lines, version=C.VERSION):
    """{point: fingerprint} of the complete points of a launch's lines (headers first), as
    collbench computes it: SHA-256 of the summary line and its raw lines, first 16 hex digits."""
    columns = C.TABLE_COLUMNS_OF[version]["summary"]
    n_field = columns.index("n")
    raw_by_point = {}
    for line in raw_lines[1:]:
        raw_by_point.setdefault(_point_field(line), []).append(line)
    out = {}
    for line in summary_lines[1:]:
        fields = next(csv.reader([line.decode("utf-8", "replace")]))
        point = _point_field(line)
        rows = raw_by_point.get(point, [])
        if len(fields) == len(columns) and point.isdigit() and str(len(rows)) == fields[n_field]:
            out.setdefault(point.decode(), hashlib.sha256(b"".join(x + b"\n" for x in [line] + rows)).hexdigest()[:16])
    return out


def file_integrity(directory, launch, slc=None, version=C.VERSION):
    """The integrity record collbench writes for a launch's files (of contract `version`, 2 or
    later): rows and SHA-256 per file, and the fingerprint of every complete point."""
    files, lines = {}, {}
    for kind in ("raw", "summary"):
        name = C.file_name(kind, launch, slc)
        path = _find(directory, name)
        if path is None:
            raise InputError(f"{Path(directory) / name}: missing (neither form is there)")
        data = read_data(path, f"a {kind} CSV")
        lines[kind] = data.split(b"\n")[:-1]
        files[name] = {"rows": max(len(lines[kind]) - 1, 0), "sha256": hashlib.sha256(data).hexdigest()}
    return {"files": files, "points": _points_of(lines["raw"], lines["summary"], version)}


def verify_integrity(directory, metas, kinds=None):
    """Check every launch's files against its metadata's "integrity" (row counts, SHA-256,
    point fingerprints); raise InputError naming the file and the damaged points. Metadata
    without it (written before collbench recorded it) is not an error: the directory goes to
    UNVERIFIED. kinds: check only the files of these kinds (None: every file the record names)."""
    unverified = False
    for meta in metas:
        record = meta.get("integrity")
        if not isinstance(record, dict) or not isinstance(record.get("files"), dict):
            unverified = unverified or schema.meta_version(meta) >= 2
            continue
        lines, problems = {}, []
        for name, want in record["files"].items():
            if kinds is not None and (C.parse_file_name(str(name)) or ("",))[0] not in kinds:
                continue
            if not isinstance(want, dict) or Path(name).name != name:
                problems.append(f"the record names {safeio.excerpt(name)!r}, not a file of the directory")
                continue
            path = _find(directory, name)
            if path is None:
                problems.append(f"{name} is missing")
                continue
            data = read_data(path)
            lines[name] = data.split(b"\n")[:-1]
            rows = max(len(lines[name]) - 1, 0)
            if rows != want.get("rows"):
                problems.append(f"{name} has {rows} data rows, the metadata says {want.get('rows')}")
            elif hashlib.sha256(data).hexdigest() != want.get("sha256"):
                problems.append(f"{name}: its SHA-256 differs from the metadata's")
        if not problems:
            continue
        raw, summary = (lines.get(C.file_name(k, meta["launch"], meta.get("slice"))) for k in ("raw", "summary"))
        found = _points_of(raw or [], summary or [], schema.meta_version(meta))
        points = record.get("points") if isinstance(record.get("points"), dict) else {}
        damaged = sorted((str(p) for p, h in points.items() if found.get(p) != h),
                         key=lambda p: (not p.isdigit(), int(p) if p.isdigit() else 0, p))
        shown = ", ".join(damaged[:20]) + (f", ... ({len(damaged)} in all)" if len(damaged) > 20 else "")
        raise InputError(f"{directory}: {'; '.join(problems)} (points damaged or missing: "
                         f"{shown or 'none'}); the files no longer match "
                         f"{Path(meta['_path']).name}: re-run the launch (collbench re-measures the damaged "
                         "points) or remove its files")
    if unverified and directory not in UNVERIFIED:
        UNVERIFIED.append(directory)
