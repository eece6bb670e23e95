"""collrepro-py versions forecast: its vectorised first pass against the shipped decision code
(stats.measure and decide_family, the paired design), and its bad input (no MPI)."""

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
    sd = F.sd_of_floor(floor)
    change = F.smallest_change(sd, n, m, power=0.9)
    assert 0.05 < change < 1.0
    found = _shipped_detection(change, sd, n, m, reps=120, seed=7)
    assert abs(found - 0.9) <= 0.10, (change, found)
    weaker = _shipped_detection(change / 2, sd, n, m, reps=60, seed=8)
    assert weaker < 0.8, (change / 2, weaker)         # the forecast is not loose either


def test_more_rounds_find_smaller_changes_and_the_target_rounds_meet_the_target():
    sd = F.sd_of_floor(0.03)
    assert F.smallest_change(sd, 32, 12) < F.smallest_change(sd, 16, 12) < F.smallest_change(sd, 8, 12)
    n = F.rounds_for(0.12, sd, 12)
    assert n is not None and F.smallest_change(sd, n, 12) <= 0.12 + 1e-3
    assert n == 4 or F.detect_rate(0.12, sd, n - 1, 12) < 0.9
    assert F.rounds_for(0.051, F.sd_of_floor(0.2), 72) is None       # noisier than any budget here


def _run(*args):
    return subprocess.run([str(REPO / "collrepro-py"), "versions", "forecast", *args], capture_output=True,
                          text=True, cwd=REPO)


@pytest.mark.parametrize("args, field", [(["/nonexistent"], "not a versions run"),
                                         (["results/versions/default-design/reports", "--target", "lots"], "--target"),
                                         (["results/versions/default-design/reports", "--target", "0%"], "--target"),
                                         (["results/versions/default-design/reports", "--rounds", "2"], "--rounds"),
                                         (["results/versions/default-design/reports", "--power", "1.5"], "--power")])
def test_bad_input_is_one_line_and_exit_2(args, field):
    p = _run(*args)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and field in p.stderr, p.stderr


def test_a_forecast_from_the_committed_default_design_run():
    p = _run("results/versions/default-design/reports", "--rounds", "8")
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("openmpi-4.1.4 -> ") >= 10 and "median smallest change found" in p.stdout


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
