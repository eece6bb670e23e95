"""Load result directories (raw-*.csv, summary-*.csv, meta-*.json; each file plain or
compressed, raw-L0.csv.gz: collrepro.compact).

Directories of an earlier contract version are migrated to the current version in memory
(migrate.py), with one note per directory on stderr.
"""

import csv
import hashlib
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .. import compact
from .. import contract as C
from .. import safeio
from . import migrate, schema
from .schema import InputError

# Points with fewer repetitions or launches than their metadata promises, over every load of
# this process (the CLI exits with EXIT_INCOMPLETE when there are any).
SHORTFALLS = []
# Directories whose metadata has no integrity record (the CLI notes each once).
UNVERIFIED = []


@dataclass
class ResultSet:
    """One or more result directories loaded together.

    raw and summary carry an extra column `source` (the directory) so that two
    directories that both have a launch 0 stay separate launches.
    """
    dirs: list
    raw: pd.DataFrame
    summary: pd.DataFrame
    metas: list = field(default_factory=list)

    @property
    def label(self):
        return ", ".join(str(d) for d in self.dirs)


def data_files(directory):
    """{'raw'|'summary'|'meta'|'phases': [(path, launch, slice)]}, each file plain or
    compressed; temporary files skipped; a file in both forms refused (InputError)."""
    try:
        return compact.result_files(directory)
    except safeio.UserError as err:
        raise InputError(str(err)) from None


def _find(directory, name):
    """The path of result file `name` in either form, or None."""
    try:
        return compact.find(directory, name)
    except safeio.UserError as err:
        raise InputError(str(err)) from None


def read_data(path, what="a result CSV"):
    """The plain bytes of a result CSV in either form (size capped; one line when damaged)."""
    try:
        return compact.read_bytes(path, schema.MAX_CSV_BYTES, what)
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


def shortfalls(directory, raw, summary, metas):
    """Lines naming the points with fewer repetitions (raw rows < the summary's n) or fewer
    launches than the metadata promise (a complete launch's slice lacks the point)."""
    out = []
    reps = raw.groupby(["launch", "point"]).size()
    for row in summary[["launch", "point", "n"]].itertuples(index=False):
        have = int(reps.get((row.launch, row.point), 0))
        if have < row.n:
            out.append(f"{directory}: launch {row.launch} point {row.point}: {have} of its {row.n} repetitions")
    present = set(zip(summary["launch"], summary["point"]))
    for meta in metas:
        points = meta.get("points")
        if meta.get("complete") is not True or not isinstance(points, dict):
            continue
        missing = [p for p in range(points.get("slice_begin", 0), points.get("slice_end", 0))
                   if (meta["launch"], p) not in present]
        if missing:
            shown = ", ".join(map(str, missing[:10])) + (", ..." if len(missing) > 10 else "")
            out.append(f"{directory}: launch {meta['launch']} is complete but lacks {len(missing)} "
                       f"point(s): {shown} (fewer launches than promised for them)")
    return out


def _concat(frames, columns, directory):
    if not frames:
        out = schema.empty_frame(columns)
        out["source"] = pd.Series(dtype=object)
        return out
    out = pd.concat(frames, ignore_index=True)
    out["source"] = str(directory)
    return out


def _check_duplicates(directory, frame, keys, what):
    dup = frame.duplicated(keys, keep=False)
    if dup.any():
        row = frame[dup].iloc[0]
        where = ", ".join(f"{k}={row[k]}" for k in keys)
        raise InputError(f"{directory}: duplicate {what} rows for {where}")


def _one_version(directory, versions):
    """The directory's contract version from {file name: versions its layout matches}; the
    files must share one (a table unchanged between versions matches both)."""
    common = set.intersection(*map(set, versions.values())) if versions else {C.VERSION}
    if not common:
        first = {}
        for name, vs in sorted(versions.items()):
            first.setdefault(max(vs), name)
        example = ", ".join(f"{name}: v{v}" for v, name in sorted(first.items()))
        raise InputError(f"{directory}: files of different contract versions ({example}); "
                         "run `analysis/analyze migrate` on it")
    return max(common)


