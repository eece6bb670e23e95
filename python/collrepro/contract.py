"""The results contract (contract/contract.json), loaded once for every Python tool.

The C++ writer embeds the same file at build time, so a column, a type, an enum, a file
name or the slice rule exists in one place only. Version 1 (the format before the contract
became machine-readable) is described by V1 below, so that old result directories can still
be read and documented.

The files generated from it (results/CONTRACT.md from markdown() here, the golden vectors) are
written by `collrepro-py contract markdown|golden` (contract_files.py).
"""

import json
import os
import re
import string

CONTRACT_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
                             "contract", "contract.json")

with open(CONTRACT_PATH, encoding="utf-8") as _f:
    CONTRACT = json.load(_f)

VERSION = CONTRACT["version"]
COLUMNS = CONTRACT["columns"]
FAMILIES = CONTRACT["families"]


def _shape_columns():
    out = []
    for family in FAMILIES.values():
        for col in family["shape"]:
            if col not in out:
                out.append(col)
    return out


SHAPE_COLUMNS = _shape_columns()
_RAW = CONTRACT["tables"]["raw"]
_SUMMARY = CONTRACT["tables"]["summary"]
IDENTITY_COLUMNS = [c for c in _RAW["identity"] if c != "utc"] + SHAPE_COLUMNS + _RAW["after_shape"]
RAW_COLUMNS = _RAW["identity"] + SHAPE_COLUMNS + _RAW["after_shape"] + _RAW["measurement"]
SUMMARY_COLUMNS = IDENTITY_COLUMNS + _SUMMARY["measurement"]
RAW_MEASUREMENT_COLUMNS = list(_RAW["measurement"])
# The version that added each column ("since"; 2 for the columns of the first machine-readable
# version), and so each table's columns in every version from 2 on.
SINCE = {name: col.get("since", 2) for name, col in COLUMNS.items()}
TABLE_COLUMNS_OF = {v: {"raw": [c for c in RAW_COLUMNS if SINCE[c] <= v],
                        "summary": [c for c in IDENTITY_COLUMNS + _SUMMARY["measurement"] if SINCE[c] <= v]}
                    for v in range(2, VERSION + 1)}
SUMMARY_MEASUREMENT_COLUMNS = list(_SUMMARY["measurement"])
TABLE_COLUMNS = {"raw": RAW_COLUMNS, "summary": SUMMARY_COLUMNS}

# Column properties, as sets and dicts.
TYPES = {name: col["type"] for name, col in COLUMNS.items()}          # int | float | str
INT_COLUMNS = {c for c, t in TYPES.items() if t == "int"}
FLOAT_COLUMNS = {c for c, t in TYPES.items() if t == "float"}
STR_COLUMNS = {c for c, t in TYPES.items() if t == "str"}
OPTIONAL_COLUMNS = {c for c, col in COLUMNS.items() if col.get("optional")}
NONEMPTY_COLUMNS = {c for c, col in COLUMNS.items() if col.get("nonempty")}
# The closed sets of values ("enums"; the C++ enums are generated from the same table), and each
# enumerated column's allowed values: a named set, or an inline list (the 0/1 columns).
ENUM_SETS = {name: list(spec["values"]) for name, spec in CONTRACT["enums"].items() if name != "about"}
ENUMS = {c: list(ENUM_SETS[col["enum"]] if isinstance(col["enum"], str) else col["enum"])
         for c, col in COLUMNS.items() if "enum" in col}

FAMILY_OF_COLLECTIVE = {coll: name for name, fam in FAMILIES.items() for coll in fam["collectives"]}
COLLECTIVES = list(FAMILY_OF_COLLECTIVE)
# The families and their collectives are the enums family and collective, in the same order.
assert ENUM_SETS["family"] == list(FAMILIES), "contract.json: enums.family differs from the families"
assert ENUM_SETS["collective"] == COLLECTIVES, "contract.json: enums.collective differs from the families' collectives"
# Shape column -> the families that fill it (every other family leaves it empty).
SHAPE_OWNERS = {c: {name for name, fam in FAMILIES.items() if c in fam["shape"]} for c in SHAPE_COLUMNS}

