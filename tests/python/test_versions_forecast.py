"""The power of the paired design by simulation (stats.paired_detect_rate, behind collrepro-py
versions forecast and every row's `mde`) against the shipped decision code (stats.measure and
decide_family), and the forecast's bad input (no MPI)."""

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from collrepro.analysis.verdicts import stats
from collrepro.analysis.verdicts import verdicts as V
from collrepro.versions import forecast as F

REPO = Path(__file__).resolve().parents[2]


def _shipped_detection(change, sd, n, m, reps, seed):
    """The share of families (m points, one changed by `change`, the rest unchanged; n paired
    rounds with log-ratio sd `sd`) in which the shipped code calls the changed point a regression."""
    rng = np.random.default_rng(seed)
    keys = list(range(n))
    hits = 0
    for _ in range(reps):
        rows = []
        for i in range(m):
            a = 1e-4 * np.exp(0.1 * rng.standard_normal(n))
            d = (math.log1p(change) if i == 0 else 0.0) + sd * rng.standard_normal(n)
            rows.append(stats.measure(a, a * np.exp(d), need=4, rounds=(keys, keys)))
        out = stats.decide_family(rows, [(True, "")] * m)
        hits += out[0]["verdict"] == V.REGRESSION
    return hits / reps


@pytest.mark.parametrize("floor, n, m", [(0.02, 16, 12), (0.05, 10, 6)])
def test_the_forecast_change_is_found_about_as_often_as_forecast_by_the_shipped_code(floor, n, m):
    sd = stats.sd_of_floor(floor)
    change = stats.paired_smallest_change(sd, n, m, power=0.9)
    assert 0.05 < change < 1.0
    found = _shipped_detection(change, sd, n, m, reps=120, seed=7)
    assert abs(found - 0.9) <= 0.10, (change, found)
    weaker = _shipped_detection(change / 2, sd, n, m, reps=60, seed=8)
    assert weaker < 0.8, (change / 2, weaker)         # the forecast is not loose either


@pytest.mark.parametrize("n", [5, 16])
def test_a_rows_mde_is_found_with_its_power_as_the_lone_change_of_a_family_of_its_size(n):
    """`mde` means what it says: the median mde the shipped code reports for a family of 12 flat
    paired rows is found about 80 % of the time by the shipped code when it is the family's one
    change (the per-point formula it replaced stated 8.7 % at 16 rounds in a family of 72, which
    such a family finds 14 % of the time)."""
    rng = np.random.default_rng(11)
    sd, m, keys = stats.sd_of_floor(0.02), 12, list(range(n))
    rows = []
    for _ in range(m):
        a = 1e-4 * np.exp(0.1 * rng.standard_normal(n))
        rows.append(stats.measure(a, a * np.exp(sd * rng.standard_normal(n)), need=4, rounds=(keys, keys)))
    reported = float(np.median([r["mde"] for r in stats.decide_family(rows, [(True, "")] * m)]))
    found = _shipped_detection(reported, sd, n, m, reps=120, seed=12)
    assert abs(found - stats.POWER) <= 0.12, (reported, found)


def test_more_rounds_find_smaller_changes_and_the_target_rounds_meet_the_target():
    sd = stats.sd_of_floor(0.03)
    assert stats.paired_smallest_change(sd, 32, 12) < stats.paired_smallest_change(sd, 16, 12) < stats.paired_smallest_change(sd, 8, 12)
    n = F.rounds_for(0.12, sd, 12)
    assert n is not None and stats.paired_smallest_change(sd, n, 12) <= 0.12 + 1e-3
    assert n == 4 or stats.paired_detect_rate(0.12, sd, n - 1, 12) < 0.9
    assert F.rounds_for(0.051, stats.sd_of_floor(0.2), 72) is None       # noisier than any budget here


def _run(*args):
    return subprocess.run([str(REPO / "collrepro-py"), "versions", "forecast", *args], capture_output=True,
                          text=True, cwd=REPO)


@pytest.mark.parametrize("args, field", [(["/nonexistent"], "not a versions run"),
                                         (["results/versions/default-design/reports", "--target", "lots"], "--target"),
                                         (["results/versions/default-design/reports", "--target", "0%"], "--target"),
                                         (["results/versions/default-design/reports", "--rounds", "2"], "--rounds"),
                                         (["results/versions/default-design/reports", "--power", "1.5"], "--power"),
                                         (["results/versions/default-design/reports", "--changed", "0"], "--changed")])
def test_bad_input_is_one_line_and_exit_2(args, field):
    p = _run(*args)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and field in p.stderr, p.stderr


def test_a_forecast_from_the_committed_default_design_run():
    p = _run("results/versions/default-design/reports", "--rounds", "8")
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("openmpi-4.1.4 -> ") >= 10 and "median smallest change found" in p.stdout
    several = _run("results/versions/default-design/reports", "--rounds", "8", "--changed", "8")
    assert several.returncode == 0 and "one of 8 changed points" in several.stdout

    def median(out):
        return float(out.rsplit("median smallest change found: ", 1)[1].split(" %")[0])
    assert median(several.stdout) < median(p.stdout)       # BH is looser when several points change


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))


def test_a_run_compares_its_forecast_with_its_outcome():
    """What a `versions` run writes into <out>-reports/forecast.md: the committed default-design run
    as its own pilot and outcome (72 points at 16 rounds). Every point the outcome changed by at
    least its forecast change is counted, and the text says how many of those were found."""
    import pandas as pd
    reports = REPO / "results/versions/default-design/reports"
    earlier = F.earlier_pilot(reports)
    table = pd.read_csv(reports / "trend" / "regressions.csv")
    rows = F.outcome(earlier, table, 16)
    assert len(rows) == len(earlier) == 72
    expected = [r for r in rows if r["expected"]]
    assert expected and all(abs(math.log(r["ratio"])) >= math.log1p(r["forecast"]) for r in expected)
    text = F.outcome_text(rows, 16, 0.9, "results/versions/default-design/reports")
    assert f"{len(expected)} points changed by at least their forecast change, and " \
           f"{sum(r['found'] for r in expected)} of them were found" in text
    assert text.count("\n| ") == 72 + 1
    assert F.earlier_pilot(REPO / "results" / "no-such-run") is None
