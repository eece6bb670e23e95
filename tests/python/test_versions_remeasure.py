"""collrepro versions: --installations, re-measure on trip (the subset config, the fresh verdicts
replacing the tripped ones, the counts), with a fake runner and synthetic trend tables: no MPI."""

import pandas as pd
import pytest
import yaml

from collrepro import safeio
from collrepro.versions import run as versions
from collrepro.analysis.verdicts import stats

SEED000 = {
    "experiment": "versions-seed000", "collective": "allgather",
    "groups": {"ratios": ["1/1", "1/3", "3/1"]}, "blocks": ["1:0"], "sizes": ["64KiB", "1MiB"],
    "timing": {"reps": 20}, "launches": 5,
    "settings": [{"name": "fully connected", "algorithms": ["halfduplex-fc", "root-gathering", "native"]},
                 {"name": "ring", "algorithms": ["halfduplex-ring", "ring-allgather"]}],
}


def row(algorithm, size, verdict, tripped, point, p=2, q=2, ka=None, kb=0, ratio=1.0, library="openmpi"):
    return dict(library=library, experiment="versions-seed000", point=point, nprocs=4, family="inter-group",
                collective="allgather", algorithm=algorithm, msg_bytes=size, p=p, q=q,
                ka=size if ka is None else ka, kb=kb, setting="s", shape=f"{p}:{q}", verdict=verdict,
                reason="", ratio=ratio, tripped=tripped)


def first_table():
    return pd.DataFrame([
        row("native", 65536, "regression", True, 0, ratio=1.4),
        row("native", 1048576, "same", False, 1),
        row("halfduplex-fc", 65536, "inconclusive", True, 2, p=1, q=3, ratio=1.2),
        row("ring-allgather", 1048576, "same", False, 3),
    ])


def test_tripped_rows_follow_the_tripped_column_or_a_changed_verdict():
    table = first_table()
    assert list(versions.tripped_rows(table)["point"]) == [0, 2]
    as_text = table.assign(tripped=table["tripped"].map(str))        # as read back from a CSV
    assert list(versions.tripped_rows(as_text)["point"]) == [0, 2]
    old = table.drop(columns="tripped").assign(verdict=["slower", "same", "faster", "same"])
    assert list(versions.tripped_rows(old)["point"]) == [0, 2]


def test_subset_config_holds_only_the_tripped_points():
    sub = versions.subset_config(SEED000, versions.tripped_rows(first_table()))
    assert sub["sizes"] == [65536]
    assert sub["groups"]["ratios"] == ["1/1", "1/3"]
    assert sub["blocks"] == ["1:0"]
    assert [s["name"] for s in sub["settings"]] == ["fully connected"]    # ring: nothing tripped
    assert sub["settings"][0]["algorithms"] == ["halfduplex-fc", "native"]
    assert sub["experiment"] == SEED000["experiment"] and sub["timing"] == SEED000["timing"]
    assert SEED000["sizes"] == ["64KiB", "1MiB"]                          # the original is untouched


def test_subset_config_of_a_flat_config_lists_the_algorithms_and_block_ratios():
    quick = {"experiment": "quick", "algorithms": "all", "groups": {"ratios": ["1/1"]},
             "blocks": ["1:0", "1:1", "4:1"], "sizes": ["1KiB", "1MiB"]}
    rows = pd.DataFrame([row("native", 1024, "regression", True, 0, ka=1024, kb=1024),
                         row("root-gathering", 4096, "regression", True, 1, ka=4096, kb=1024)])
    sub = versions.subset_config(quick, rows)
    assert sub["algorithms"] == ["native", "root-gathering"]
    assert sub["blocks"] == ["1:1", "4:1"] and sub["sizes"] == [1024, 4096]


def test_merge_takes_the_fresh_verdicts_of_the_tripped_points():
    first = first_table()
    # the subset numbers its points anew: the match ignores the point index
    fresh = pd.DataFrame([row("native", 65536, "regression", True, 0, ratio=1.38),
                          row("halfduplex-fc", 65536, "same", False, 1, p=1, q=3, ratio=1.01)])
    table, counts = versions.merge_verdicts(first, fresh)
    assert counts == {"points": 4, "tripped": 2, "remeasured": 2, "held": 1}
    assert list(table["verdict"]) == ["regression", "same", "same", "same"]
    assert list(table["first_verdict"]) == ["regression", "same", "inconclusive", "same"]
    assert list(table["remeasured"]) == [True, False, True, False]
    assert list(table["held"]) == [True, False, False, False]
    assert table.loc[0, "ratio"] == pytest.approx(1.38)
    line = versions.remeasure_summary(counts, 10)
    assert "2 of 4 points tripped" in line and "2 re-measured" in line and "1 held" in line