def _read_tables(directory, files, metas, kinds):
    """{kind: one frame of the directory's files of that kind}, each file checked against the
    contract, an earlier version migrated in memory (one note on stderr); launches incomplete
    warned of; duplicate summary rows refused."""
    frames, versions = {}, {}
    for kind in kinds:
        frames[kind] = []
        for path, launch, _ in files[kind]:
            frame, versions[path.name] = schema.read_csv_checked(path, kind, launch)
            frames[kind].append(frame)
    versions.update({Path(m["_path"]).name: (schema.meta_version(m),) for m in metas})
    version = _one_version(directory, versions)
    if version < C.VERSION:
        guessed = set()
        for kind in frames:
            migrated = [migrate.to_current(frame, kind, metas, version) for frame in frames[kind]]
            frames[kind] = [frame for frame, _ in migrated]
            guessed |= {p for _, points in migrated for p in points}
        for line in migrate.notice(directory, guessed, version):
            print(line, file=sys.stderr)
    for meta in metas:
        if meta.get("complete") is False:
            print(f"warning: {meta['_path']}: launch marked incomplete (complete=false)", file=sys.stderr)
    out = {kind: _concat(frames[kind], C.TABLE_COLUMNS[kind], directory) for kind in kinds}
    if "summary" in out:
        _check_duplicates(directory, out["summary"], ["launch", "point"], "summary")
    return out


def load_summaries(directory):
    """The summaries and metadata of a directory that keeps no raw files (the timing study's
    blocks): every summary checked against the contract and, where the metadata's integrity
    record names it, against its SHA-256. -> ResultSet with an empty raw frame."""
    directory = Path(directory)
    if not directory.is_dir():
        raise InputError(f"{directory}: not a directory")
    files = data_files(directory)
    if not files["summary"]:
        raise InputError(f"{directory}: no summary-*.csv files (plain or .gz)")
    metas = [read_meta(p, launch) for p, launch, _ in files["meta"]]
    verify_integrity(directory, metas, kinds=("summary",))
    summary = _read_tables(directory, files, metas, ("summary",))["summary"]
    return ResultSet(dirs=[directory], raw=_concat([], C.RAW_COLUMNS, directory), summary=summary, metas=metas)


def load_dir(directory):
    """Load one result directory; raise InputError on any contract violation."""
    directory = Path(directory)
    if not directory.is_dir():
        raise InputError(f"{directory}: not a directory")
    files = data_files(directory)
    if not files["raw"] and not files["summary"]:
        raise InputError(f"{directory}: no raw-*.csv or summary-*.csv files (plain or .gz)")
    metas = [read_meta(p, launch) for p, launch, _ in files["meta"]]
    verify_integrity(directory, metas)
    frames = _read_tables(directory, files, metas, ("raw", "summary"))
    raw, summary = frames["raw"], frames["summary"]
    _check_duplicates(directory, raw, ["launch", "point", "rep"], "raw")
    for line in shortfalls(directory, raw, summary, metas):
        print(f"warning: {line}", file=sys.stderr)
        SHORTFALLS.append(line)
    return ResultSet(dirs=[directory], raw=raw, summary=summary, metas=metas)


def _concat_nonempty(frames):
    """Concatenate, skipping empty frames (their object dtypes would upcast ints)."""
    full = [f for f in frames if len(f)]
    return pd.concat(full, ignore_index=True) if full else frames[0]


def load(directories):
    """Load and merge several result directories into one ResultSet."""
    sets = [load_dir(d) for d in directories]
    if not sets:
        raise InputError("no result directory given")
    raw = _concat_nonempty([s.raw for s in sets])
    summary = _concat_nonempty([s.summary for s in sets])
    metas = [m for s in sets for m in s.metas]
    return ResultSet(dirs=[d for s in sets for d in s.dirs], raw=raw, summary=summary, metas=metas)
