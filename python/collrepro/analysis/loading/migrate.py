"""An earlier contract version -> the current one: in memory for the loader, on disk for
`analyze migrate DIR`. From version 2 on a version only adds columns ("since" in the
contract), which migrate as empty cells. Version 1 needs more:

Version 1 rows carry p, q, ka, kb (and the neighborhood) but not the family, the group sums
K_A and K_B, the Allgatherv distribution or the isomorphic block rule. They are recovered:

- family: from the collective;
- allgather: every block of A is ka, of B kb: K_A = p ka, K_B = q kb, distribution equal;
- allgatherv: the meta's config names the setting of each point (settings[*].points) with its
  distributions and block ratios (else the top level's, else equal and 1:1). Every candidate
  (distribution, ratio) is replayed with collrepro.distributions (as collbench generated the
  blocks); the one whose largest blocks are the row's ka and kb gives the exact K_A, K_B.
  If none or several disagreeing ones match, the old guess is used, with a warning;
- isomorphic: block_max = ka, block_min = kb, neighbors counted from the neighborhood,
  block_rule distance when the setting's distributions ask for it (alltoallw only).

Before version 5 every rank started each repetition at once: the arrival columns read as
arrival none, arrival_max_s 0, and the times from the last arrival are the times themselves
(time_from_last_s = time_s, median_from_last = median).

Before version 7 every call was blocking: call reads as blocking, and init_s (the persistent
init) stays empty.

Before version 8 no column said how the two groups of an inter-group point were connected:
pair_mode is read from the meta's config, the sweep key pair_mode of the setting that lists the
point (else the top level's, else intercomm, the key's default), for the rows of the families
that own the column (contract: shape), and empty for the others. Version 1 rows get it the same
way, with their other shape columns.

Before version 9 no point measured the overlap of a nonblocking call: overlap_pct,
overlap_pure_s and overlap_compute_s stay empty.

Version 6 added no column: it bound placement, collective and mpi_impl to the contract's value
sets as well. A version 5 file reads as it is when its values are in the sets (the loader checks
every cell against the current sets, so a value outside them is refused in one line naming the
file, the line, the column and the value); `migrate` then only rewrites the metadata's version.
"""

import re
import json
from math import comb
from pathlib import Path

import pandas as pd

from collrepro import contract as C
from collrepro import resultfiles, safeio
from collrepro.distributions import distribute, nominal_sizes
from collrepro.analysis.loading.integrity import data_files, file_integrity, read_meta, verify_integrity
from collrepro.analysis.loading import schema
from collrepro.analysis.loading.errors import InputError

DEFAULTS = {"distributions": ["equal"], "blocks": ["1:1"], "pair_mode": ["intercomm"]}


# ---------------------------------------------------------------- the meta's configuration

def _as_list(value):
    return [value] if isinstance(value, str) else list(value or [])


def sweep_values(meta, point, key):
    """A sweep key's values for a point: its setting's, else the top level's, else the default."""
    config = meta.get("config") if isinstance(meta, dict) else None
    config = config if isinstance(config, dict) else {}
    for setting in config.get("settings") or []:
        if isinstance(setting, dict) and point in (setting.get("points") or []):
            sweep = setting.get("sweep", setting)
            if isinstance(sweep, dict) and key in sweep:
                return _as_list(sweep[key])
            break
    if key in config:
        return _as_list(config[key])
    return list(DEFAULTS.get(key, []))


def pair_mode(meta, point):
    """How a point's two groups were connected, from the meta's config (the sweep key pair_mode
    of its setting, else of the top level, else its default); InputError for a value outside the
    contract's set."""
    modes = sweep_values(meta, point, "pair_mode") or DEFAULTS["pair_mode"]
    allowed = C.ENUM_SETS["pair_mode"]
    if len(modes) != 1 or modes[0] not in allowed:
        raise InputError(f"{meta.get('_path', 'meta')}: config pair_mode of point {point} is {modes!r}, "
                         f"not one of {'|'.join(allowed)}")
    return modes[0]


def _ratio(text):
    a, _, b = str(text).partition(":")
    return int(a), int(b)


def old_guess(n, k_max, msg_bytes, k_max_other):
    """What the analysis assumed before version 2: 'arithmetic' when a block exceeds the swept
    size, with K = k_max (n+1)/2; else equal blocks. Wrong for the random distribution."""
    if max(k_max, k_max_other) > msg_bytes:
        return "arithmetic", k_max * (n + 1) // 2
    return "equal", n * k_max


