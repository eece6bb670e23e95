"""The data contract (results/CONTRACT.md, v1): column lists, types, checks.

Every check raises InputError with one line naming the file and the problem,
so that a broken result directory is diagnosed without reading a traceback.
"""

import csv
import math
import re

import numpy as np
import pandas as pd

from .errors import InputError  # noqa: F401  (re-exported: schema.InputError)


RAW_COLUMNS = [
    "experiment", "launch", "point", "utc", "mpi_impl", "mpi_version", "nodes",
    "nprocs", "ppn", "placement", "collective", "algorithm", "topology", "p", "q",
    "ka", "kb", "neighborhood", "dims", "msg_bytes", "sync", "clock", "rep",
    "time_s", "valid",
]

IDENTITY_COLUMNS = [c for c in RAW_COLUMNS if c not in ("utc", "rep", "time_s", "valid")]

SUMMARY_STAT_COLUMNS = [
    "n", "n_invalid", "n_kept", "k", "median", "q1", "q3", "min", "max", "mean",
    "cost_alpha_terms", "cost_beta_bytes", "bound_alpha_terms", "bound_beta_bytes",
]
SUMMARY_COLUMNS = IDENTITY_COLUMNS + SUMMARY_STAT_COLUMNS

INT_COLUMNS = {"launch", "point", "nodes", "nprocs", "ppn", "p", "q", "ka", "kb",
               "msg_bytes", "rep", "valid", "n", "n_invalid", "n_kept"}
# Floats that must be present and finite.
FLOAT_COLUMNS = {"time_s", "k"}
# Floats that may be empty or "nan": statistics of a point whose repetitions were
# all invalid, and cost/bound coefficients of algorithms without a model.
OPTIONAL_FLOAT_COLUMNS = {"median", "q1", "q3", "min", "max", "mean", "cost_alpha_terms",
                          "cost_beta_bytes", "bound_alpha_terms", "bound_beta_bytes"}
NONEMPTY_STR_COLUMNS = {"experiment", "utc", "mpi_impl", "mpi_version", "placement",
                        "collective", "algorithm", "topology", "sync", "clock"}

ENUMS = {
    "collective": {"allgather", "allgatherv", "neighbor-alltoall", "neighbor-allgather",
                   "neighbor-alltoallw"},
    "topology": {"fully-connected", "ring", "torus"},
    "sync": {"barrier", "double-barrier", "window"},
    "clock": {"mpi-wtime", "monotonic", "tsc"},
    "valid": {0, 1},
}

META_REQUIRED = {
    "experiment": str, "launch": int, "mpi_library": str, "mpi_impl": str,
    "mpi_version": str, "machine": str, "nodes": int, "nprocs": int, "ppn": int,
    "start_utc": str,
}

FILE_RE = re.compile(r"^(raw|summary|meta)-L(\d+)(?:-S(\d+))?\.(csv|json)$")


def parse_file_name(name):
    """'raw-L3-S1.csv' -> ('raw', 3, 1); slice is None when absent."""
    m = FILE_RE.match(name)
    if not m or (m.group(1) == "meta") != (m.group(4) == "json"):
        raise InputError(f"{name}: unexpected file name (want raw|summary-L<L>[-S<S>].csv "
                         "or meta-L<L>[-S<S>].json)")
    return m.group(1), int(m.group(2)), None if m.group(3) is None else int(m.group(3))


def _check_header(path, header, expected):
    missing = [c for c in expected if c not in header]
    extra = [c for c in header if c not in expected]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}")
    if extra:
        raise InputError(f"{path}: unexpected column(s) {', '.join(extra)}")
    if header != expected:
        raise InputError(f"{path}: columns out of order (contract order: {', '.join(expected)})")


def _check_structure(path, expected):
    """Header exact, every row has len(expected) fields, file ends with a newline."""
    with open(path, "rb") as f:
        data_end = f.seek(0, 2)
        if data_end == 0:
            raise InputError(f"{path}: empty file (no header row)")
        f.seek(data_end - 1)
        if f.read(1) != b"\n":
            raise InputError(f"{path}: last line is not terminated (partial file?)")
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = [h.strip() for h in next(reader)]
        _check_header(path, header, expected)
        for row in reader:
            if len(row) != len(expected):
                raise InputError(f"{path}: line {reader.line_num}: {len(row)} fields, expected "
                                 f"{len(expected)} (partial or malformed row)")


def _bad_value(path, frame, mask, column, what):
    i = mask[mask].index[0]
    value = frame.at[i, column]
    raise InputError(f"{path}: line {i + 2}: column {column}: {what}, got {value!r}")


