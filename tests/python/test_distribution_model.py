"""The Eq. 5 model limit takes K_A and K_B from the data (bytes_a, bytes_b), not from a guess.

Before contract version 2 the analysis guessed an Allgatherv's distribution from ka > msg_bytes
and took K = ka (n+1)/2 (the arithmetic sequence): wrong for the random distribution.
"""

import csv

import pytest

import synthetic as S
from collrepro.analysis.frames import aggregate as A
from collrepro.analysis import cli
from collrepro.analysis.loading import loader
from collrepro.analysis.figures import figures
from collrepro.analysis.loading.migrate import old_guess
from collrepro.analysis.figures.models import eq5_limit
from collrepro.distributions import distribute

P, Q, SEED, SIZES = 7, 3, 3, [65536, 262144]


def true_sums(size):
    return sum(distribute("random", size, P, SEED)), sum(distribute("random", size, Q, SEED))


@pytest.fixture(scope="module")
def random_set(tmp_path_factory):
    pts = []
    for m in SIZES:
        shape = S.inter_shape("allgatherv", P, Q, m, (1, 1), "random", seed=SEED)
        mm = max(shape["bytes_a"], shape["bytes_b"])
        pts += [S.point(a, collective="allgatherv", cost_beta_bytes=f * mm, **shape)
                for a, f in (("fullduplex-allgatherv", 1.0), ("native", 4.0))]
    return S.write_result_set(tmp_path_factory.mktemp("random") / "set", pts, launches=2, reps=4,
                              time_fn=lambda pt, l, r: S.model_time(pt))


def test_the_old_guess_is_wrong_for_random():
    k_a, k_b = true_sums(SIZES[-1])
    ka, kb = max(distribute("random", SIZES[-1], P, SEED)), max(distribute("random", SIZES[-1], Q, SEED))
    guess_a, guess_b = old_guess(P, ka, SIZES[-1], kb)[1], old_guess(Q, kb, SIZES[-1], ka)[1]
    assert (guess_a, guess_b) != (k_a, k_b)
    assert eq5_limit(guess_a, guess_b) == pytest.approx(4.742, abs=1e-3)
    assert eq5_limit(k_a, k_b) == pytest.approx(4.475, abs=1e-3)


def test_improvement_limit_uses_bytes_a_and_bytes_b(random_set):
    agg = A.aggregate(loader.load([random_set]))
    assert set(agg["distribution"]) == {"random"} and set(agg["dist_seed"]) == {SEED}
    assert list(agg.drop_duplicates("msg_bytes")["bytes_a"]) == [true_sums(m)[0] for m in SIZES]
    table = figures.improvement_table(figures._seed001_data(agg))
    assert table["eq5_limit"].tolist() == pytest.approx([eq5_limit(*true_sums(SIZES[-1]))] * len(table))
    assert set(table["setting"]) == {f"allgatherv fully-connected {P}:{Q}, random (seed {SEED})"}


def test_report_and_efficiency_carry_the_true_sums(random_set, tmp_path):
    assert cli.main(["report", str(random_set), "-o", str(tmp_path / "r")]) == 0
    text = (tmp_path / "r" / "report.md").read_text()
    assert f"Eq. 5 model limit of the improvement over root gathering: {eq5_limit(*true_sums(SIZES[-1])):.2f}" in text
    rows = list(csv.DictReader(open(tmp_path / "r" / "overlay" / "efficiency.csv")))
    assert {(int(r["msg_bytes"]), int(r["bytes_a"]), int(r["bytes_b"])) for r in rows} == \
        {(m, *true_sums(m)) for m in SIZES}
    assert {r["distribution"] for r in rows} == {"random"}