def allgatherv_shape(meta, point, p, q, ka, kb, msg_bytes):
    """(distribution, K_A, K_B, exact) of a version 1 allgatherv row."""
    found = set()
    for dist in sweep_values(meta, point, "distributions"):
        for ratio in sweep_values(meta, point, "blocks"):
            try:
                sa, sb = nominal_sizes(msg_bytes, *_ratio(ratio))
                a, b = distribute(dist, sa, p), distribute(dist, sb, q)
            except ValueError:
                continue
            if max(a, default=0) == ka and max(b, default=0) == kb:
                found.add((dist, sum(a), sum(b)))
    if len(found) == 1:
        return (*found.pop(), True)
    dist, k_a = old_guess(p, ka, msg_bytes, kb)
    return dist, k_a, old_guess(q, kb, msg_bytes, ka)[1], False


# ---------------------------------------------------------------- isomorphic

def neighbor_count(neighborhood):
    """s of a canonical neighborhood string (moore, vonneumann, octant, shells, list)."""
    kind, _, args = neighborhood.partition(":")
    if kind == "list":
        return args.count("(")
    try:
        params = dict(part.split("=", 1) for part in args.split(","))
        d, radii = int(params["d"]), [int(r) for r in params["r"].split("+")]
    except (ValueError, KeyError):
        raise InputError(f"cannot count the neighbors of {neighborhood!r}") from None
    r = radii[0]
    if kind == "moore":
        return (2 * r + 1) ** d - 1
    if kind == "octant":
        return (r + 1) ** d - 1
    if kind == "vonneumann":
        return sum(2 ** k * comb(d, k) * comb(r, k) for k in range(min(d, r) + 1)) - 1
    if kind == "shells":
        return sum((2 * x + 1) ** d - (2 * x - 1) ** d for x in radii)
    raise InputError(f"cannot count the neighbors of {neighborhood!r} (unknown kind {kind!r})")


def block_rule(meta, point, collective, block_max, block_min):
    rules = sweep_values(meta, point, "distributions") if collective == "neighbor-alltoallw" else []
    if "distance" in rules and (len(rules) == 1 or block_max != block_min):
        return "distance"
    return "uniform"


# ---------------------------------------------------------------- frames

def _meta_for(metas, launch):
    for meta in metas:
        if meta.get("launch") == launch:
            return meta
    return metas[0] if metas else {}


def _shape_values(row, meta, guessed):
    """The version 2 shape columns of one version 1 row (a dict). Version 1 had two families:
    one of two groups (p, q, ka, kb), and the neighborhood one (ka, kb its largest and smallest
    block)."""
    if not C.family_entry(C.FAMILY_OF_COLLECTIVE[row["collective"]])["groups"]:
        return {"neighborhood": row["neighborhood"], "dims": row["dims"],
                "neighbors": neighbor_count(row["neighborhood"]),
                "block_rule": block_rule(meta, row["point"], row["collective"], row["ka"], row["kb"]),
                "block_min": row["kb"], "block_max": row["ka"]}
    p, q, ka, kb = row["p"], row["q"], row["ka"], row["kb"]
    if row["collective"] == "allgatherv":
        dist, k_a, k_b, exact = allgatherv_shape(meta, row["point"], p, q, ka, kb, row["msg_bytes"])
        if not exact:
            guessed.add(row["point"])
    else:
        dist, k_a, k_b = "equal", p * ka, q * kb
    return {"p": p, "q": q, "ka": ka, "kb": kb, "bytes_a": k_a, "bytes_b": k_b,
            "distribution": dist, "dist_seed": 0 if dist == "random" else pd.NA,
            "pair_mode": pair_mode(meta, row["point"])}


# Columns an earlier version lacks whose value is known (ARRIVAL_FILLS, CALL_FILLS): from the
# frame itself; META_FILLS: from the launches' metadata as well.
ARRIVAL_FILLS = {
    "arrival": lambda frame: pd.Series("none", index=frame.index, dtype=object),
    "arrival_max_s": lambda frame: pd.Series(0.0, index=frame.index, dtype="float64"),
    "time_from_last_s": lambda frame: frame["time_s"].astype("float64"),
    "median_from_last": lambda frame: frame["median"].astype("float64"),
}
CALL_FILLS = {"call": lambda frame: pd.Series("blocking", index=frame.index, dtype=object)}


