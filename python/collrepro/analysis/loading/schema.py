"""Strict reading of result files against the contract (collrepro.contract).

Every check raises InputError with one line naming the file and the problem, so that a
broken result directory is diagnosed without reading a traceback. Column lists, types,
enums and file names all come from the contract; files of an earlier version are recognised
by their exact header and checked against that version's layout (loader.py migrates them).
"""

import csv
import io
import re

import numpy as np
import pandas as pd

from collrepro import resultfiles
from collrepro import contract as C
from collrepro import safeio
from collrepro.analysis.loading.errors import InputError  # noqa: F401  (re-exported: schema.InputError)

# Size caps, checked before a file is read (one line naming the file when over). Generous: a raw
# CSV of a long sweep reaches hundreds of MB, a launch's metadata (with its config and pingpong
# series) a few MB.
MAX_CSV_BYTES = 2 * safeio.GIB
MAX_META_BYTES = 64 * safeio.MIB

RAW_COLUMNS = C.RAW_COLUMNS
SUMMARY_COLUMNS = C.SUMMARY_COLUMNS
IDENTITY_COLUMNS = C.IDENTITY_COLUMNS

# Per version: the columns of each table, and the columns filled only by some families.
LAYOUTS = {
    **{v: {"tables": C.TABLE_COLUMNS_OF[v], "owners": C.SHAPE_OWNERS} for v in sorted(C.TABLE_COLUMNS_OF, reverse=True)},
    1: {"tables": C.V1_TABLE_COLUMNS,
        "owners": C.V1["owners"]},
}
_EMPTY_FLOAT_TEXT = ["nan", "NaN"]      # also empty in an optional float column


def parse_file_name(name):
    """'raw-L3-S1.csv' -> ('raw', 3, 1); slice is None when absent."""
    parsed = C.parse_file_name(name)
    if parsed is None:
        raise InputError(f"{name}: unexpected file name (want {C.file_name_help()})")
    return parsed


def column_dtype(column):
    """The pandas dtype of a column as loaded: shape and optional ints may be empty (Int64)."""
    kind = C.TYPES[column]
    if kind == "int":
        return "Int64" if column in C.SHAPE_OWNERS or column in C.OPTIONAL_COLUMNS else "int64"
    return "float64" if kind == "float" else object


def empty_frame(columns):
    return pd.DataFrame({c: pd.Series(dtype=column_dtype(c)) for c in columns})


# ---------------------------------------------------------------- header and structure

def _header_error(path, header, expected):
    missing = [c for c in expected if c not in header]
    extra = [c for c in header if c not in expected]
    if missing:
        return f"{path}: missing column(s) {', '.join(missing)}"
    if extra:
        return f"{path}: unexpected column(s) {', '.join(extra)}"
    return f"{path}: columns out of order (contract order: {', '.join(expected)})"


def detect_versions(path, header, kind):
    """The contract versions whose exact header this is, newest first (a table that a version
    left unchanged matches several); else the error against the nearest layout."""
    found = tuple(v for v, layout in LAYOUTS.items() if header == layout["tables"][kind])
    if found:
        return found
    nearest = min(LAYOUTS, key=lambda v: (len(set(header) ^ set(LAYOUTS[v]["tables"][kind])), -v))
    raise InputError(_header_error(path, header, LAYOUTS[nearest]["tables"][kind]))


def _check_structure(path, kind, data):
    """Header of a known version, every row complete, file ends with a newline; -> versions.
    `data`: the file's plain bytes (either form: collrepro.resultfiles)."""
    if not data:
        raise InputError(f"{path}: empty file (no header row)")
    if not data.endswith(b"\n"):
        raise InputError(f"{path}: last line is not terminated (partial file?)")
    with io.StringIO(data.decode("utf-8"), newline="") as f:
        reader = csv.reader(f)
        header = [h.strip() for h in next(reader)]
        versions = detect_versions(path, header, kind)
        for row in reader:
            if len(row) != len(header):
                raise InputError(f"{path}: line {reader.line_num}: {len(row)} fields, expected "
                                 f"{len(header)} (partial or malformed row)")
    return versions


def read_header(path):
    with resultfiles.text_stream(path, MAX_CSV_BYTES, "a result CSV") as f:
        return [h.strip() for h in next(csv.reader(f), [])]


