"""The statistics behind every verdict (python/collrepro/analysis/verdicts/stats.py, docs/verdicts.md): the
interval's true coverage by simulation, Benjamini-Hochberg against a hand-computed case, the
false-change rate on a flat history, the two gates, and the scheduler-tick detector of
comparability.py."""

import math

import numpy as np
import pytest

from collrepro.analysis.verdicts import comparability as C
from collrepro.analysis.verdicts import stats
from collrepro.analysis.verdicts import verdicts as V


def test_bh_matches_a_hand_computed_case():
    # m = 4 (the NaN is no test): sorted p 0.005, 0.01, 0.03, 0.04 -> p*m/rank 0.02, 0.02, 0.04,
    # 0.04; the step-up minimum from the top keeps them.
    q = stats.bh_qvalues([0.01, 0.04, 0.03, 0.005, math.nan])
    assert q[:4] == pytest.approx([0.02, 0.04, 0.04, 0.02]) and math.isnan(q[4])
    # Monotone: 0.6*3/1 = 1.8 and 0.7*3/2 = 1.05 fall to the 0.8 of the largest p.
    assert stats.bh_qvalues([0.7, 0.6, 0.8]) == pytest.approx([0.8, 0.8, 0.8])
    assert stats.bh_qvalues([0.02, 0.9]) == pytest.approx([0.04, 0.9])
    assert (stats.bh_qvalues(np.linspace(0.5, 1.0, 7)) <= 1.0).all()


def test_hl_order_is_the_exact_level_not_one_inward():
    # 5+5: P(U <= 2) = 4/252, so [d_(3), d_(23)] covers 1 - 8/252 = 96.8 %; the old interval,
    # one order statistic further in, covered 1 - 14/252 = 94.4 % and was called 95 %.
    assert stats.hl_order(5, 5) == (3, pytest.approx(1 - 8 / 252))
    assert stats.hl_order(4, 4) == (1, pytest.approx(1 - 2 / 70))
    assert stats.hl_order(3, 3) == (0, 1.0)                      # no 95 % interval at 3+3
    assert stats.hl_order(3, 3, 0.80) == (2, pytest.approx(0.8))   # P(U <= 1) = 2/20
    for m, n in ((3, 4), (5, 5), (6, 6), (10, 10)):
        k, coverage = stats.hl_order(m, n)
        assert coverage >= 0.95 and (k == 0 or stats.hl_order(m, n, coverage + 1e-9)[0] < k)


def _coverage(m, n, level, ties, trials, rng):
    shift = 0.3                                    # the true log-ratio (x1.35)
    hits, nominal = 0, stats.hl_order(m, n, level)[1]
    for _ in range(trials):
        a, b = rng.normal(0, 0.2, m), rng.normal(0, 0.2, n)
        if ties:                                   # a grid of 0.1 on the log scale: many ties,
            a, b = np.round(a, 1), np.round(b, 1)  # still an exact shift (0.3 is on the grid)
        _, low, high, cov = stats.hl_interval(a, b + shift, level)
        assert cov == nominal
        hits += math.log(low) - 1e-9 <= shift <= math.log(high) + 1e-9 if np.isfinite(high) else 1
    return hits / trials, nominal


@pytest.mark.parametrize("m,n,level", [(3, 3, 0.95), (3, 3, 0.80), (5, 5, 0.95), (10, 10, 0.95)])
def test_interval_coverage_by_simulation_with_and_without_ties(m, n, level):
    rng = np.random.default_rng(1000 * m + n)
    trials = 1500
    slack = 3 * math.sqrt(0.05 * 0.95 / trials)
    exact, nominal = _coverage(m, n, level, False, trials, rng)
    assert abs(exact - nominal) <= slack, (exact, nominal)        # continuous: exactly the level
    tied, _ = _coverage(m, n, level, True, trials, rng)
    assert tied >= nominal - slack, (tied, nominal)              # ties: the closed interval, at least


def _flat_family(rng, points=200, launches=5):
    rows = []
    for _ in range(points):
        sd = rng.uniform(0.01, 0.1)                              # each point its own noise
        base = rng.uniform(1e-6, 1e-2)
        rows.append(stats.measure(base * np.exp(rng.normal(0, sd, launches)),
                                  base * np.exp(rng.normal(0, sd, launches)), 4))
    return stats.decide_family(rows, [(True, "")] * points)


