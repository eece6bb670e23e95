"""compare (two sets) and trend (N versions): the verdict labels and exit codes."""

import pandas as pd
import pytest

import synthetic as S
from collrepro.analysis import cli
from collrepro.analysis.verdicts import trend
from collrepro.analysis.verdicts import stats
from collrepro.analysis.loading import inventory

POINTS = [S.point(a, collective="neighbor-alltoall", topology="torus", neighborhood="moore:d=2,r=1",
                  dims="4x4", msg_bytes=m) for a in ("torus", "mpi-neighbor") for m in (8, 512)]


def timed(factor, wobble=0.004):
    """Model time x factor with launch-to-launch variation (distinct per-launch medians)."""
    return lambda pt, launch, rep: S.default_time(pt, launch, rep) * factor * (1 + wobble * launch)


def write(path, factor, launches=6, **kw):
    return S.write_result_set(path, POINTS, launches=launches, reps=8, time_fn=timed(factor), **kw)


def test_min_launches_for_significance():
    assert stats.min_p_value(3, 3) == pytest.approx(0.1)
    assert stats.min_p_value(4, 4) == pytest.approx(2 / 70)
    assert stats.min_launches(0.05) == 4
    # 3 + 3 launches give no 95 % interval: no verdict even where the launch minimum allows one.
    row = stats.decide_family([stats.measure([1.0, 1.01, 1.02], [1.5, 1.51, 1.52], 1)], [(True, "")])[0]
    assert row["verdict"] == "inconclusive" and row["reason"].startswith(stats.REFUSED), row


def test_compare_flags_30_percent_slowdown(tmp_path, capsys):
    a = write(tmp_path / "a", 1.0)
    b = write(tmp_path / "b", 1.3, mpi_impl="mpich", mpi_version="4.0.2")
    out = tmp_path / "out"
    assert cli.main(["compare", str(a), str(b), "-o", str(out)]) == 1
    table = pd.read_csv(out / "compare.csv")
    assert list(table["verdict"]) == ["regression"] * len(POINTS)
    assert table["ci_level"].sub(stats.hl_order(6, 6)[1]).abs().max() < 1e-12 and (table["ci_low"] > 1.05).all()
    assert (table["q_value"] >= table["p_value"]).all() and table["comparable"].all()
    report = (out / "report.md").read_text()
    assert "regression: 4" in report and "Benjamini-Hochberg" in report
    assert (out / "compare.png").stat().st_size > 0


def test_compare_same_for_no_change(tmp_path):
    a = write(tmp_path / "a", 1.0)
    b = write(tmp_path / "b", 1.0, mpi_version="4.1.5")
    assert cli.main(["compare", str(a), str(b), "-o", str(tmp_path / "out")]) == 0
    assert list(pd.read_csv(tmp_path / "out" / "compare.csv")["verdict"]) == ["same"] * len(POINTS)


def test_compare_few_launches_cannot_be_significant(tmp_path):
    a = write(tmp_path / "a", 1.0, launches=3)
    b = write(tmp_path / "b", 1.3, launches=3)
    # Even with --min-launches 2, 3 vs 3 launches cannot give a 95 % interval: no verdict, exit 4.
    assert cli.main(["compare", str(a), str(b), "-o", str(tmp_path / "out"), "--min-launches", "2"]) == 4
    table = pd.read_csv(tmp_path / "out" / "compare.csv")
    assert list(table["verdict"]) == ["inconclusive"] * len(POINTS)
    assert table["reason"].str.startswith("too few launches").all()


def test_compare_without_common_points_is_bad_input(tmp_path):
    a = write(tmp_path / "a", 1.0)
    b = S.write_result_set(tmp_path / "b", [S.point("native", p=2, q=2, ka=8, kb=8, msg_bytes=8)],
                           launches=2, reps=3)
    assert cli.main(["compare", str(a), str(b), "-o", str(tmp_path / "out")]) == 2


def test_version_sort_is_natural():
    versions = ["4.1.10", "4.2.0", "4.1.9", "4.2.0rc1", "4.1.2"]
    assert sorted(versions, key=inventory.version_key) == ["4.1.2", "4.1.9", "4.1.10", "4.2.0rc1", "4.2.0"]


def test_trend_names_first_regressing_version(tmp_path):
    history = ["4.1.2", "4.1.9", "4.1.10", "4.2.0rc1", "4.2.0"]     # regression from the 4th on
    dirs = []
    for i, version in enumerate(history):
        def time_fn(pt, launch, rep, i=i):
            slow = 1.3 if i >= 3 and pt["algorithm"] == "torus" and pt["msg_bytes"] == 512 else 1.0
            return S.default_time(pt, launch, rep) * slow * (1 + 0.004 * ((launch + i) % 5))
        # Directory names sort differently from the versions on purpose.
        dirs.append(S.write_result_set(tmp_path / f"set{4 - i}", POINTS[:1] + POINTS[1:2] + POINTS[3:],
                                       launches=5, reps=6, time_fn=time_fn, mpi_version=version,
                                       start_utc=f"2024-0{i + 1}-01T00:00:00Z"))
    out = tmp_path / "out"
    assert cli.main(["trend", *map(str, dirs), "--order", "version", "-o", str(out)]) == 1
    first = pd.read_csv(out / "regressions.csv", keep_default_na=False)
    hits = first[first["verdict"] == "regression"]
    assert len(hits) == 1
    hit = hits.iloc[0]
    assert (hit["algorithm"], hit["msg_bytes"], hit["before"], hit["after"]) == \
        ("torus", 512, "openmpi-4.1.10", "openmpi-4.2.0rc1")
    assert set(first[first["first_regression"] != ""]["first_regression"]) == {"openmpi-4.2.0rc1"}
    assert set(first[first["first_regression"] != ""]["msg_bytes"]) == {512}
    assert "openmpi-4.2.0rc1" in (out / "trend.md").read_text()
    long = pd.read_csv(out / "trend.csv")
    assert sorted(set(zip(long["position"], long["installation"]))) == \
        [(i, f"openmpi-{v}") for i, v in enumerate(history)]
    # --order date gives the same order here (start_utc increases with the version).
    by_date = trend.order_entries(inventory.load_tree(dirs), "date")
    assert [e.directory for e in by_date] == dirs