# What each family entry says, beyond its collectives and shape columns, so that no tool has to
# switch on a family's name (tests/python/test_family_facts.py checks both sides).
FAMILY_FIELDS = {
    "about": "one sentence: what the family measures",
    "collectives": "its collectives (the enum collective, in family order)",
    "shape": "the shape columns its rows fill",
    "groups": "its disjoint process groups, each {name, size, block, bytes}: the columns of the "
              "group's process count, largest block and block sum (none: one group of all processes)",
    "message_bytes": "the columns whose largest value is a point's per-process message size "
                     "(colltune's msg_size, the size a delay rule compares)",
    "shape_label": "a point's shape as the tables label it (a label template)",
    "point_label": "a point's setting label when the configuration names none (a label template)",
    "situation": "colltune's situation keys, in rule-path order (none: colltune writes no rules)",
    "library_calls": "{comm, calls}: the library's own calls a point times, per collective and "
                     "algorithm (what a PMPI delay rule can touch), and the communicator they run on",
}
_missing = [f"{name}.{field}" for name, fam in FAMILIES.items() for field in FAMILY_FIELDS if field not in fam]
assert not _missing, f"contract.json: families lack {', '.join(_missing)}"


def family_entry(name):
    """The contract entry of a family (KeyError naming the families for another name)."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise KeyError(f"{name!r} is no family of the contract ({'|'.join(FAMILIES)})") from None


def library_calls(family_name, collective, algorithm):
    """The library's own calls (PMPI names, lower case) a point of this family, collective and
    algorithm times: () for an algorithm that is not the library's own call."""
    return tuple(family_entry(family_name)["library_calls"]["calls"].get(collective, {}).get(algorithm, ()))


_PY_TYPES = {"int": int, "str": str, "float": float, "bool": bool}
META_REQUIRED = {k: _PY_TYPES[t] for k, t in CONTRACT["meta"]["required"].items()}
META_KEYS = CONTRACT["meta"]["keys"]
META_SOMETIMES = CONTRACT["meta"]["sometimes"]      # keys written only in some launches, and when
META_NESTED = CONTRACT["meta"]["nested"]            # the keys of some object-valued keys

FILE_RE = re.compile(CONTRACT["files"]["pattern"])
TMP_SUFFIX = CONTRACT["files"]["temporary_suffix"]
FILE_KINDS = CONTRACT["files"]["kinds"]
# Any kind may be stored compressed: <name><COMPRESSED_SUFFIX> holds exactly the bytes of <name>
# (collrepro.resultfiles reads and writes both forms).
COMPRESSED_SUFFIX = CONTRACT["files"]["compressed"]["suffix"]
# The phases table (timing.phases): its own file kind, joined to raw on (experiment, launch,
# point, rep).
PHASES_COLUMNS = list(CONTRACT["tables"]["phases"]["columns"])


def family_of_collective(collective):
    try:
        return FAMILY_OF_COLLECTIVE[collective]
    except KeyError:
        raise KeyError(f"collective {collective!r} belongs to no family of the contract") from None


# A label template's condition: 'col' (the point fills it), 'col = v' or 'col != v'.
_CONDITION = re.compile(r"^(\w+)(?:\s*(!=|=)\s*(\S+))?$")


def _filled(value):
    try:
        return value is not None and bool(value != "") and bool(value == value)    # NaN: empty
    except TypeError:                                                              # pandas' NA
        return False


def message_bytes(point):
    """The per-process message bytes of a collbench point (a row, or a dict of its columns): the
    largest of its family's message_bytes columns that it fills; msg_bytes when it fills none."""
    values = [point.get(c) for c in family_entry(point.get("family"))["message_bytes"]]
    present = [int(v) for v in values if _filled(v)]
    return max(present) if present else int(point.get("msg_bytes") or 0)


def label_fields(parts):
    """The field names a label template (shape_label, point_label) reads, conditions included."""
    names = []
    for part in parts:
        if isinstance(part, str):
            names += [f for _, f, _, _ in string.Formatter().parse(part) if f]
        else:
            names.append(_CONDITION.match(part["if"]).group(1))
            names += label_fields([p for p in (part["then"], part.get("else")) if p is not None])
    return list(dict.fromkeys(names))


def _holds(condition, get):
    """'col' (filled), 'col = v' or 'col != v' (numbers compare as numbers) for one point."""
    name, op, want = _CONDITION.match(condition).groups()
    value = get(name)
    if op is None:
        return value is not None
    try:
        same = value is not None and float(value) == float(want)
    except (TypeError, ValueError):
        same = str(value) == want
    return same if op == "=" else not same


def render_label(parts, get):
    """A label template for one point: its strings formatted with the point's fields, in order;
    a part {"if": condition, "then": part, "else": part} renders then or else (nothing without
    one). get(name) -> the field's value, None when the point leaves it empty."""
    out = []
    for part in parts:
        if isinstance(part, str):
            out.append(part.format_map({f: get(f) for f in label_fields([part])}))
        else:
            chosen = part["then"] if _holds(part["if"], get) else part.get("else")
            if chosen is not None:
                out.append(render_label([chosen], get))
    return "".join(out)


