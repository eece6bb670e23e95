"""Each family is described once, in contract/contract.json's "families" entries, and read
through collrepro.contract: no module of the package switches on a family's name.

- no module under python/collrepro/ (contract.py and contract_files.py aside, which read and
  render the contract) spells a family name as a string literal (docstrings aside): a test
  against one is a switch the contract should hold; the few literals that are a word of another
  vocabulary are listed below with their count;
- every family entry has every field the code reads (contract.FAMILY_FIELDS) and no other, and
  each field names what exists: the family's own shape columns, the label fields the analysis
  derives, colltune's situation keys, the delay mode's calls, catalogue algorithms of the
  family's collectives that are the library's own (native) calls;
- the label templates and the rules read from them give, for a point of each family, what the
  family's description says.

Run: /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python/test_family_facts.py (about 2 s)
"""

import ast
import pathlib

import pytest

import synthetic as S
from collrepro import catalogue
from collrepro import contract as C
from collrepro.analysis import tune
from collrepro.analysis.frames import aggregate as A
from collrepro.installations import delay

PACKAGE = pathlib.Path(C.__file__).resolve().parent
READERS = {"contract.py", "contract_files.py"}
# Literals equal to a family name that mean something else: (module, literal) -> count.
OTHER_WORDS = {
    ("installations/slowlib.py", "intra"): 1,    # COMM intra: the communicator kind of a slowlib rule
    ("studies/timing.py", "intra"): 1,           # a figure label: the intracommunicator runs
}
FAMILY_NAMES = set(C.FAMILIES)


def _docstrings(tree):
    nodes = [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                   ast.ClassDef))]
    return {id(n.body[0].value) for n in nodes
            if n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}


def family_literals(path):
    """[(line, literal)]: the string constants of a module equal to a family name."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    docs = _docstrings(tree)
    return sorted((n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in FAMILY_NAMES
            and id(n) not in docs)


def test_no_module_spells_a_family_name():
    found, counts = [], {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in READERS:
            continue
        for line, literal in family_literals(path):
            counts[(rel, literal)] = counts.get((rel, literal), 0) + 1
            if (rel, literal) not in OTHER_WORDS:
                found.append(f"{rel}:{line}: {literal!r}")
    assert not found, ("family names spelled outside the contract (put the fact in the family's "
                       "contract entry and look it up): " + "; ".join(found))
    assert {k: counts.get(k, 0) for k in OTHER_WORDS} == OTHER_WORDS, "a listed other-word literal moved"


def test_the_scan_sees_a_switch(tmp_path):
    """The scan is not blind: a switch on a family name, in any of its forms, is found."""
    module = tmp_path / "m.py"
    module.write_text('"""isomorphic"""\n'
                      'def f(row):\n    """intra"""\n'
                      '    if row["family"] == "inter-group":\n        return 1\n'
                      '    return {"isomorphic": 2}.get(row["family"], row["family"] in ("intra",))\n')
    assert family_literals(module) == [(4, "inter-group"), (6, "intra"), (6, "isomorphic")]


@pytest.mark.parametrize("name", list(C.FAMILIES))
def test_each_family_has_every_field_the_code_reads(name):
    entry = C.FAMILIES[name]
    assert sorted(entry) == sorted(C.FAMILY_FIELDS), f"{name}: fields {sorted(entry)}"
    shape = set(entry["shape"])
    for group in entry["groups"]:
        assert sorted(group) == ["block", "bytes", "name", "size"]
        assert {group["size"], group["block"], group["bytes"]} <= shape, group
    assert entry["message_bytes"] and set(entry["message_bytes"]) <= shape
    readable = shape | set(C.IDENTITY_COLUMNS) - set(C.SHAPE_COLUMNS) | set(A.DERIVED_FIELDS)
    for template in ("shape_label", "point_label"):
        fields = set(C.label_fields(entry[template]))
        assert fields and fields <= readable, f"{name}.{template}: {sorted(fields - readable)}"
    assert "shape_label" not in C.label_fields(entry["shape_label"])
    for key in entry["situation"]:
        assert key in tune.SITUATION_KEYS or key in shape | {"collective"}, f"{name}: situation key {key}"
    calls = entry["library_calls"]
    assert calls["comm"] in ("inter", "intra") and set(calls["calls"]) <= set(entry["collectives"])


def test_library_calls_are_native_catalogue_algorithms_and_known_calls():
    by_name = {(a["collective"], a["name"]): a for a in catalogue.load()["algorithms"]}
    for name, entry in C.FAMILIES.items():
        for collective, algorithms in entry["library_calls"]["calls"].items():
            for algorithm, calls in algorithms.items():
                known = by_name.get((collective, algorithm))
                assert known and known["family"] == name and known["kind"] == "native", (collective, algorithm)
                assert calls and set(calls) <= set(delay.CALLS), (algorithm, calls)


def _point(collective, **fields):
    return S.point("native", collective, **fields)


@pytest.mark.parametrize("fields, shape, label", [
    ({"collective": "allgather", "p": 4, "q": 2, "ka": 4096, "kb": 1024},
     "4:2, kA:kB=4:1", "allgather fully-connected 4:2, kA:kB=4:1"),
    ({"collective": "allgather", "p": 4, "q": 2, "ka": 4096, "kb": 0},
     "4:2, kA:kB=1:0", "allgather fully-connected 4:2, half-duplex"),
    ({"collective": "allgatherv", "p": 2, "q": 2, "ka": 100, "kb": 50, "bytes_a": 200, "bytes_b": 50,
      "distribution": "random", "dist_seed": 3},
     "2:2, kA:kB=4:1, random (seed 3)", "allgatherv fully-connected 2:2, random (seed 3)"),
    ({"collective": "neighbor-alltoall", "neighborhood": "moore:d=2,r=1", "dims": "4x4"},
     "moore:d=2,r=1 on 4x4", "neighbor-alltoall moore:d=2,r=1 on 4x4"),
    ({"collective": "intra-gather", "distribution": "arithmetic", "root": 3},
     "arithmetic, root 3", "intra-gather arithmetic, root 3"),
    ({"collective": "intra-allgather", "distribution": "equal", "root": None},
     "equal", "intra-allgather equal"),
])
def test_labels_follow_the_family_templates(fields, shape, label):
    row = _point(**fields)
    row["block_ratio"] = A.block_ratio(row)
    assert A.shape_label(row) == shape
    assert A._derived_label(row) == label


def test_the_rules_read_from_the_families():
    inter = _point("allgather", p=6, q=2, ka=0, kb=512, call="nonblocking")
    assert tune.situation(inter) == ("collective=allgather", "call=nonblocking", "groups=6:2", "duplex=half")
    assert (tune.senders(inter), tune.msg_size(inter), C.message_bytes(inter)) == (2, 512, 512)
    iso = _point("neighbor-alltoall", neighborhood="von-neumann:d=2,r=1", block_max=64)
    assert tune.situation(iso) == ("collective=neighbor-alltoall", "call=blocking",
                                   "neighborhood=von-neumann:d=2,r=1")
    assert tune.senders(iso) is None and tune.msg_size(iso) == 64
    assert tune.situation(_point("intra-bcast")) is None
    assert C.library_calls("isomorphic", "neighbor-alltoall", "mpi-neighbor-remapped") == (
        "neighbor_alltoall", "neighbor_alltoallv")
    assert C.library_calls("inter-group", "allgather", "halfduplex-fc") == ()