def check_csv_size(path, what="a result CSV"):
    """Refuse a CSV over MAX_CSV_BYTES before reading it (one line naming the file)."""
    return safeio.check_size(path, MAX_CSV_BYTES, what)


def read_meta_json(path):
    """A meta-*.json file's JSON value: size capped (MAX_META_BYTES), nesting bounded, UTF-8;
    every problem one line naming the file and the fix."""
    text = resultfiles.read_text(path, MAX_META_BYTES, "a result metadata file")
    try:
        return safeio.parse_json(text, path)
    except safeio.UserError as err:
        raise InputError(f"{err}; the file is damaged: re-run the launch or remove its files") from None


# ---------------------------------------------------------------- values

def _bad_value(path, text, mask, column, what):
    i = int(np.flatnonzero(mask)[0])
    raise InputError(f"{path}: line {i + 2}: column {column}: {what}, got {text[i]!r}")


def _families(path, frame, version):
    """The family of every row (a numpy array): its own column (v2), or from the collective (v1)."""
    coll = frame["collective"].to_numpy(dtype=object)
    derived = np.array([C.FAMILY_OF_COLLECTIVE.get(c) for c in coll], dtype=object)
    bad = derived == None  # noqa: E711  (elementwise)
    if bad.any():
        _bad_value(path, coll, bad, "collective", "expected one of " + "|".join(sorted(C.COLLECTIVES)))
    if version == 1:
        return derived
    family = frame["family"].to_numpy(dtype=object)
    bad = ~np.isin(family, C.ENUMS["family"])
    if bad.any():
        _bad_value(path, family, bad, "family", "expected one of " + "|".join(C.ENUMS["family"]))
    bad = family != derived
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"{path}: line {i + 2}: collective {coll[i]} belongs to family "
                         f"{derived[i]}, the row says {family[i]!r}")
    return family


def _convert_column(path, column, text, owned):
    """Check one column's text (numpy object array) against its type, emptiness and enum
    in the rows that own it (owned: bool array); return the typed values."""
    kind = C.TYPES[column]
    empty = text == ""
    if kind == "float" and column in C.OPTIONAL_COLUMNS:
        empty |= np.isin(text, _EMPTY_FLOAT_TEXT)
    foreign = ~owned & ~empty
    if foreign.any():
        _bad_value(path, text, foreign, column, "must be empty in rows of a family without this column")
    required = column in C.NONEMPTY_COLUMNS if kind == "str" else column not in C.OPTIONAL_COLUMNS
    if required and (owned & empty).any():
        what = "empty value" if kind == "str" else \
            "expected an integer" if kind == "int" else "expected a finite number"
        _bad_value(path, text, owned & empty, column, what)
    if kind == "str":
        values = pd.Series(text, dtype=object)
    else:
        num = pd.to_numeric(np.where(empty, "nan", text), errors="coerce")
        num = np.asarray(num, dtype=float) if kind == "float" or empty.any() else np.asarray(num)
        if kind == "int":
            bad = ~empty & (np.isnan(num) | (num != np.round(num))) if num.dtype.kind == "f" \
                else np.zeros(len(num), bool)
            if bad.any():
                _bad_value(path, text, bad, column, "expected an integer")
        else:
            bad = ~empty & ~np.isfinite(num)
            if bad.any():
                _bad_value(path, text, bad, column, "expected a finite number")
        values = pd.Series(num).astype(column_dtype(column))
    allowed = C.ENUMS.get(column)
    if allowed is not None:
        bad = owned & ~empty & ~values.isin(allowed).to_numpy()
        if bad.any():
            _bad_value(path, text, bad, column, "expected one of " + "|".join(map(str, allowed)))
    return values


def _convert(path, frame, version):
    """Typed copy of a text frame, checking every value (the first bad one is reported)."""
    family = _families(path, frame, version)
    owners = LAYOUTS[version]["owners"]
    owned_by = {}
    everywhere = np.ones(len(frame), bool)
    out = {}
    for column in frame.columns:
        owned = everywhere
        if column in owners:
            key = frozenset(owners[column])
            if key not in owned_by:
                owned_by[key] = np.isin(family, list(key))
            owned = owned_by[key]
        out[column] = _convert_column(path, column, frame[column].to_numpy(dtype=object), owned)
    return pd.DataFrame(out)