def test_merge_leaves_a_point_the_fresh_run_lacks():
    table, counts = versions.merge_verdicts(first_table(), first_table().iloc[0:0])
    assert counts["remeasured"] == 0 and list(table["verdict"])[0] == "regression"


class FakeRunner:
    """Stands in for collrun and analyze: records the launches, writes the fresh trend table."""

    def __init__(self, fresh):
        self.fresh, self.calls = fresh, []      # fresh: one table, or one per look

    def interleaved(self, names, np, launches, out, config, sets=(), dry_run=False):
        self.calls.append(dict(names=names, np=np, launches=launches, out=out, config=config))
        return 0

    def analyze(self, argv):
        step, src, _, dest = argv[:4]
        options = dict(zip(argv[4::2], argv[5::2]))
        self.calls.append(dict(step=step, src=src, dest=dest, **options))
        looks = self.fresh if isinstance(self.fresh, list) else [self.fresh]
        done = sum(1 for c in self.calls if "step" in c) - 1
        safeio.write_csv(f"{dest}/regressions.csv", looks[min(done, len(looks) - 1)], index=False)
        return safeio.EXIT_FINDING


def _setup(tmp_path, monkeypatch, fresh):
    config = tmp_path / "seed000.yaml"
    config.write_text(yaml.safe_dump(SEED000))
    reports = tmp_path / "out-reports"
    (reports / "trend").mkdir(parents=True)
    first_table().to_csv(reports / "trend" / "regressions.csv", index=False)
    fake = FakeRunner(fresh)
    monkeypatch.setattr(versions, "interleaved", fake.interleaved)
    monkeypatch.setattr(versions, "_analyze", fake.analyze)
    monkeypatch.setattr(versions.registry, "resolve", lambda n: type("I", (), {"kind": n.split("-")[0]})())
    return config, reports, fake


def test_remeasure_runs_the_subset_and_reports_the_counts(tmp_path, monkeypatch, capsys):
    fresh = pd.DataFrame([row("native", 65536, "regression", True, 0, ratio=1.38),
                          row("halfduplex-fc", 65536, "same", False, 1, p=1, q=3)])
    config, reports, fake = _setup(tmp_path, monkeypatch, fresh)
    out = str(tmp_path / "out")
    names = ["openmpi-4.1.4", "mpich-4.0.2", "openmpi-5.0.7"]
    assert versions.remeasure(str(config), names, 4, 10, out, str(reports)) == 0
    run = fake.calls[0]
    assert run["names"] == ["openmpi-4.1.4", "openmpi-5.0.7"]          # only the tripped library
    assert run["launches"] == 5 and run["out"] == out + "-remeasure"    # the first of two looks
    subset = yaml.safe_load(open(run["config"]))
    assert subset["sizes"] == [65536] and subset["experiment"] == "versions-seed000"
    assert fake.calls[1]["src"] == out + "-remeasure"
    assert float(fake.calls[1]["--alpha"]) == pytest.approx(stats.spending_levels([0.5, 1])[0])
    assert len(fake.calls) == 2                       # both points settled at the first look
    table = pd.read_csv(reports / "verdicts.csv")
    assert list(table["held"]) == [True, False, False, False]
    assert list(table["stopped"].fillna("")) == ["settled at look 1 (5 rounds)", "", "settled at look 1 (5 rounds)", ""]
    text = (reports / "remeasure.md").read_text()
    assert "2 of 4 points tripped, 2 re-measured with 5 fresh interleaved launches" in text
    assert "1 held" in capsys.readouterr().err


def test_a_point_unsettled_at_the_first_look_gets_the_second(tmp_path, monkeypatch):
    looks = [pd.DataFrame([row("native", 65536, "regression", True, 0, ratio=1.38),
                           row("halfduplex-fc", 65536, "inconclusive", True, 1, p=1, q=3)]),
             pd.DataFrame([row("native", 65536, "inconclusive", True, 0, ratio=1.1),
                           row("halfduplex-fc", 65536, "inconclusive", True, 1, p=1, q=3)])]
    config, reports, fake = _setup(tmp_path, monkeypatch, looks)
    assert versions.remeasure(str(config), ["openmpi-4.1.4"], 2, 10, str(tmp_path / "out"), str(reports)) == 0
    runs = [c["launches"] for c in fake.calls if "launches" in c]
    alphas = [float(c["--alpha"]) for c in fake.calls if "--alpha" in c]
    assert runs == [5, 10] and alphas == pytest.approx(stats.spending_levels([0.5, 1]))
    assert sum(alphas) == pytest.approx(stats.ALPHA)
    table = pd.read_csv(reports / "verdicts.csv")
    # the regression settled at look 1 keeps it; the other point ran out of rounds
    assert list(table["verdict"]) == ["regression", "same", "inconclusive", "same"]
    assert table["stopped"].iat[0] == "settled at look 1 (5 rounds)"
    assert table["stopped"].iat[2] == "round budget spent (10 rounds in 2 looks)"
    assert list(table["rounds_used"].iloc[[0, 2]]) == [5, 10]