def _pair_mode_column(frame, metas):
    """pair_mode of every row of a frame before version 8: its point's (pair_mode()) in the
    rows of the families that own the column, '' in the others."""
    owned = frame["family"].isin(C.SHAPE_OWNERS["pair_mode"])
    keys = frame.loc[owned, ["launch", "point"]].drop_duplicates().itertuples(index=False)
    modes = {(launch, point): pair_mode(_meta_for(metas, launch), point) for launch, point in keys}
    values = [modes[(launch, point)] if own else ""
              for launch, point, own in zip(frame["launch"], frame["point"], owned)]
    return pd.Series(values, index=frame.index, dtype=object)


META_FILLS = {"pair_mode": _pair_mode_column}


def _added_column(column, frame, metas):
    """A column `frame` (an earlier version's) lacks: its known value, else empty."""
    if column in META_FILLS:
        return META_FILLS[column](frame, metas)
    fill = ARRIVAL_FILLS.get(column) or CALL_FILLS.get(column)
    return fill(frame) if fill is not None else _empty_column(column, frame.index)


def added_since(version, kind):
    """The columns of `kind` that the current version has and `version` (>= 2) has not."""
    return [c for c in C.TABLE_COLUMNS[kind] if c not in C.TABLE_COLUMNS_OF[version][kind]]


def _empty_column(column, index):
    dtype = schema.column_dtype(column)
    return pd.Series(float("nan") if dtype == "float64" else pd.NA, index=index, dtype=dtype)


def to_current(frame, kind, metas, version=1):
    """A typed frame of an earlier version (schema.read_csv_checked) -> the current columns.

    Version 1 recovers the shape columns (see the module's text); every later version only
    lacks the columns added since, which are added with their known value (the fills above)
    or empty. Returns (frame, points whose allgatherv distribution had to be guessed).
    """
    columns = C.TABLE_COLUMNS[kind]
    if frame.empty:
        return schema.empty_frame(columns), set()
    if version >= 2:
        out = frame.copy()
        for column in added_since(version, kind):
            out[column] = _added_column(column, frame, metas)
        return out[columns], set()
    keys = ["launch", "point", "collective", "p", "q", "ka", "kb", "neighborhood", "dims", "msg_bytes"]
    guessed = set()
    shapes = {}
    for row in frame[keys].drop_duplicates().to_dict("records"):
        shapes[tuple(row[k] for k in keys)] = _shape_values(row, _meta_for(metas, row["launch"]), guessed)
    index = [tuple(r) for r in frame[keys].itertuples(index=False)]
    shape_frame = pd.DataFrame([shapes[k] for k in index], index=frame.index)
    out = {}
    for column in columns:
        if column == "family":
            values = frame["collective"].map(C.FAMILY_OF_COLLECTIVE)
        elif column in C.SHAPE_OWNERS:
            values = shape_frame[column] if column in shape_frame else pd.Series(pd.NA, index=frame.index)
            values = values.fillna("") if C.TYPES[column] == "str" else values
        elif column in frame:
            values = frame[column]
        else:                                           # added after version 2: known or empty
            values = _added_column(column, frame, metas)
        dtype = schema.column_dtype(column)
        out[column] = values.astype(dtype) if dtype is not object else values.astype(str)
    return pd.DataFrame(out, index=frame.index)[columns], guessed


def _added_parts(added):
    """The note's parts on the columns an earlier version lacks: how each was filled."""
    # Tail percentiles come back from the raw rows; what a run measured on its clocks does not.
    recomputed = [c for c in added if re.fullmatch(r"p[0-9]+", c)]
    known = {**ARRIVAL_FILLS, **CALL_FILLS, **META_FILLS}
    empty = [c for c in added if c not in recomputed and c not in known]
    groups = [(recomputed, "left empty, recomputed from the raw rows where present"),
              (empty, "left empty"),
              ([c for c in added if c in ARRIVAL_FILLS], "every rank started at once (arrival none, "
               "arrival_max_s 0, times from the last arrival = time_s, median)"),
              ([c for c in added if c in CALL_FILLS], "every call was blocking"),
              ([c for c in added if c in META_FILLS],
               f"read from the metadata's config (default {DEFAULTS['pair_mode'][0]})")]
    return [f"{', '.join(columns)} absent: {text}" for columns, text in groups if columns]