def file_name(kind, launch, slc=None, compressed=False):
    """'raw', 3, 1 -> 'raw-L3-S1.csv'; slc None -> no slice part; compressed -> 'raw-L3-S1.csv.gz'."""
    ext = FILE_KINDS[kind]["extension"]
    return (f"{kind}-L{launch}" + ("" if slc is None else f"-S{slc}") + f".{ext}"
            + (COMPRESSED_SUFFIX if compressed else ""))


def parse_file_name(name):
    """'raw-L3-S1.csv' or 'raw-L3-S1.csv.gz' -> ('raw', 3, 1); slice None when absent; None if
    not a contract name."""
    m = FILE_RE.match(name)
    if not m or FILE_KINDS[m.group(1)]["extension"] != m.group(4):
        return None
    return m.group(1), int(m.group(2)), None if m.group(3) is None else int(m.group(3))


def is_compressed(name):
    return name.endswith(COMPRESSED_SUFFIX)


def plain_name(name):
    """'raw-L0.csv.gz' -> 'raw-L0.csv' (the name the integrity record uses); others unchanged."""
    return name[:-len(COMPRESSED_SUFFIX)] if is_compressed(name) else name


def file_name_help():
    return CONTRACT["files"]["name"]


def slice_range(n, s, t):
    """Points [begin, end) of slice s of t over n points: the first n mod t slices get one more."""
    base, extra = divmod(n, t)
    begin = s * base + min(s, extra)
    return begin, begin + base + (1 if s < extra else 0)


def array_task(launch, slc, slices):
    return launch * slices + slc


def slice_of(point, n, t):
    """The slice (0..t-1) of t over n points that holds `point`; None outside 0..n-1."""
    for s in range(t):
        begin, end = slice_range(n, s, t)
        if begin <= point < end:
            return s
    return None


def value_problem(column, value):
    """Why `value` (a CSV cell's text) is not a value of the enumerated `column`; None when it
    is, or when the column is not enumerated."""
    allowed = ENUMS.get(column)
    if allowed is None or str(value) in map(str, allowed):
        return None
    return f"column {column}: {value!r} is not one of {'|'.join(map(str, allowed))}"


def meta_problems(meta, simulated=False):
    """What a launch's metadata (a dict, as collbench writes it) lacks or has beyond the
    contract: every key of meta.keys is written except those of meta.sometimes, nothing else is,
    and the nested objects of meta.nested have exactly their keys. -> list of one-line problems."""
    problems = [f"key {k!r} is written but not in the contract" for k in meta if k not in META_KEYS]
    problems += [f"key {k!r} is promised but not written" for k in META_KEYS
                 if k not in meta and k not in META_SOMETIMES]
    for key, keys in META_NESTED.items():
        value = meta.get(key)
        if isinstance(value, dict) and sorted(value) != sorted(keys):
            problems.append(f"key {key!r} has {sorted(value)}, the contract says {sorted(keys)}")
    for key, enum in (("binding", "binding"),):
        requested = (meta.get(key) or {}).get("requested")
        if requested is not None and requested not in ENUM_SETS[enum]:
            problems.append(f"key {key}.requested: {requested!r} is not one of {'|'.join(ENUM_SETS[enum])}")
    return problems


# ---------------------------------------------------------------- version 1