def test_a_flat_history_of_200_points_gives_no_change_in_95_of_100_runs():
    rng = np.random.default_rng(25)
    runs_with_change = 0
    for _ in range(100):
        verdicts = [r["verdict"] for r in _flat_family(rng)]
        runs_with_change += any(v in V.CHANGED for v in verdicts)
    assert runs_with_change <= 5


def test_the_two_gates():
    flat = stats.measure([1.0, 1.01, 0.99, 1.0, 1.005], [1.0, 1.0, 1.01, 0.995, 1.0], 4)
    assert stats.decide(flat, 0.5, True)["verdict"] == V.SAME
    slow = stats.measure([1.0, 1.01, 0.99, 1.0, 1.005], [1.5, 1.52, 1.49, 1.5, 1.51], 4)
    assert slow["ci_low"] > 1.4 and slow["p_value"] < 1e-6
    assert stats.decide(slow, 0.001, True)["verdict"] == V.REGRESSION
    # One rule in both designs: a clear interval is a change whatever the trimmed t's q says...
    assert stats.decide(slow, 0.2, True)["verdict"] == V.REGRESSION
    # ... at the family's level: in a family of 20 with one rejection (99.75 %), 5 + 5 launches
    # have no interval (they reach 99.2 %), so no change, and the reason says why.
    late = stats.decide(slow, 0.2, True, level=stats.family_level([0.001] + [0.5] * 19))
    assert late["verdict"] == V.INCONCLUSIVE and late["reason"].startswith(f"{stats.REFUSED} for a 99.8% interval")
    assert late["tripped"]
    other = stats.decide(slow, 0.001, False, "device ch3:nemesis vs ch4:ucx")
    assert other["verdict"] == V.NOT_COMPARABLE and "ch4:ucx" in other["reason"]
    # A 6 % shift whose interval reaches below the threshold: inconclusive, it straddles.
    noisy = stats.measure([1.0, 1.1, 0.9, 1.05, 0.95], [1.06, 1.16, 0.96, 1.11, 1.01], 4)
    d = stats.decide(noisy, 0.01, True)
    assert d["verdict"] == V.INCONCLUSIVE and "straddles" in d["reason"]
    assert d["threshold"] > 0.05 and d["mde"] >= d["threshold"]   # the noise floor raised it
    refused = stats.decide(stats.measure([1, 2, 3], [4, 5, 6], 4), 0.01, True)
    assert refused["verdict"] == V.INCONCLUSIVE and refused["reason"].startswith(stats.REFUSED)
    assert set(V.ROW_COLUMNS) <= set(d)


def test_the_permutation_p_is_exact_for_small_samples():
    # 5+5 completely separated: 2 of the 252 relabellings are as extreme.
    assert stats.permutation_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]) == pytest.approx(2 / 252)
    assert stats.permutation_p([1, 1, 1], [1, 1, 1]) == 1.0


def test_tick_quantisation_is_detected_on_synthetic_data():
    rng = np.random.default_rng(4)
    on_ticks = 0.004 * np.array([2, 2, 4, 2, 6]) + rng.uniform(-4e-5, 4e-5, 5)
    assert "multiples of 4 ms" in C.tick_bound(on_ticks)
    assert "multiples of 1 ms" in C.tick_bound(0.001 * np.array([3, 5, 7, 3, 9]) + 1e-5)
    assert C.tick_bound(rng.uniform(2e-6, 9e-6, 5)) == ""          # microseconds: below one tick
    assert C.tick_bound(rng.uniform(0.0011, 0.0019, 5)) == ""      # off the grid
    assert C.tick_bound([0.008, 0.0123, 0.0171, 0.0135, 0.0191]) == ""   # 1 of 5 is not a share


