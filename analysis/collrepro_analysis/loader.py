"""Load result directories (raw-*.csv, summary-*.csv, meta-*.json)."""

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from . import schema
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


def _data_files(directory):
    files = {"raw": [], "summary": [], "meta": []}
    for kind, pattern in (("raw", "raw-*.csv"), ("summary", "summary-*.csv"), ("meta", "meta-*.json")):
        for path in sorted(directory.glob(pattern)):
            if path.name.endswith(".tmp") or not path.is_file():
                continue
            _, launch, slc = schema.parse_file_name(path.name)
            files[kind].append((path, launch, slc))
    return files


def _read_meta(path, launch):
    try:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
    except json.JSONDecodeError as err:
        raise InputError(f"{path}: invalid JSON ({err})") from None
    meta = schema.check_meta(path, meta, launch)
    meta["_path"] = str(path)
    meta["_dir"] = str(path.parent)
    if meta.get("complete") is False:
        print(f"warning: {path}: launch marked incomplete (complete=false)", file=sys.stderr)
    return meta


def _concat(frames, columns, directory):
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in columns + ["source"]})
    out = pd.concat(frames, ignore_index=True)
    out["source"] = str(directory)
    return out


def _check_duplicates(directory, frame, keys, what):
    dup = frame.duplicated(keys, keep=False)
    if dup.any():
        row = frame[dup].iloc[0]
        where = ", ".join(f"{k}={row[k]}" for k in keys)
        raise InputError(f"{directory}: duplicate {what} rows for {where}")


def load_dir(directory):
    """Load one result directory; raise InputError on any contract violation."""
    directory = Path(directory)
    if not directory.is_dir():
        raise InputError(f"{directory}: not a directory")
    files = _data_files(directory)
    if not files["raw"] and not files["summary"]:
        raise InputError(f"{directory}: no raw-*.csv or summary-*.csv files")
    raw = _concat([schema.read_raw(p, l) for p, l, _ in files["raw"]], schema.RAW_COLUMNS, directory)
    summary = _concat([schema.read_summary(p, l) for p, l, _ in files["summary"]],
                      schema.SUMMARY_COLUMNS, directory)
    _check_duplicates(directory, raw, ["launch", "point", "rep"], "raw")
    _check_duplicates(directory, summary, ["launch", "point"], "summary")
    metas = [_read_meta(p, l) for p, l, _ in files["meta"]]
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