def test_look_rounds_keep_each_look_large_enough_for_a_verdict():
    assert versions.look_rounds(10, 2) == [5, 10]
    assert versions.look_rounds(6, 2) == [6]
    assert versions.look_rounds(16, 4) == [4, 8, 12, 16]
    assert versions.look_rounds(10, 1) == [10]


def test_remeasure_off_runs_nothing(tmp_path, monkeypatch, capsys):
    config, reports, fake = _setup(tmp_path, monkeypatch, first_table())
    assert versions.remeasure(str(config), ["openmpi-4.1.4"], 4, 0, str(tmp_path / "out"), str(reports)) == 0
    assert fake.calls == []
    assert "re-measuring is off" in capsys.readouterr().err
    assert pd.read_csv(reports / "verdicts.csv")["remeasured"].tolist() == [False] * 4


def test_remeasure_launches_zero_is_accepted_and_negative_refused():
    assert versions._count("0", "--remeasure-launches", allow_zero=True) == 0
    with pytest.raises(safeio.UserError):
        versions._count("-1", "--remeasure-launches", allow_zero=True)
    with pytest.raises(safeio.UserError):
        versions._count("0", "--launches")


def test_installations_option_names_distinct_installations():
    assert versions._names("a-1,b-2") == ["a-1", "b-2"]
    with pytest.raises(safeio.UserError):
        versions._names("a-1,a-1")


def test_calibrate_dry_run_declares_and_launches_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COLLREPRO_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setattr(versions.registry, "resolve", _fake_resolve)
    monkeypatch.setattr(versions.collrun, "collrun", lambda argv: pytest.fail("a dry run launched"))
    from collrepro.installations import collbench
    monkeypatch.setattr(collbench, "executable", lambda inst, repo=None: "/bin/true")
    assert versions.main(["--calibrate", "--dry-run", "--base", "openmpi-4.1.4", "--out", str(tmp_path / "c")]) == 0
    err = capsys.readouterr().err
    assert "would declare openmpi-4.1.4+slow25: openmpi-4.1.4 with COLLREPRO_PMPI_DELAY=allgather:>=16KiB:+25%" in err
    assert ("would add openmpi-4.1.4+preload25: openmpi-4.1.4 with the preload slowdown library, "
            "COLLREPRO_SLOWLIB=MPI_Allgather,inter,16384,+25%") in err
    assert "256 launches in all (8 installations; calibration-quick: 16 each, calibration-seed000: 16 each)" in err
    assert err.count("would run: collrun --installations openmpi-4.1.4,openmpi-4.1.4+aa,openmpi-4.1.4+slow5,"
                     "openmpi-4.1.4+slow10,openmpi-4.1.4+slow25,openmpi-4.1.4+preload5,openmpi-4.1.4+preload10,"
                     "openmpi-4.1.4+preload25 --np 2 --launches 16") == 2
    assert not (tmp_path / "config").exists() and not (tmp_path / "c").exists()
    # one mechanism only: the delay mode's settings
    assert versions.main(["--calibrate", "--dry-run", "--base", "openmpi-4.1.4", "--mechanisms", "pmpi-delay",
                          "--out", str(tmp_path / "c")]) == 0
    err = capsys.readouterr().err
    assert "160 launches in all (5 installations; calibration-quick: 16 each, calibration-seed000: 16 each)" in err
    assert "preload" not in err


def _fake_resolve(name):
    """The base is known (with its collbench built); the derived ones are not declared yet."""
    if "+" in name:
        raise versions.registry.RegistryError(f"no MPI installation named '{name}'")
    return type("I", (), {"name": name, "kind": "openmpi", "origin": "debian", "env": {}, "delay": ""})()


def test_the_default_installations_leave_the_derived_ones_out(tmp_path, monkeypatch, capsys):
    kinds = [("openmpi-4.1.4", "debian"), ("mpich-4.0.2", "debian"), ("openmpi-4.1.4+slow10", "derived")]
    monkeypatch.setattr(versions.registry, "all_installations",
                        lambda: [type("I", (), {"name": n, "origin": o})() for n, o in kinds])
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump(SEED000))
    assert versions.main(["--dry-run", "--out", str(tmp_path / "o"), str(config)]) == 0
    assert "would run: collrun --installations openmpi-4.1.4,mpich-4.0.2 --np" in capsys.readouterr().err
