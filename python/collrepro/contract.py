"""The results contract (contract/contract.json), loaded once for every Python tool.

The C++ writer embeds the same file at build time, so a column, a type, an enum, a file
name or the slice rule exists in one place only. Version 1 (the format before the contract
became machine-readable) is described by V1 below, so that old result directories can still
be read and documented.

  python3 -m collrepro.contract --markdown     # results/CONTRACT.md (generated, do not edit)
"""

import json
import os
import re
import sys

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
ENUMS = {c: list(col["enum"]) for c, col in COLUMNS.items() if "enum" in col}

FAMILY_OF_COLLECTIVE = {coll: name for name, fam in FAMILIES.items() for coll in fam["collectives"]}
COLLECTIVES = list(FAMILY_OF_COLLECTIVE)
# Shape column -> the families that fill it (every other family leaves it empty).
SHAPE_OWNERS = {c: {name for name, fam in FAMILIES.items() if c in fam["shape"]} for c in SHAPE_COLUMNS}

_PY_TYPES = {"int": int, "str": str, "float": float, "bool": bool}
META_REQUIRED = {k: _PY_TYPES[t] for k, t in CONTRACT["meta"]["required"].items()}
META_KEYS = CONTRACT["meta"]["keys"]

FILE_RE = re.compile(CONTRACT["files"]["pattern"])
TMP_SUFFIX = CONTRACT["files"]["temporary_suffix"]
FILE_KINDS = CONTRACT["files"]["kinds"]
# Any kind may be stored compressed: <name><COMPRESSED_SUFFIX> holds exactly the bytes of <name>
# (collrepro.compact reads and writes both forms).
COMPRESSED_SUFFIX = CONTRACT["files"]["compressed"]["suffix"]
# The phases table (timing.phases): its own file kind, joined to raw on (experiment, launch,
# point, rep).
PHASES_COLUMNS = list(CONTRACT["tables"]["phases"]["columns"])


def family_of_collective(collective):
    try:
        return FAMILY_OF_COLLECTIVE[collective]
    except KeyError:
        raise KeyError(f"collective {collective!r} belongs to no family of the contract") from None


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
        notes.append(" \\| ".join(f"`{v}`" for v in col["enum"]))
    if SINCE[name] > 2:
        notes.append(f"since version {SINCE[name]}")
    where = "core" if name not in SHAPE_OWNERS else ", ".join(f for f in FAMILIES if f in SHAPE_OWNERS[name])
    return (f"| `{name}` | {col['type']} | {col.get('unit', '')} | {where} | {'; '.join(notes)} "
            f"| {_cell(col['about'])} |")


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
           "Generated from `contract/contract.json` by `python3 -m collrepro.contract --markdown` "
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
    out += [f"| `{k}` | {_cell(v)} |" for k, v in META_KEYS.items()]
    out += ["", "Algorithm names are the registry's (kebab-case); every meta lists the "
            "algorithms of its launch with their family, topology and kind "
            "(proposed, baseline or native).", "",
            "## Earlier versions", "",
            "A column marked \"since version N\" is absent from files of earlier versions. The "
            "Python tools read such files by adding it, empty, in memory (the analysis "
            "recomputes the statistics from the raw rows anyway); `analysis/analyze migrate "
            "DIR` rewrites a directory in the current version once, with fresh integrity "
            "records. collbench refuses to resume into a directory of another version.", "",
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


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv != ["--markdown"]:
        print("usage: python3 -m collrepro.contract --markdown", file=sys.stderr)
        return 2
    sys.stdout.write(markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