def test_comparability_from_metadata():
    ucx = {"machine": "vm; AMD EPYC", "hwloc": {"cores": 2}, "mpi_library": "MPICH Device:\tch4:ucx",
           "oversubscription": {"oversubscribed": False, "ranks_per_core": 1.0}}
    ch3 = dict(ucx, mpi_library="MPICH Version: 3.4.1\nMPICH Device:\tch3:nemesis")
    assert C.comparable([ucx], [ucx]) == (True, [])
    ok, reasons = C.comparable([ch3], [ucx], name_a="3.4.1", name_b="4.0.2")
    assert not ok and reasons == ["device ch3:nemesis vs ch4:ucx"]
    over = dict(ucx, oversubscription={"oversubscribed": True, "ranks_per_core": 2.0})
    assert C.comparable([ucx], [over], name_b="B")[1] == ["B oversubscribed (2 ranks per core)"]
    assert C.comparable([ucx], [dict(ucx, machine="other")])[1] == ["different machine"]
    assert C.comparable([ucx], [ucx], [0.008] * 5, [1e-5] * 5, "A", "B")[1][0].startswith("A tick-bound")


def test_one_disturbed_launch_does_not_lift_the_noise_floor():
    """Nine launches within 1 % and one 3x slower (a scheduler hiccup): the floor stays near 1 %,
    where the plain pooled sd would put it above 40 % and hide any change smaller than that."""
    before = np.log([1.00, 1.01, 0.99, 1.00, 3.0])
    after = np.log([1.20, 1.21, 1.19, 1.20, 1.21])
    assert stats.noise_floor(before, after) < 0.03


def test_the_gating_test_is_yuens_trimmed_t_and_one_wild_launch_does_not_hide_a_change():
    """A 12 % slowdown measured over 16 + 16 launches, two launches of each side disturbed 3x (the
    calibration saw such launches): Welch's t loses it (p > 0.2), the 20 % trimmed t keeps it."""
    from scipy import stats as sps
    rng = np.random.default_rng(7)
    before = np.log(1.0 + 0.01 * rng.standard_normal(16))
    after = np.log(1.12 + 0.01 * rng.standard_normal(16))
    before[[3, 9]] += np.log(3.0)
    after[[5, 11]] += np.log(3.0)
    p, _, _ = stats.trimmed_t(before, after)
    assert p == pytest.approx(sps.ttest_ind(before, after, equal_var=False, trim=0.2).pvalue, rel=1e-9)
    assert p < 1e-6
    assert stats.trimmed_t(before, after, trim=0.0)[0] > 0.2        # Welch's t


def test_same_needs_a_margin_small_enough_to_mean_something():
    """Launches in two modes, 1 and 2 (the calibration saw such bimodal launches): the interval of
    the ratio is tight around 1 but the noise floor is about 70 %, so 'the same' would promise
    nothing: inconclusive, too noisy."""
    modes = [1.0, 2.0] * 8
    row = stats.measure([m * (1 + 0.001 * i) for i, m in enumerate(modes)],
                        [m * (1 + 0.001 * i) for i, m in enumerate(reversed(modes))], need=4)
    assert 0.9 < row["ci_low"] <= row["ci_high"] < 1.1
    assert row["threshold"] > stats.SAME_LIMIT
    decided = stats.decide(row, q=0.9, comparable=True)
    assert decided["verdict"] == V.INCONCLUSIVE and "too noisy" in decided["reason"]


def test_unpaired_intervals_take_the_familys_level_and_decide_alone():
    """One rule for both designs: every unpaired row's Hodges-Lehmann interval is at the family's
    BH level, and an interval wholly beyond the threshold is a change (the trimmed t's q no
    longer vetoes it)."""
    rng = np.random.default_rng(3)
    rows = [stats.measure(np.exp(rng.normal(0, 0.01, 10)),
                          np.exp(rng.normal(math.log(1.5) if i == 0 else 0.0, 0.01, 10)), 4)
            for i in range(10)]
    out = stats.decide_family(rows, [(True, "")] * 10)
    level = stats.family_level([o["q_value"] for o in out])
    assert level == pytest.approx(0.995)
    assert all(o["ci_level"] >= level for o in out)
    assert out[0]["verdict"] == V.REGRESSION
    assert all(o["verdict"] != V.REGRESSION for o in out[1:])
    # A clear interval with a q above alpha is a change (the row is decided alone at 95 %).
    assert stats.decide(rows[0], 0.5, True)["verdict"] == V.REGRESSION
