"""Aggregation: Tukey filter, per-launch medians, median of medians, speedups, settings."""

import shutil

import numpy as np
import pandas as pd
import pytest

import synthetic as S
from collrepro.analysis.frames import aggregate as A
from collrepro.analysis import cli
from collrepro.analysis.loading import loader
from collrepro.analysis.figures.models import eq5_limit

BASE = [1.0 + 0.01 * i for i in range(19)]          # median 1.09
OFFSET = {0: 0.0, 1: 0.5, 2: 0.2}                     # launch medians 1.09, 1.59, 1.29


def planted(pt, launch, rep):
    """19 regular values per launch; rep 19 of launch 0 is a far outlier."""
    if rep == 19:
        return 100.0 if launch == 0 else 1.09 + OFFSET[launch]
    return BASE[rep] + OFFSET[launch]


@pytest.fixture(scope="module")
def one_point(tmp_path_factory):
    pts = [S.point("torus", collective="neighbor-alltoall", topology="torus",
                   neighborhood="moore:d=2,r=1", dims="4x4", msg_bytes=64)]
    return S.write_result_set(tmp_path_factory.mktemp("one") / "set", pts, launches=3, reps=20,
                              time_fn=planted)


def test_tukey_removes_planted_outlier(one_point):
    per = A.per_launch(loader.load([one_point])).sort_values("launch")
    first = per.iloc[0]
    assert first["n"] == 20 and first["n_kept"] == 19
    assert first["max"] == pytest.approx(1.18)
    assert first["median"] == pytest.approx(1.09, abs=1e-12)       # unfiltered would be 1.095
    assert per["median"].tolist() == pytest.approx([1.09, 1.59, 1.29])
    assert per["n_kept"].tolist() == [19, 20, 20]


def test_median_of_medians_and_min_max_exact(one_point):
    agg = A.aggregate(loader.load([one_point]))
    assert len(agg) == 1
    row = agg.iloc[0]
    assert row["n_launches"] == 3
    assert row["median"] == pytest.approx(1.29, abs=1e-12)
    assert row["min"] == pytest.approx(1.09, abs=1e-12)
    assert row["max"] == pytest.approx(1.59, abs=1e-12)


def test_even_launch_count_takes_mean_of_middle(tmp_path):
    pts = [S.point("native", p=2, q=2, ka=8, kb=8, msg_bytes=8)]
    d = S.write_result_set(tmp_path / "set", pts, launches=4, reps=5,
                           time_fn=lambda pt, l, r: [1.0, 2.0, 4.0, 8.0][l])
    row = A.aggregate(loader.load([d])).iloc[0]
    assert (row["median"], row["min"], row["max"]) == (3.0, 1.0, 8.0)


def test_invalid_repetitions_are_ignored(tmp_path):
    pts = [S.point("native", p=2, q=2, ka=8, kb=8, msg_bytes=8)]
    d = S.write_result_set(tmp_path / "set", pts, launches=1, reps=6,
                           time_fn=lambda pt, l, r: 50.0 if r < 3 else float(r),
                           valid_fn=lambda pt, l, r: 0 if r < 3 else 1)
    row = A.per_launch(loader.load([d])).iloc[0]
    assert (row["n"], row["n_invalid"], row["n_kept"], row["median"]) == (6, 3, 3, 4.0)


def test_k_is_taken_from_the_summary(tmp_path):
    # values 0..19 (IQR 9.5) plus 37: kept with k=3 (upper fence 42.75), dropped with k=1.
    times = list(range(19)) + [37.0]
    pts = [S.point("native", p=2, q=2, ka=8, kb=8, msg_bytes=8)]
    for k, kept in ((3.0, 20), (1.0, 19)):
        d = S.write_result_set(tmp_path / f"k{k}", pts, launches=1, reps=20, k=k,
                               time_fn=lambda pt, l, r: times[r])
        row = A.per_launch(loader.load([d])).iloc[0]
        assert row["k"] == k and row["n_kept"] == kept


def test_summary_only_directory_uses_summary_medians(tmp_path, one_point):
    d = tmp_path / "copy"
    shutil.copytree(one_point, d)
    for raw in d.glob("raw-*.csv"):
        raw.unlink()
    agg = A.aggregate(loader.load([d]))
    assert agg.iloc[0]["median"] == pytest.approx(1.29)


def test_two_directories_keep_their_launches_apart(tmp_path, one_point):
    other = tmp_path / "again"
    shutil.copytree(one_point, other)
    agg = A.aggregate(loader.load([one_point, other]))
    assert agg.iloc[0]["n_launches"] == 6