# The format of result directories written before contract version 2 (no contract_version
# key in the meta files). Readers migrate it to the current version in memory.
V1 = {
    "raw": ["experiment", "launch", "point", "utc", "mpi_impl", "mpi_version", "nodes", "nprocs",
            "ppn", "placement", "collective", "algorithm", "topology", "p", "q", "ka", "kb",
            "neighborhood", "dims", "msg_bytes", "sync", "clock", "rep", "time_s", "valid"],
    "summary_measurement": [c for c in SUMMARY_MEASUREMENT_COLUMNS if SINCE[c] <= 2],
    "isomorphic_only": ["neighborhood", "dims"],
    "meanings": {
        "p, q": "group sizes (inter-group); 0 for isomorphic rows",
        "ka, kb": "inter-group: the block of each process of A and B for allgather (kb = 0: "
                  "half-duplex A to B), the largest block of each group for allgatherv; "
                  "isomorphic: the largest and the smallest block",
        "neighborhood, dims": "isomorphic only, empty for inter-group rows",
        "msg_bytes": "the swept size",
    },
    "meta": "the required keys of the current version except contract_version; the build is "
            "described by top-level git_revision and compiler keys",
    "absent": "family, bytes_a, bytes_b, distribution, dist_seed, neighbors, block_rule, "
              "block_min, block_max, root, bytes_total; meta key contract_version",
    "migration": "family from the collective; inter-group bytes_a = p ka, bytes_b = q kb and "
                 "distribution equal for allgather; for allgatherv the distribution and the "
                 "block sums are recomputed from the meta's config (the setting that lists the "
                 "point, its distributions and blocks); isomorphic block_max = ka, block_min = "
                 "kb, neighbors from the neighborhood, block_rule distance when the setting's "
                 "distributions say so",
}
V1["owners"] = {c: {"isomorphic"} for c in V1["isomorphic_only"]}     # the shape columns of one family
V1["identity"] = [c for c in V1["raw"] if c not in ("utc",) + tuple(RAW_MEASUREMENT_COLUMNS)]
V1["summary"] = V1["identity"] + V1["summary_measurement"]
V1_TABLE_COLUMNS = {"raw": V1["raw"], "summary": V1["summary"]}
V1_META_REQUIRED = {k: t for k, t in META_REQUIRED.items() if k != "contract_version"}


# ---------------------------------------------------------------- Markdown

def _cell(text):
    return text.replace("|", "\\|")


def _code_list(names):
    return ", ".join(f"`{n}`" for n in names)


def _column_row(name):
    col = COLUMNS[name]
    notes = []
    if col.get("nonempty"):
        notes.append("non-empty")
    if col.get("optional"):
        notes.append("may be empty")
    if "enum" in col:
        named = f" (enum `{col['enum']}`)" if isinstance(col["enum"], str) else ""
        notes.append(" \\| ".join(f"`{v}`" for v in ENUMS[name]) + named)
    if SINCE[name] > 2:
        notes.append(f"since version {SINCE[name]}")
    where = "core" if name not in SHAPE_OWNERS else ", ".join(f for f in FAMILIES if f in SHAPE_OWNERS[name])
    return (f"| `{name}` | {col['type']} | {col.get('unit', '')} | {where} | {'; '.join(notes)} "
            f"| {_cell(col['about'])} |")


def _template_text(parts):
    """A label template as text: its strings, a condition as [if C: A else B]."""
    out = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        else:
            other = f" else {_template_text([part['else']])}" if part.get("else") is not None else ""
            out.append(f"[if {part['if']}: {_template_text([part['then']])}{other}]")
    return "".join(out)


def _family_fact(field, value):
    if field == "groups":
        return ", ".join(f"{g['name']} (`{g['size']}`, `{g['block']}`, `{g['bytes']}`)" for g in value) or "-"
    if field in ("shape_label", "point_label"):
        return f"`{_template_text(value)}`"
    if field == "library_calls":
        calls = [f"{coll} `{alg}`: {', '.join(names)}" for coll, algs in value["calls"].items()
                 for alg, names in algs.items()]
        return (f"{'; '.join(calls)} (on an {value['comm']}communicator)") if calls else "-"
    return _code_list(value) or "-"


def _wrap_columns(names, width=96):
    lines, line = [], ""
    for name in names:
        piece = name + ", "
        if len(line) + len(piece) > width:
            lines.append(line.rstrip())
            line = ""
        line += piece
    lines.append(line.rstrip().rstrip(","))
    return "\n".join(lines)


