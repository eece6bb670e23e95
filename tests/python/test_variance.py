"""analysis.verdicts.variance: the split of a point's launch-median spread into the launches' own
part and the repetitions' part, on synthetic launches of known components (no MPI)."""

import math

import numpy as np
import pandas as pd
import pytest

from collrepro.analysis.verdicts import variance


def launches(rng, n_launches, reps, launch_sd, rep_sd):
    """Log-normal repetition times: a launch level drawn with launch_sd, repetitions around it."""
    return [np.exp(-10 + rng.normal(0, launch_sd) + rng.normal(0, rep_sd, reps)) for _ in range(n_launches)]


def test_components_recover_a_known_split():
    rng = np.random.default_rng(7)
    got = variance.point_components(launches(rng, 400, 40, launch_sd=0.03, rep_sd=0.06))
    # a median's SD from n normal repetitions: sqrt(pi / 2) sigma / sqrt(n)
    within = math.sqrt(math.pi / 2) * 0.06 / math.sqrt(40)
    assert got["launch_sd"] == pytest.approx(0.03, rel=0.15)
    assert got["within_sd"] == pytest.approx(within, rel=0.15)
    assert got["within_share"] == pytest.approx(within ** 2 / (within ** 2 + 0.03 ** 2), abs=0.08)
    assert got["reps"] == 40 and got["launches"] == 400


def test_launches_alone_or_repetitions_alone():
    rng = np.random.default_rng(3)
    flat = variance.point_components(launches(rng, 300, 20, launch_sd=0.0, rep_sd=0.05))
    assert flat["within_share"] > 0.8 and flat["launch_sd"] < 0.01       # all of it is the repetitions
    steady = variance.point_components(launches(rng, 300, 20, launch_sd=0.05, rep_sd=0.001))
    assert steady["within_share"] < 0.01 and steady["reps_enough"] <= 2    # more repetitions buy nothing


def test_too_little_data_gives_no_components():
    got = variance.point_components([np.ones(20)])
    assert got["launches"] == 1 and math.isnan(got["launch_sd"])
    assert variance.point_components([np.ones(3), np.ones(3)])["launches"] == 0


def test_components_per_point_and_summary():
    rng = np.random.default_rng(1)
    rows = []
    for size in (1024, 65536):
        for launch, times in enumerate(launches(rng, 8, 10, 0.02, 0.02)):
            rows += [dict(experiment="e", algorithm="native", msg_bytes=size, source="d", launch=launch, rep=r,
                          time_s=t, valid=1) for r, t in enumerate(times)]
    rows.append(dict(experiment="e", algorithm="native", msg_bytes=1024, source="d", launch=0, rep=99,
                     time_s=1e3, valid=0))                                    # invalid: left out
    table = variance.components(pd.DataFrame(rows))
    assert list(table["msg_bytes"]) == [1024, 65536] and list(table["reps"]) == [10, 10]
    summary = variance.summarise(table)
    assert summary["points"] == 2 and summary["launches"] == 8 and summary["reps"] == 10