def _convert(path, frame):
    """Convert string columns in place to their contract types, checking each value."""
    for col in frame.columns:
        text = frame[col].str.strip()
        if col in INT_COLUMNS:
            num = pd.to_numeric(text, errors="coerce")
            bad = num.isna() | (num != num.round())
            if bad.any():
                _bad_value(path, frame, bad, col, "expected an integer")
            frame[col] = num.astype("int64")
        elif col in FLOAT_COLUMNS or col in OPTIONAL_FLOAT_COLUMNS:
            empty = text.str.lower().isin(["", "nan"])
            num = pd.to_numeric(text.where(~empty, "nan"), errors="coerce")
            bad = (num.isna() & ~empty) | num.isin([math.inf, -math.inf])
            if col in FLOAT_COLUMNS:
                bad |= empty
            if bad.any():
                _bad_value(path, frame, bad, col, "expected a finite number")
            frame[col] = num.astype("float64")
        else:
            frame[col] = text
            if col in NONEMPTY_STR_COLUMNS and (text == "").any():
                _bad_value(path, frame, text == "", col, "empty value")
        allowed = ENUMS.get(col)
        if allowed is not None:
            bad = ~frame[col].isin(allowed)
            if bad.any():
                _bad_value(path, frame, bad, col, "expected one of " + "|".join(map(str, sorted(allowed))))
    return frame


def _check_launch(path, frame, launch):
    bad = frame["launch"] != launch
    if bad.any():
        _bad_value(path, frame, bad, "launch", f"expected {launch} (from the file name)")


def _fast_read(path, expected):
    """Typed parse by pandas' C parser; None if any value needs the slow diagnosis."""
    dtypes = {c: ("int64" if c in INT_COLUMNS else "float64" if c in FLOAT_COLUMNS
                  or c in OPTIONAL_FLOAT_COLUMNS else str) for c in expected}
    optional = {c: ["", "nan", "NaN"] for c in expected if c in OPTIONAL_FLOAT_COLUMNS}
    try:
        frame = pd.read_csv(path, dtype=dtypes, keep_default_na=False, na_values=optional)
    except (ValueError, TypeError, OverflowError):
        return None
    floats = [c for c in expected if c in FLOAT_COLUMNS or c in OPTIONAL_FLOAT_COLUMNS]
    required = [c for c in floats if c in FLOAT_COLUMNS]
    nonempty = [c for c in expected if c in NONEMPTY_STR_COLUMNS]
    bad = (np.isinf(frame[floats].to_numpy(dtype=float)).any()
           or np.isnan(frame[required].to_numpy(dtype=float)).any()
           or (frame[nonempty].to_numpy() == "").any()
           or any(not set(frame[c].unique()) <= allowed for c, allowed in ENUMS.items() if c in frame))
    return None if bad else frame


def _slow_read(path):
    """Parse everything as text and convert column by column, naming the first bad value."""
    frame = pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True)
    frame.columns = [c.strip() for c in frame.columns]
    return _convert(path, frame)


def read_csv_checked(path, expected, launch):
    """Read a raw or summary CSV, checking it strictly against the contract."""
    _check_structure(path, expected)
    frame = _fast_read(path, expected)
    if frame is None:
        frame = _slow_read(path)
    _check_launch(path, frame, launch)
    if "time_s" in frame and (frame["time_s"] < 0).any():
        _bad_value(path, frame, frame["time_s"] < 0, "time_s", "negative time")
    return frame


def read_raw(path, launch):
    return read_csv_checked(path, RAW_COLUMNS, launch)


def read_summary(path, launch):
    return read_csv_checked(path, SUMMARY_COLUMNS, launch)


def check_meta(path, meta, launch):
    """Check the required meta keys and their types; return the meta dict."""
    if not isinstance(meta, dict):
        raise InputError(f"{path}: top level is not a JSON object")
    for key, kind in META_REQUIRED.items():
        if key not in meta:
            raise InputError(f"{path}: missing key {key!r}")
        value = meta[key]
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if not ok:
            raise InputError(f"{path}: key {key!r}: expected {kind.__name__}, got {value!r}")
    if meta["launch"] != launch:
        raise InputError(f"{path}: key 'launch' is {meta['launch']}, file name says {launch}")
    for key in ("pingpong", "algorithms", "bindings"):
        if key in meta and meta[key] is not None and not isinstance(meta[key], list):
            raise InputError(f"{path}: key {key!r}: expected a list")
    return meta