def notice(directory, guessed, version=1):
    """The one line printed per directory of an earlier version (two when a version 1
    allgatherv distribution was guessed)."""
    if version >= 2:
        added = list(dict.fromkeys(c for kind in ("raw", "summary") for c in added_since(version, kind)))
        parts = _added_parts(added) or ["no column added; every value is in the contract's value sets"]
        return [f"note: {directory} uses results contract v{version}; read as v{C.VERSION} ({'; '.join(parts)})"]
    lines = [f"note: {directory} uses results contract v1; read as v{C.VERSION} "
             "(distribution and pair_mode recovered from the metadata)"]
    if guessed:
        shown = ", ".join(map(str, sorted(guessed)[:8])) + (", ..." if len(guessed) > 8 else "")
        lines.append(f"warning: {directory}: the config does not pin the allgatherv distribution of "
                     f"point(s) {shown}; guessed from the block sizes (K_A, K_B exact only for "
                     "equal and arithmetic)")
    return lines


# ---------------------------------------------------------------- on disk

TMP_TAG = ".migrate" + C.TMP_SUFFIX          # the temporaries of migrations before safeio
SAFEIO_TEMPORARY = re.compile(r"\.(?P<target>.+)(?:" + re.escape(safeio.TMP_TAG) + "|"
                              + re.escape(safeio.OLD_TAG) + r")[0-9]+")


def _refuse_unfinished(directory):
    for path in sorted(directory.iterdir()):
        found = SAFEIO_TEMPORARY.fullmatch(path.name)
        if path.name.startswith(".") and path.name.endswith(TMP_TAG):
            path.unlink()                        # our own leftover of an interrupted migration
        elif found:
            safeio.remove_stale(directory / found["target"])   # when its writer is gone
        elif path.name.endswith(C.TMP_SUFFIX):
            raise InputError(f"{path}: temporary file of an unfinished run; finish or remove the "
                             "run before migrating")


def _integrity(directory, meta):
    """A launch's integrity record recomputed from its (rewritten) files, as collbench writes it."""
    return file_integrity(directory, meta["launch"], meta.get("slice"))


def migrate_dir(directory):
    """Rewrite a result directory of an earlier version in the current one; -> (paths, warnings).

    Every file is replaced atomically (temporary file, then rename). Files already in the
    current version are left alone, so an interrupted migration can simply be run again. The
    directory is verified against its integrity records first; the rewritten metadata gets
    fresh ones, so that collbench can resume into it.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise InputError(f"{directory}: not a directory")
    _refuse_unfinished(directory)
    files = data_files(directory)
    metas = [read_meta(p, launch) for p, launch, _ in files["meta"]]
    for meta in metas:
        if meta.get("complete") is False and schema.meta_version(meta) < C.VERSION:
            raise InputError(f"{meta['_path']}: launch marked incomplete (complete=false); "
                             "finish or remove it before migrating")
    verify_integrity(directory, metas)
    # Check and convert every file before writing any: a partial file stops it all.
    converted, guessed = [], set()
    for kind in ("raw", "summary"):
        for path, launch, _ in files[kind]:
            frame, versions = schema.read_csv_checked(path, kind, launch)
            version = versions[0]
            if version < C.VERSION:
                current, unsure = to_current(frame, kind, metas, version)
                converted.append((path, current))
                guessed |= unsure
    written = []
    for path, current in converted:
        resultfiles.write_atomically(path, lambda f, t=current: t.to_csv(f, index=False, lineterminator="\n"))
        written.append(path)
    for meta in metas:
        version = schema.meta_version(meta)
        if version == C.VERSION:
            continue
        path = Path(meta["_path"])
        clean = {k: v for k, v in meta.items() if not k.startswith("_")}
        clean["contract_version"] = C.VERSION
        if version >= 2 and "integrity" in clean:
            clean["integrity"] = _integrity(directory, meta)
        resultfiles.write_atomically(path, lambda f, m=clean: f.write(
            json.dumps(m, indent=2, sort_keys=True, ensure_ascii=False) + "\n"))
        written.append(path)
    return written, notice(directory, guessed)[1:]
