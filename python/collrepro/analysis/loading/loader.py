"""Load result directories (raw-*.csv, summary-*.csv, meta-*.json; each file plain or
compressed, raw-L0.csv.gz: collrepro.resultfiles).

Directories of an earlier contract version are migrated to the current version in memory
(migrate.py), with one note per directory on stderr.
"""

import sys
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from collrepro import contract as C
from collrepro.analysis.loading import migrate
from collrepro.analysis.loading import schema
from collrepro.analysis.loading.integrity import (UNVERIFIED, _points_of, data_files, file_integrity, read_data,  # noqa: F401
                        read_meta, verify_integrity)
from collrepro.analysis.loading.schema import InputError

# Points with fewer repetitions or launches than their metadata promises, over every load of
# this process (the CLI exits with EXIT_INCOMPLETE when there are any).
SHORTFALLS = []


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


def _read_tables(directory, files, metas, kinds, notes=None):
    """{kind: one frame of the directory's files of that kind}, each file checked against the
    contract, an earlier version migrated in memory (one note on stderr); launches incomplete
    warned of; duplicate summary rows refused. notes: a list that takes the migration notes
    instead of stderr."""
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
            if notes is None:
                print(line, file=sys.stderr)
            else:
                notes.append(line)
    for meta in metas:
        if meta.get("complete") is False:
            print(f"warning: {meta['_path']}: launch marked incomplete (complete=false)", file=sys.stderr)
    out = {kind: _concat(frames[kind], C.TABLE_COLUMNS[kind], directory) for kind in kinds}
    if "summary" in out:
        _check_duplicates(directory, out["summary"], ["launch", "point"], "summary")
    return out


def load_summaries(directory, notes=None):
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
    summary = _read_tables(directory, files, metas, ("summary",), notes)["summary"]
    return ResultSet(dirs=[directory], raw=_concat([], C.RAW_COLUMNS, directory), summary=summary, metas=metas)


def load_dir(directory):
    """Load one result directory; raise InputError on any contract violation."""
    directory = Path(directory)
    if not directory.is_dir():
        raise InputError(f"{directory}: not a directory")
    files = data_files(directory)
    if not files["raw"] and not files["summary"]:
        raise InputError(f"{directory}: no raw-*.csv or summary-*.csv files (plain or .gz)")
    if not files["raw"]:  # kept without its repetitions (e.g. a committed calibration's releases)
        print(f"note: {directory}: no raw-*.csv files: its per-launch statistics are its summaries'",
              file=sys.stderr)
        return load_summaries(directory)
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