def _unreadable(path, err):
    """One line for a file that is not CSV text at all (random bytes, NUL bytes, bad quoting)."""
    if isinstance(err, UnicodeDecodeError):
        line = err.object[:err.start].count(b"\n") + 1
        what = f"line {line}: not UTF-8 text (byte 0x{err.object[err.start]:02x})"
    else:
        what = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return InputError(f"{path}: {what}; the file is damaged or not a collbench CSV: re-run the "
                      "launch, or remove the launch's files")


def read_csv_checked(path, kind, launch):
    """Read a raw or summary CSV strictly; -> (typed frame, the contract versions whose layout
    the file has, newest first)."""
    try:
        data = resultfiles.read_bytes(path, MAX_CSV_BYTES, f"a {kind} CSV")
    except safeio.UserError as err:
        raise InputError(str(err)) from None
    try:
        return _read_csv_checked(path, kind, launch, data)
    except (UnicodeDecodeError, csv.Error, pd.errors.ParserError, StopIteration) as err:
        raise _unreadable(path, err) from None


# Where a value could begin or end with white space: a white-space byte beside a separator, a
# quote or a line end, at either end of the file, or any byte Python's str.strip() might count as
# white space (controls, non-ASCII). A file with none of these (what collbench writes) has no value
# to strip, and stripping its million cells is a quarter of the load time.
_MAYBE_PADDED = re.compile(rb'[ \t\r\x0b\x0c][,"\n]|[,"\n][ \t\r\x0b\x0c]|\A[ \t\r\x0b\x0c]|[ \t\r\x0b\x0c]\Z'
                           rb'|[\x00-\x08\x0e-\x1f\x7f-\xff]')


def _read_csv_checked(path, kind, launch, data):
    versions = _check_structure(path, kind, data)
    text = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False, skipinitialspace=True)
    text.columns = [c.strip() for c in text.columns]
    if _MAYBE_PADDED.search(data):
        for column in text.columns:
            text[column] = text[column].str.strip()
    frame = _convert(path, text, versions[0])
    bad = (frame["launch"] != launch).to_numpy()
    if bad.any():
        _bad_value(path, text["launch"].to_numpy(), bad, "launch", f"expected {launch} (from the file name)")
    if "time_s" in frame and (frame["time_s"] < 0).any():
        _bad_value(path, text["time_s"].to_numpy(), (frame["time_s"] < 0).to_numpy(), "time_s",
                   "negative time")
    return frame, versions


def read_raw(path, launch):
    return read_csv_checked(path, "raw", launch)


def read_summary(path, launch):
    return read_csv_checked(path, "summary", launch)


# ---------------------------------------------------------------- meta

def meta_version(meta):
    """The contract version a meta file declares (version 1 had no key)."""
    return meta.get("contract_version", 1) if isinstance(meta, dict) else 1


def check_meta(path, meta):
    """Check the required meta keys of the meta's contract version; return the meta dict."""
    if not isinstance(meta, dict):
        raise InputError(f"{path}: top level is not a JSON object")
    version = meta_version(meta)
    if version not in LAYOUTS:
        raise InputError(f"{path}: contract_version {version!r}: this reader knows versions "
                         f"{', '.join(map(str, sorted(LAYOUTS)))} (update collrepro)")
    required = C.META_REQUIRED if version >= 2 else C.V1_META_REQUIRED
    for key, kind in required.items():
        if key not in meta:
            raise InputError(f"{path}: missing key {key!r}")
        value = meta[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise InputError(f"{path}: key {key!r}: expected {kind.__name__}, got {value!r}")
    for key in ("pingpong", "callcosts", "typecosts", "concurrent_pingpong", "algorithms", "bindings"):
        if key in meta and meta[key] is not None and not isinstance(meta[key], list):
            raise InputError(f"{path}: key {key!r}: expected a list")
    return meta


def check_meta_launch(path, meta, launch):
    if meta["launch"] != launch:
        raise InputError(f"{path}: key 'launch' is {meta['launch']}, file name says {launch}")

