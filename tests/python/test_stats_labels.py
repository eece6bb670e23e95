"""The verdict labels in the generated files: a pair that differs in device, or runs
oversubscribed, is never called a regression in trend.md, regressions.csv or the guideline
report; the same change between comparable sides is."""

import pandas as pd
import pytest

import synthetic as S
from collrepro.analysis import cli

POINTS = S.guideline_points()
SLOW = ("native", "allgather", 65536)


def _trend(tmp_path, installations):
    S.write_installations(tmp_path / "r", installations, POINTS)
    out = tmp_path / "trend"
    code = cli.main(["trend", str(tmp_path / "r"), "-o", str(out)])
    return code, pd.read_csv(out / "regressions.csv", keep_default_na=False), (out / "trend.md").read_text()


def _device(name):
    return {"mpi_library": f"MPICH Version: x\nMPICH Device:\t{name}", **S.ONE_PER_CORE}


@pytest.mark.parametrize("extra_before,extra_after,why", [
    (_device("ch3:nemesis"), _device("ch4:ucx"), "device ch3:nemesis vs ch4:ucx"),
    (S.OVERSUBSCRIBED, S.OVERSUBSCRIBED, "mpich-3.4.1 oversubscribed (4 ranks per core)"),
])
def test_a_change_between_sides_not_comparable_is_never_a_regression(tmp_path, extra_before, extra_after, why):
    code, table, report = _trend(tmp_path, [("mpich", "3.4.1", {}, extra_before),
                                            ("mpich", "4.0.2", {SLOW: 1.5}, extra_after)])
    assert code == 0                                         # not a finding
    assert "regression" not in set(table["verdict"]) and set(table["first_regression"]) == {""}
    hit = table[table["verdict"] == "changed-not-comparable"]
    assert len(hit) == 1 and (hit["algorithm"].iat[0], hit["msg_bytes"].iat[0]) == ("native", 65536)
    assert why in hit["comparability"].iat[0] and why in hit["reason"].iat[0]
    assert (~table["comparable"].astype(str).eq("True")).all()
    assert "| regression |" not in report and "## Changed, not comparable (1)" in report
    assert "regression: 0" in report and why in report


def test_the_same_change_between_comparable_sides_is_a_regression(tmp_path):
    code, table, report = _trend(tmp_path, [("mpich", "3.4.1", {}, _device("ch4:ucx")),
                                            ("mpich", "4.0.2", {SLOW: 1.5}, _device("ch4:ucx"))])
    assert code == 1
    assert list(table[table["verdict"] == "regression"]["after"]) == ["mpich-4.0.2"]
    assert "| regression |" in report and "not oversubscribed" in report


def test_an_oversubscribed_violation_is_not_a_violation(tmp_path):
    S.write_installations(tmp_path / "r", [("mpich", "4.0.2", {SLOW: 1.5}, S.OVERSUBSCRIBED)], POINTS)
    out = tmp_path / "guide"
    assert cli.main(["guidelines", str(tmp_path / "r"), "-o", str(out)]) == 0
    table = pd.read_csv(out / "guidelines.csv", keep_default_na=False)
    hit = table[(table["native"] == "native") & (table["collective"] == "allgather") &
                (table["msg_bytes"] == 65536)]
    assert list(hit["status"]) == ["not-comparable"] and list(hit["verdict"]) == ["changed-not-comparable"]
    assert "violated" not in set(table["status"]) and "regression" not in set(table["verdict"])
    report = (out / "guidelines.md").read_text()
    assert "## Violations (0)" in report and "oversubscribed" in report


def test_compare_between_devices_is_never_a_regression(tmp_path):
    dirs = S.write_installations(tmp_path / "r", [("mpich", "3.4.1", {}, _device("ch3:nemesis")),
                                                  ("mpich", "4.0.2", {SLOW: 1.5}, _device("ch4:ucx"))], POINTS)
    out = tmp_path / "c"
    assert cli.main(["compare", str(dirs[0]), str(dirs[1]), "-o", str(out)]) == 0
    table = pd.read_csv(out / "compare.csv", keep_default_na=False)
    assert "regression" not in set(table["verdict"])
    assert list(table[table["verdict"] == "changed-not-comparable"]["msg_bytes"]) == [65536]
    assert "device ch3:nemesis vs ch4:ucx" in (out / "report.md").read_text()