def test_speedup_is_baseline_over_proposed(tmp_path):
    d = S.write_result_set(tmp_path / "set", S.seed000_points(), launches=2, reps=5,
                           time_fn=lambda pt, l, r: S.model_time(pt))
    agg = A.aggregate(loader.load([d]))
    sp = A.speedup_series(agg, "root-gathering", "halfduplex-fc")
    assert len(sp) == 6
    for row in sp.itertuples():
        base = agg[(agg.algorithm == "root-gathering") & (agg.p == row.p) & (agg.msg_bytes == row.msg_bytes)]
        prop = agg[(agg.algorithm == "halfduplex-fc") & (agg.p == row.p) & (agg.msg_bytes == row.msg_bytes)]
        assert row.speedup == pytest.approx(base["median"].iloc[0] / prop["median"].iloc[0])
        assert row.speedup > 1.0
    ring = A.speedup_series(agg, "ring-allgather", "halfduplex-ring")
    assert len(ring) == 3 and not len(A.speedup_series(agg, "root-gathering", "halfduplex-ring"))


def test_derived_and_configured_settings(tmp_path):
    pts = S.seed001_points(sizes=[4096])
    d = S.write_result_set(tmp_path / "derived", pts, launches=1, reps=3)
    settings = set(A.aggregate(loader.load([d]))["setting"])
    assert settings == {"allgather fully-connected 4:4, kA:kB=1:1",
                        "allgather fully-connected 10:4, kA:kB=4:1",
                        "allgatherv fully-connected 4:4, kA:kB=1:1"}
    config = {"settings": [{"name": "setting 3", "collective": "allgather", "block_ratio": "4:1"},
                           {"name": "setting 1", "collective": "allgather", "p": 4, "q": 4}]}
    d = S.write_result_set(tmp_path / "named", pts, launches=1, reps=3, config=config)
    agg = A.aggregate(loader.load([d]))
    named = dict(zip(agg["collective"] + agg["block_ratio"], agg["setting"]))
    assert named["allgather4:1"] == "setting 3" and named["allgather1:1"] == "setting 1"
    assert named["allgatherv1:1"].startswith("allgatherv fully-connected")


@pytest.mark.parametrize("dist,label", [("arithmetic", "arithmetic"), ("random", "random (seed 5)")])
def test_allgatherv_setting_names_the_distribution(dist, label):
    row = S.point("native", collective="allgatherv",
                  **S.inter_shape("allgatherv", 4, 4, 1280, distribution=dist, seed=5))
    agg = A.add_settings(pd.DataFrame([dict(row, point=0)]))
    assert agg.iloc[0]["setting"] == f"allgatherv fully-connected 4:4, {label}"
    assert A.shape_label(agg.iloc[0]).endswith(label)


@pytest.mark.parametrize("p,q,ratio,dist,expected", [
    (32, 32, (1, 1), "equal", 7.0),          # setting 1 / 5
    (25, 7, (1, 1), "equal", 4.84),          # setting 2 / 7
    (25, 7, (4, 1), "equal", 4.21),          # setting 3: kA = 4 kB
    (25, 7, (1, 4), "equal", 6.68),          # setting 4: kB = 4 kA
    (32, 32, (1, 1), "arithmetic", 7.0),     # setting 6
])
def test_eq5_limit_matches_the_paper(p, q, ratio, dist, expected):
    shape = S.inter_shape("allgatherv", p, q, 1 << 20, ratio, dist)
    assert eq5_limit(shape["bytes_a"], shape["bytes_b"]) == pytest.approx(expected, abs=0.005)


def test_ratio_label_tolerates_rounding():
    assert A.ratio_label(4096, 1024) == "4:1"
    assert A.ratio_label(4097, 1024) == "4:1"
    assert A.ratio_label(100, 0) == "1:0"
    assert np.isclose(eq5_limit(50 * 4096, 14 * 4096), (50 + 150 + 42) / 50)


def test_scheduler_ticks_flag_quantized_times_only(tmp_path):
    """Times on multiples of a 4 ms tick are flagged; a steady time near one multiple of a
    tick, times spread evenly, and microsecond times are not."""
    def times(pt, launch, rep):
        alg = pt["algorithm"]
        if alg == "halfduplex-fc":                      # 48, 52, 56, 60 ms: on the 4 ms tick
            return 0.048 + 0.004 * (rep % 4) + 1e-5 * (rep % 3)
        if alg == "root-gathering":                     # steady 2.0004 ms: near one 1 ms multiple
            return 0.0020004 + 1e-7 * (rep % 5)
        if alg == "native":                             # spread evenly over 10-30 ms
            return 0.010 + 0.020 * ((rep * 7919) % 97) / 97
        return S.model_time(pt)                        # microseconds
    d = S.write_result_set(tmp_path / "set", S.seed000_points(), launches=2, reps=40, time_fn=times)
    agg = A.aggregate(loader.load([d]))
    tick = agg.groupby("algorithm")["tick_s"].agg(lambda s: set(s.dropna()))
    assert tick["halfduplex-fc"] == {0.004}
    assert tick["root-gathering"] == set() and tick["native"] == set()
    assert tick["halfduplex-ring"] == set() and tick["ring-allgather"] == set()
    assert cli.main(["report", str(d), "-o", str(tmp_path / "rep")]) == 0
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "Warning: 6 of 21 points have repetition times clustered on multiples of a scheduler tick (4 ms)" in text
