"""Load result directories (raw-*.csv, summary-*.csv, meta-*.json).

Directories in contract version 1 are migrated to the current version in memory
(migrate.py), with one note per directory on stderr.
"""

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .. import contract as C
from . import migrate, schema
from .schema import InputError


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
    """{'raw'|'summary'|'meta': [(path, launch, slice)]}, temporary files skipped."""
    files = {kind: [] for kind in C.FILE_KINDS}
    for kind, spec in C.FILE_KINDS.items():
        for path in sorted(directory.glob(f"{kind}-*.{spec['extension']}")):
            if path.name.endswith(C.TMP_SUFFIX) or not path.is_file():
                continue
            _, launch, slc = schema.parse_file_name(path.name)
            files[kind].append((path, launch, slc))
    return files


def read_meta(path, launch):
    try:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
    except json.JSONDecodeError as err:
        raise InputError(f"{path}: invalid JSON ({err})") from None
    meta = schema.check_meta(path, meta)
    schema.check_meta_launch(path, meta, launch)
    meta["_path"] = str(path)
    meta["_dir"] = str(path.parent)
    return meta


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
    """The directory's contract version from {file name: version}; every file must agree."""
    found = sorted(set(versions.values()))
    if len(found) > 1:
        first = {v: name for name, v in sorted(versions.items())}
        example = ", ".join(f"{first[v]}: v{v}" for v in found)
        raise InputError(f"{directory}: files of different contract versions ({example}); "
                         "run `analysis/analyze migrate` on it")
    return found[0] if found else C.VERSION


def load_dir(directory):
    """Load one result directory; raise InputError on any contract violation."""
    directory = Path(directory)
    if not directory.is_dir():
        raise InputError(f"{directory}: not a directory")
    files = data_files(directory)
    if not files["raw"] and not files["summary"]:
        raise InputError(f"{directory}: no raw-*.csv or summary-*.csv files")
    frames, versions = {}, {}
    for kind in ("raw", "summary"):
        frames[kind] = []
        for path, launch, _ in files[kind]:
            frame, versions[path.name] = schema.read_csv_checked(path, kind, launch)
            frames[kind].append(frame)
    metas = [read_meta(p, launch) for p, launch, _ in files["meta"]]
    versions.update({Path(m["_path"]).name: schema.meta_version(m) for m in metas})
    version = _one_version(directory, versions)
    if version == 1:
        guessed = set()
        for kind in frames:
            migrated = [migrate.to_current(frame, kind, metas) for frame in frames[kind]]
            frames[kind] = [frame for frame, _ in migrated]
            guessed |= {p for _, points in migrated for p in points}
        for line in migrate.notice(directory, guessed):
            print(line, file=sys.stderr)
    for meta in metas:
        if meta.get("complete") is False:
            print(f"warning: {meta['_path']}: launch marked incomplete (complete=false)", file=sys.stderr)
    raw = _concat(frames["raw"], C.RAW_COLUMNS, directory)
    summary = _concat(frames["summary"], C.SUMMARY_COLUMNS, directory)
    _check_duplicates(directory, raw, ["launch", "point", "rep"], "raw")
    _check_duplicates(directory, summary, ["launch", "point"], "summary")
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