def markdown():
    """results/CONTRACT.md: the whole contract, rendered from contract.json and V1."""
    files = CONTRACT["files"]
    rule = CONTRACT["slice_rule"]
    out = [f"# collrepro results contract (version {VERSION})", "",
           "Generated from `contract/contract.json` by `collrepro-py contract markdown` "
           "(run from `python/`). Do not edit: change contract.json and regenerate.", "",
           CONTRACT["about"], "",
           "## Files", "", files["about"], "",
           f"- name: `{files['name']}` (pattern `{files['pattern']}`)",
           f"- temporary suffix while being written: `{files['temporary_suffix']}`",
           f"- compressed form (suffix `{COMPRESSED_SUFFIX}`): {files['compressed']['about']}"]
    out += [f"- `{kind}` (.{k['extension']}): {k['about']}" for kind, k in FILE_KINDS.items()]
    out += ["", "Slices: " + rule["about"], "",
            f"- begin = {rule['begin']}", f"- end = {rule['end']}",
            f"- Slurm array task = {rule['array_task']}", "",
            "## raw CSV columns (exact order, header row present)", "",
            "```", _wrap_columns(RAW_COLUMNS), "```", "",
            "## summary CSV columns (exact order, header row present)", "",
            "```", _wrap_columns(SUMMARY_COLUMNS), "```", "",
            CONTRACT["tables"]["empty_cells"], "",
            "## phases CSV columns (exact order, header row present; only with timing.phases)", "",
            CONTRACT["tables"]["phases"]["about"], "",
            "```", _wrap_columns(PHASES_COLUMNS), "```", "",
            "## Families", "",
            "| family | collectives | shape columns | about |", "|---|---|---|---|"]
    out += [f"| `{name}` | {_code_list(f['collectives'])} | {_code_list(f['shape'])} | {_cell(f['about'])} |"
            for name, f in FAMILIES.items()]
    read = [k for k in FAMILY_FIELDS if k not in ("about", "collectives", "shape")]
    out += ["", "How the tools read each family's points (no part of the files): "
            + "; ".join(f"`{k}`: {FAMILY_FIELDS[k]}" for k in read)
            + ". A label template's `[if C: A else B]` renders A when C holds, else B.", "",
            "| family | " + " | ".join(read) + " |", "|---" * (len(read) + 1) + "|"]
    out += [f"| `{name}` | " + " | ".join(_cell(_family_fact(k, f[k])) for k in read) + " |"
            for name, f in FAMILIES.items()]
    out += ["", "## Enums", "", CONTRACT["enums"]["about"], "",
            "| enum | C++ type | values | about |", "|---|---|---|---|"]
    out += [f"| `{name}` | `{CONTRACT['enums'][name]['cpp']}` | {_code_list(values)} | "
            f"{_cell(CONTRACT['enums'][name]['about'])} |" for name, values in ENUM_SETS.items()]
    out += ["", "## Columns", "",
            "`where`: core columns are filled in every row; a shape column only in the rows of "
            "the families named.", "",
            "| column | type | unit | where | values | about |", "|---|---|---|---|---|---|"]
    out += [_column_row(name) for name in RAW_COLUMNS + SUMMARY_MEASUREMENT_COLUMNS
            + [c for c in PHASES_COLUMNS if c not in RAW_COLUMNS]]
    out += ["", "## Meta JSON (one per launch and slice)", "",
            "Required keys and their types: "
            + ", ".join(f"`{k}` ({t})" for k, t in CONTRACT["meta"]["required"].items()) + ".", "",
            "| key | meaning |", "|---|---|"]
    out += [f"| `{k}` | {_cell(v)}"
            + (f" (written {_cell(META_SOMETIMES[k])})" if k in META_SOMETIMES else "")
            + (f"; keys {_code_list(META_NESTED[k])}" if k in META_NESTED else "") + " |"
            for k, v in META_KEYS.items()]
    out += ["", "Every other key is in every launch's metadata; none beyond these is written."]
    out += ["", "Algorithm names are the registry's (kebab-case); every meta lists the "
            "algorithms of its launch with their family, topology and kind "
            "(proposed, baseline or native).", "",
            "## Earlier versions", "",
            "A column marked \"since version N\" is absent from files of earlier versions. The "
            "Python tools read such files by adding it in memory: with the value the earlier "
            "version implies (arrival none, call blocking, pair_mode the sweep key's in the "
            "metadata's config, default intercomm), else empty (the analysis recomputes the "
            "statistics from the raw rows anyway); `analysis/analyze migrate "
            "DIR` rewrites a directory in the current version once, with fresh integrity "
            "records. collbench refuses to resume into a directory of another version.", "",
            "Version 6 changed no column: it bound every enumerated column to a named set of "
            "values (enums above; version 5 left placement, collective and mpi_impl open and "
            "promised a build.built_utc that collbench never wrote). A version 5 directory "
            "is read as version 6 when every value is in the sets (`migrate` rewrites its "
            "metadata's contract_version); otherwise the loader refuses it with one line "
            "naming the file, the line, the column and the value.", "",
            "### Version 1", "",
            "Result directories written before version 2 have no `contract_version` in their "
            "meta files. The Python tools read them by migrating them to the current version "
            "in memory (one note per directory on stderr); `analysis/analyze migrate DIR` "
            "rewrites such a directory once.", "",
            "raw CSV columns:", "", "```", _wrap_columns(V1["raw"]), "```", "",
            "summary CSV columns:", "", "```", _wrap_columns(V1["summary"]), "```", ""]
    out += [f"- {k}: {v}" for k, v in V1["meanings"].items()]
    out += [f"- meta JSON: {V1['meta']}", f"- absent in version 1: {V1['absent']}",
            f"- migration: {V1['migration']}", ""]
    return "\n".join(out)
