"""`collrepro-py sim root-cost` (python/collrepro/sim/validation/root_cost.py) on a committed set: the root rate it reports as closing a panel,
added back as one pass at both roots, gives the paper's speedup; a shape outside the paper's
panels gets no paper value."""
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SET = REPO / "results" / "sim" / "seed000-fc-256x1-flat-crossbar"


def _module():
    from collrepro.sim.validation import root_cost
    return root_cost


def _rows(text):
    return [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()[2:]]


def test_the_closing_rate_gives_back_the_papers_speedup():
    rc = _module()
    shapes = rc.shapes(str(SET))
    assert sorted((p, q) for p, q, *_ in shapes) == [(64, 192), (128, 128), (192, 64)]
    for row in _rows(rc.table([str(SET)], [])):
        p, q = map(int, row[1].split("/"))
        paper, rate = float(row[6]), float(row[9]) * 1e9
        again = _rows(rc.table([str(SET)], [rate]))
        back = next(r for r in again if r[1] == row[1])
        assert float(back[-1]) == pytest.approx(paper, abs=0.02), (p, q)


def test_a_faster_root_pass_adds_less():
    rc = _module()
    rows = _rows(rc.table([str(SET)], [5e9, 50e9]))
    for r in rows:
        simulated, slow, fast = float(r[5]), float(r[-2]), float(r[-1])
        assert simulated < fast < slow
