"""The synchronization-method study's report: spread, invalid rate, oversubscription, residuals."""

import json

import pandas as pd
import pytest

from collrepro.studies import timing as ts
from collrepro.safeio import UserError

import synthetic


def write_block(root, method, np_, medians, invalid, oversubscribed, sync_s=0.001):
    """A block as timing-study run leaves it: contract summaries and metadata, no raw files (the
    report reads them through the loader)."""
    return synthetic.write_timing_block(root / method / f"np{np_}", medians, invalid, sync_s=sync_s,
                                        oversubscribed=oversubscribed)


def check_json(kind, np_, seconds):
    c = {"max_abs_offset_s": 1e-6, "max_error_s": 2e-6, "measured_ranks": np_ - 1, "max_sync_bound_s": 3e-6}
    return {"clock": "mpi-wtime", "clock_sync": kind, "nprocs": np_, "nodes": 1, "simulated": False,
            "sync_cost": {"seconds": seconds, "messages": 162 * (np_ - 1), "rounds": np_ - 1},
            "zero_residual_reason": None, "after_sync": c, "later": c, "later_s": 10.0,
            "drift_residual": None, "drift_resolution": 4e-7}


def test_report_spread_invalid_and_oversubscription(tmp_path):
    write_block(tmp_path, "barrier", 2, [1e-5, 1.2e-5, 1.1e-5], [0, 0, 0], False)
    write_block(tmp_path, "round-time", 8, [2e-5, 8e-5], [4, 0], True)
    (tmp_path / "residual").mkdir()
    (tmp_path / "residual" / "linear-np2.json").write_text(json.dumps(check_json("linear", 2, 1e-4)))
    assert ts.report(str(tmp_path), str(tmp_path / "out")) == 0
    study = pd.read_csv(tmp_path / "out" / "study.csv").set_index("method")
    assert study.loc["barrier", "spread"] == 1.2
    assert study.loc["barrier", "launches"] == 3
    assert study.loc["barrier", "oversubscribed"] == 0
    assert study.loc["barrier", "sync_s"] == 0.002  # the median of the launches' sync times
    assert study.loc["round-time", "spread"] == 4.0
    assert study.loc["round-time", "invalid_rate"] == 4 / 80  # n counts all 40 repetitions of a launch
    assert study.loc["round-time", "launches_under_half"] == 0
    assert study.loc["round-time", "oversubscribed"] == 1
    md = (tmp_path / "out" / "study.md").read_text()
    assert "| round-time | 8 (oversubscribed) |" in md
    assert "drift residual" in md and "| linear | 2 |" in md
    assert (tmp_path / "out" / "spread.png").stat().st_size > 10000


def test_sim_table_ratio(tmp_path):
    (tmp_path / "sim").mkdir(parents=True)
    for kind, secs in (("linear", 0.25), ("hierarchical", 0.0025)):
        j = check_json(kind, 1024, secs)
        j.update(platform="fake-platform.xml", ppn=1, wall_s=100.0)
        (tmp_path / "sim" / f"{kind}-np1024.json").write_text(json.dumps(j))
    write_block(tmp_path, "barrier", 2, [1e-5], [0], False)
    assert ts.report(str(tmp_path), str(tmp_path / "out")) == 0
    sim = (tmp_path / "out" / "sim.md").read_text()
    assert "| linear | 1024 x 1 ppn | fake-platform.xml | 250.000 ms | 165726 | 1023 | 100.0 |" in sim


def test_report_without_results_is_one_error(tmp_path):
    with pytest.raises(UserError, match="no study results"):
        ts.report(str(tmp_path), str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_invalid_share_counts_invalid_repetitions_once(tmp_path):
    """collbench's n is every repetition, the invalid ones included: 37 invalid of 40 is 92.5 %
    (the old formula, n + n_invalid in the denominator, said 48 %), and such a launch is flagged."""
    write_block(tmp_path, "window-linear", 4, [1e-5, 3.2e-4], [37, 0], True)
    ts.report(str(tmp_path), str(tmp_path / "out"))
    row = pd.read_csv(tmp_path / "out" / "study.csv").iloc[0]
    assert row["invalid_rate"] == pytest.approx(37 / 80)
    assert row["launches_under_half"] == 1
    assert ts.invalid_share(40, 37) == pytest.approx(0.925)
    assert ts.launches_under_half(pd.Series([40, 40, 40]), pd.Series([20, 21, 0])) == 1  # 20 of 40 is half: kept
    assert "**thin**: 1 of 2" in (tmp_path / "out" / "study.md").read_text()
