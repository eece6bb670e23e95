"""trend over installations: change points across versions, launches behind each verdict, the
refusal with too few launches and the exit codes that gate CI."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import synthetic as S
from collrepro.analysis import cli
from collrepro.analysis.verdicts import stats
from collrepro.analysis.loading import inventory
from collrepro.analysis.loading.errors import InputError

VERSIONS = ["4.1.2", "4.1.10", "5.0.0rc1", "5.0.0", "5.0.7"]     # the third: 5.0.0rc1
SLOW_POINT = ("native", "allgather", 65536)
POINTS = S.guideline_points()


def history(root, factor_from_third, launches=S.INSTALLATION_LAUNCHES, versions=VERSIONS, impl="openmpi"):
    """Five installations; SLOW_POINT takes `factor_from_third` from the third version on."""
    return S.write_installations(root, [(impl, v, {SLOW_POINT: factor_from_third} if i >= 2 else {}, None)
                                        for i, v in enumerate(versions)], POINTS, launches=launches)


def run_trend(tmp_path, dirs, *extra):
    out = tmp_path / "trend"
    code = cli.main(["trend", *map(str, dirs), "-o", str(out), *extra])
    return code, pd.read_csv(out / "regressions.csv", keep_default_na=False)


def test_exact_u_distribution_matches_enumeration():
    for m, n in ((3, 4), (5, 5), (2, 7)):
        counts = [0] * (m * n + 1)
        for chosen in itertools.combinations(range(m + n), m):
            counts[sum(chosen) - m * (m - 1) // 2] += 1
        assert stats.u_null_counts(m, n) == counts
        assert sum(counts) == math.comb(m + n, m)


def test_shift_interval_brackets_the_true_ratio():
    rng = np.random.default_rng(7)
    before = rng.normal(1.0, 0.02, 10)
    ratio, low, high, _ = stats.hl_interval(np.log(before), np.log(rng.normal(1.0, 0.02, 10) * 1.25))
    assert low < 1.25 < high and low < ratio < high
    assert stats.hl_interval(np.log([1.0, 1.1]), np.log([1.2, 1.3]))[1:3] == (0.0, math.inf)  # too small for 95%


def test_trend_names_the_third_of_five_versions(tmp_path):
    dirs = history(tmp_path / "results", 1.4)
    code, table = run_trend(tmp_path, reversed(dirs))                 # order comes from the versions
    assert code == 1
    assert len(table) == 4 * len(POINTS)                   # one row per consecutive pair
    changed = table[table["verdict"].isin(["regression", "improvement", "changed-not-comparable"])]
    assert len(changed) == 1, changed
    hit = changed.iloc[0]
    assert (hit["algorithm"], hit["collective"], hit["msg_bytes"]) == SLOW_POINT
    assert (hit["verdict"], hit["before"], hit["after"]) == ("regression", "openmpi-4.1.10", "openmpi-5.0.0rc1")
    assert hit["first_regression"] == "openmpi-5.0.0rc1"
    ratio, low, high, p, q = (float(hit[c]) for c in ("ratio", "ci_low", "ci_high", "p_value", "q_value"))
    assert low < 1.4 < high and low < ratio < high and low > 1 + float(hit["threshold"])
    assert abs(ratio - 1.4) < 0.03 and p <= q < 0.05
    n = S.INSTALLATION_LAUNCHES                            # the exact interval at the family's level
    assert (hit["n_before"], hit["n_after"]) == (n, n) and hit["ci_level"] >= 1 - 0.05 / len(POINTS)
    assert hit["tripped"] and hit["comparable"] and hit["comparability"] == ""
    report = (tmp_path / "trend" / "trend.md").read_text()
    assert "openmpi-5.0.0rc1" in report and "regression: 1" in report and "tripped: " in report


def test_trend_finds_nothing_on_a_flat_history(tmp_path):
    code, table = run_trend(tmp_path, history(tmp_path / "results", 1.0))
    assert code == 0
    assert set(table["verdict"]) == {"same"} and len(table) == 4 * len(POINTS)


def test_an_improvement_is_named_but_does_not_fail(tmp_path):
    code, table = run_trend(tmp_path, history(tmp_path / "results", 0.6))
    assert code == 0
    hit = table[table["verdict"] == "improvement"].iloc[0]
    assert hit["after"] == "openmpi-5.0.0rc1" and hit["first_regression"] == ""


def test_too_few_launches_refuse_a_verdict(tmp_path):
    dirs = history(tmp_path / "results", 1.4)
    few = S.write_installations(tmp_path / "few", [("openmpi", "5.1.0", {SLOW_POINT: 1.4}, None)], POINTS,
                                launches=3)
    code, table = run_trend(tmp_path, dirs[:2] + few)
    assert code == 4
    refused = table[table["after"] == "openmpi-5.1.0"]
    assert len(refused) == len(POINTS) and set(refused["verdict"]) == {"inconclusive"}
    assert (refused["reason"] == f"too few launches: {S.INSTALLATION_LAUNCHES}+3, need 4 a side").all()
    assert set(table[table["after"] != "openmpi-5.1.0"]["verdict"]) == {"same"}


def test_libraries_are_ordered_and_tracked_apart(tmp_path):
    mpich = S.write_installations(tmp_path / "r", [("mpich", v, {}, None) for v in ("4.0.2", "3.4.1")],
                                  POINTS)
    ompi = S.write_installations(tmp_path / "r", [("openmpi", v, {}, None) for v in ("5.0.7", "4.1.4")],
                                 POINTS)
    code, table = run_trend(tmp_path, [tmp_path / "r"])              # a whole results tree
    assert code == 0
    assert set(table["library"]) == {"mpich", "openmpi"} and len(table) == 2 * len(POINTS)
    series = pd.read_csv(tmp_path / "trend" / "trend.csv")
    order = series.drop_duplicates("installation").sort_values(["library", "position"])["installation"]
    assert list(order) == ["mpich-3.4.1", "mpich-4.0.2", "openmpi-4.1.4", "openmpi-5.0.7"]
    assert len(mpich + ompi) == 4


def named_settings(*names, points=len(POINTS)):
    """A configuration whose settings split the points' indices evenly among `names`."""
    share = -(-points // len(names))
    return {"settings": [{"name": n, "points": list(range(i * share, min(points, (i + 1) * share)))}
                         for i, n in enumerate(names)]}


def test_a_tree_of_several_experiments_keeps_each_experiments_setting_names(tmp_path):
    # Setting names are tied to point indices, which every experiment numbers from 0: each row
    # must be named by its own experiment's configuration, never by the first one loaded.
    configs = {"alpha": named_settings("alpha first", "alpha second"), "beta": named_settings("beta all")}
    for experiment, config in configs.items():
        S.write_installations(tmp_path / "r", [("mpich", v, {}, None) for v in ("3.4.1", "4.0.2")], POINTS,
                              experiment=experiment, config=config)
    _, whole = run_trend(tmp_path, [tmp_path / "r"])
    names = whole.groupby("experiment")["setting"].agg(set).to_dict()
    assert names == {"alpha": {"alpha first", "alpha second"}, "beta": {"beta all"}}
    for experiment in configs:                                      # the same as one experiment alone
        _, alone = run_trend(tmp_path / experiment, [tmp_path / "r" / experiment])
        key = ["algorithm", "collective", "msg_bytes", "shape"]
        mixed = whole[whole["experiment"] == experiment].set_index(key)["setting"].sort_index()
        assert mixed.equals(alone.set_index(key)["setting"].sort_index())


def test_usage_and_input_errors_exit_2(tmp_path, capsys):
    assert cli.main(["trend", "--order", "alphabetical", str(tmp_path), "-o", str(tmp_path / "o")]) == 2
    usage = capsys.readouterr().err.splitlines()
    assert len(usage) == 1 and usage[0].startswith("analyze: error: argument --order: invalid choice")
    assert cli.main(["trend", str(tmp_path / "missing"), "-o", str(tmp_path / "o")]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_installation_names_come_from_the_metadata():
    meta = {"mpi_impl": "openmpi", "mpi_version": "5.0.7", "mpi_library": "Open MPI v5.0.7, package: x\nmore"}
    inst = inventory.installation_of([meta], "d")
    assert (inst.name, inst.identity) == ("openmpi-5.0.7", "Open MPI v5.0.7, package: x")
    assert inventory.installation_of([dict(meta, installation={"name": "ompi5-spack"})], "d").name == "ompi5-spack"
    # collbench's own record (bench/output/run_info.cpp) names the registered installation
    record = {"name": "openmpi-5.0.7-src", "kind": "openmpi", "version": "5.0.7", "prefix": "/p", "origin": "source"}
    assert inventory.installation_of([dict(meta, mpi_installation=record)], "d").name == "openmpi-5.0.7-src"
    twins = inventory.disambiguate([inventory.installation_of([meta], "a"),
                                    inventory.installation_of([dict(meta, mpi_library="other build")], "b")])
    assert len({i.name for i in twins}) == 2 and all(i.name.startswith("openmpi-5.0.7~") for i in twins)
    with pytest.raises(InputError, match="disagree on mpi_version .* split it"):
        inventory.installation_of([meta, dict(meta, mpi_version="5.0.6")], "d")


def test_derived_installations_compare_with_their_base_not_a_neighbour():
    """A synthetic release or an A/A copy is compared with its base; releases stay consecutive."""
    import pandas as pd
    from collrepro.analysis.verdicts import trend

    def side(name, base=""):
        return pd.DataFrame({"installation": [name], "base": [base]})

    sides = [side("openmpi-4.1.4"), side("openmpi-4.1.4+aa", "openmpi-4.1.4"),
             side("openmpi-4.1.4+slow10", "openmpi-4.1.4"), side("openmpi-4.1.4+slow5", "openmpi-4.1.4"),
             side("openmpi-5.0.7")]
    pairs = {(a["installation"].iat[0], b["installation"].iat[0]) for a, b in trend._side_pairs(sides)}
    assert pairs == {("openmpi-4.1.4", "openmpi-5.0.7"), ("openmpi-4.1.4", "openmpi-4.1.4+aa"),
                     ("openmpi-4.1.4", "openmpi-4.1.4+slow10"), ("openmpi-4.1.4", "openmpi-4.1.4+slow5")}
