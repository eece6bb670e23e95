"""The golden vectors of contract/golden (the slice rule, the block-size distributions and their
nominal sizes) against the Python rules; tests/driver/golden_test.cpp holds the C++ rules to the
same files. Regenerate after a deliberate change of a rule: ./collrepro-py contract golden, then both tests must pass."""

import json
from pathlib import Path

import pytest

from collrepro import contract as C
from collrepro import contract_files as G
from collrepro.distributions import distribute, nominal_sizes

REPO = Path(__file__).resolve().parents[2]
CHECK_RUN = REPO / "tests" / "slurm" / "check_run.py"


def golden(name):
    return json.loads((Path(G.GOLDEN_DIR) / name).read_text())


@pytest.mark.parametrize("name", sorted(G.GOLDEN))
def test_the_golden_file_is_what_the_generator_writes(name):
    """A rule changed without regenerating (or a file edited by hand) fails here."""
    assert (Path(G.GOLDEN_DIR) / name).read_text() == G.golden_text(name), \
        f"contract/golden/{name} is stale: run ./collrepro-py contract golden"


def test_slice_rule_matches_the_golden_cases():
    cases = golden("slice.json")["cases"]
    assert len(cases) > 100 and {c["t"] for c in cases} >= {1, 2, 3, 16}
    for c in cases:
        assert C.slice_range(c["n"], c["s"], c["t"]) == (c["begin"], c["end"]), c
        for point in range(c["begin"], c["end"]):
            assert C.slice_of(point, c["n"], c["t"]) == c["s"]
    assert C.slice_of(5, 5, 2) is None


def test_every_distribution_matches_the_golden_cases():
    data = golden("distributions.json")
    assert {c["distribution"] for c in data["cases"]} == set(C.ENUM_SETS["distribution"])
    assert len({c["seed"] for c in data["cases"] if c["distribution"] == "random"}) > 2
    for c in data["cases"]:
        assert list(distribute(c["distribution"], c["s"], c["n"], c["seed"])) == c["blocks"], c
    for c in data["nominal"]:
        assert nominal_sizes(c["size"], c["ka"], c["kb"]) == (c["s_a"], c["s_b"]), c


def test_golden_text_changes_when_a_rule_does(monkeypatch):
    """The staleness check above can fail: a rule off by one shows in the generated text."""
    before = G.golden_text("slice.json")
    monkeypatch.setattr(C, "slice_range", lambda n, s, t: (s, s + 1))
    assert G.golden_text("slice.json") != before


def test_check_run_uses_the_contract_slice_rule():
    """tests/slurm/check_run.py restates no rule: it calls collrepro.contract.slice_of."""
    text = CHECK_RUN.read_text()
    assert "C.slice_of(" in text and "divmod" not in text
