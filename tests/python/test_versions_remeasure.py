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
    assert counts == {"points": 4, "tripped": 2, "undecided": 0, "remeasured": 2, "held": 1}
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
        step, dest = argv[0], argv[argv.index("-o") + 1]
        srcs = argv[1:argv.index("--pool")] if "--pool" in argv else argv[1:argv.index("-o")]
        rest = argv[argv.index("-o") + 2:]
        options = dict(zip(rest[0::2], rest[1::2]))
        self.calls.append(dict(step=step, srcs=srcs, pool="--pool" in argv, dest=dest, **options))
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
    # each look judges the first pass and the re-measure so far together (one design)
    assert fake.calls[1]["srcs"] == [out, out + "-remeasure"] and fake.calls[1]["pool"]
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


def test_the_looks_spend_alpha_over_the_first_pass_and_the_remeasure_rounds(tmp_path, monkeypatch):
    """16 first-pass rounds and two looks of 8: the looks sit at 24 and 32 of 32 rounds, and their
    alphas (O'Brien-Fleming-like spending at 0.75 and 1) sum to alpha."""
    looks = [pd.DataFrame([row("native", 65536, "inconclusive", True, 0, ratio=1.1),
                           row("halfduplex-fc", 65536, "inconclusive", True, 1, p=1, q=3)])] * 2
    config, reports, fake = _setup(tmp_path, monkeypatch, looks)
    assert versions.remeasure(str(config), ["openmpi-4.1.4"], 2, 16, str(tmp_path / "out"), str(reports),
                              first_rounds=16) == 0
    alphas = [float(c["--alpha"]) for c in fake.calls if "--alpha" in c]
    assert alphas == pytest.approx(stats.spending_levels([0.75, 1.0])) and sum(alphas) == pytest.approx(stats.ALPHA)
    assert alphas[0] > stats.spending_levels([0.5, 1.0])[0]      # the first pass's rounds count as information
    table = pd.read_csv(reports / "verdicts.csv")
    assert table["looks"].iat[0] == "look 1: x1.1 inconclusive (+); look 2: x1.1 inconclusive (+)"


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
    from collrepro import paths
    from collrepro.versions import calibration
    rounds = [safeio.load_yaml_file(f"{paths.REPO}/configs/versions/calibration-{e}.yaml", 1 << 20, "c")["launches"]
              for e in ("quick", "seed000")]
    names = calibration.installation_names("openmpi-4.1.4")
    assert len(names) == 2 + 2 * (1 + len(calibration.SLOWDOWNS))     # a placebo per mechanism
    assert ("would declare openmpi-4.1.4+slow0: openmpi-4.1.4 with COLLREPRO_PMPI_DELAY=allgather:>=16KiB:+0%"
            in err)
    assert (f"{sum(rounds) * len(names)} launches in all ({len(names)} installations; calibration-quick: "
            f"{rounds[0]} each, calibration-seed000: {rounds[1]} each)") in err
    assert err.count(f"would run: collrun --installations {','.join(names)} --np 2 --launches ") == 2
    assert not (tmp_path / "config").exists() and not (tmp_path / "c").exists()
    # one mechanism only: the delay mode's settings
    assert versions.main(["--calibrate", "--dry-run", "--base", "openmpi-4.1.4", "--mechanisms", "pmpi-delay",
                          "--out", str(tmp_path / "c")]) == 0
    err = capsys.readouterr().err
    one = 2 + 1 + len(calibration.SLOWDOWNS)
    assert (f"{sum(rounds) * one} launches in all ({one} installations; calibration-quick: {rounds[0]} each, "
            f"calibration-seed000: {rounds[1]} each)") in err
    assert "preload" not in err


def _fake_resolve(name):
    """The base is known (with its collbench built); the derived ones are not declared yet."""
    if "+" in name:
        raise versions.registry.RegistryError(f"no MPI installation named '{name}'")
    return type("I", (), {"name": name, "kind": "openmpi", "origin": "debian", "env": {}, "delay": ""})()


def test_the_default_installations_leave_the_derived_ones_out(tmp_path, monkeypatch, capsys):
    kinds = [("openmpi-4.1.4", "debian"), ("mpich-4.0.2", "debian"), ("openmpi-4.1.4+slow10", "derived")]
    monkeypatch.setattr(versions.registry, "all_installations",
                        lambda: [type("I", (), {"name": n, "origin": o, "kind": n.split("-")[0], "mpicxx": "",
                                                "env": {}})() for n, o in kinds])
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump(SEED000))
    assert versions.main(["--dry-run", "--out", str(tmp_path / "o"), str(config)]) == 0
    assert "would run: collrun --installations openmpi-4.1.4,mpich-4.0.2 --np" in capsys.readouterr().err


def test_the_remeasure_takes_the_undecided_points_too():
    """inconclusive between comparable sides with enough launches: re-measured; refused for too few
    launches, or between sides that are not comparable (never `same`): not."""
    table = pd.DataFrame([
        row("native", 65536, "regression", True, 0, ratio=1.4),
        row("native", 1048576, "inconclusive", False, 1),
        row("halfduplex-fc", 65536, "inconclusive", False, 2),
        row("ring-allgather", 1048576, "inconclusive", False, 3),
        row("root-gathering", 1048576, "same", False, 4),
    ]).assign(comparable=[True, True, False, True, True],
              reason=["", "interval straddles ±5.0%", "sides not comparable: never `same`",
                      f"{stats.REFUSED}: 3+3, need 4 a side", ""])
    assert list(versions.remeasure_rows(table)["point"]) == [0, 1]
    assert list(versions.remeasure_rows(table.drop(columns="comparable"))["point"]) == [0]   # an older table
    fresh = pd.DataFrame([row("native", 1048576, "same", False, 0)])
    merged, counts = versions.merge_verdicts(table, fresh)
    assert counts == {"points": 5, "tripped": 1, "undecided": 1, "remeasured": 1, "held": 0}
    assert list(merged["verdict"])[1] == "same" and list(merged["remeasured"]) == [False, True, False, False, False]
    assert "1 of 5 points tripped and 1 undecided" in versions.remeasure_summary(counts, 10)


def test_budget_minutes_are_checked():
    assert versions.budget_seconds(None) == versions.DEFAULT_BUDGET_MIN * 60
    assert versions.budget_seconds("2.5") == 150
    for bad in ("0", "-1", "nan", "inf", "ten", "20000"):
        with pytest.raises(safeio.UserError, match=r"--budget .*: want minutes above 0"):
            versions.budget_seconds(bad)


def test_the_budget_sizes_the_first_pass_and_the_remeasure(capsys):
    now = [0.0]
    clock = versions.Budget(600, clock=lambda: now[0])
    clock.round_s = 10.0
    assert clock.first_rounds(4) == versions.DEFAULT_ROUNDS              # 36 rounds fit in 60 % of 10 min
    clock.round_s = 60.0
    assert clock.first_rounds(4) == 6                                     # 360 s / 60 s
    clock.round_s = 100.0
    with pytest.raises(safeio.UserError, match=r"--budget 10: a round took 100 s here, so the 4 rounds a "
                                               r"verdict needs take 6.7 min; give --budget 12 or more"):
        clock.first_rounds(4)
    clock.round_s = 30.0
    now[0] = 360.0                                                        # 240 s left: 8 rounds
    assert clock.remeasure_rounds(10, "out") == 8
    assert "the re-measure gets 8 of its 10 rounds" in capsys.readouterr().err
    now[0] = 530.0                                                        # 70 s left: 2 rounds, too few
    assert clock.remeasure_rounds(10, "out") == 0
    assert clock.remeasure_rounds(0, "out") == 0
    now[0] = 0.0
    assert clock.remeasure_rounds(10, "out") == 10


def test_the_first_pass_times_a_round_and_keeps_it(tmp_path, monkeypatch, capsys):
    """A first round is timed and recorded; the rounds follow from the budget; a re-run reads the
    record instead of timing again."""
    calls = []
    ticks = iter([0.0, 30.0])
    monkeypatch.setattr(versions, "interleaved", lambda names, np, n, out, config, **k: calls.append(n) or 0)
    import time
    monkeypatch.setattr(time, "monotonic", lambda: next(ticks, 30.0))
    clock = versions.Budget(600, clock=lambda: 0.0)
    out = str(tmp_path / "out")
    rc, rounds = versions.first_pass(["a", "b"], 2, None, out, "c.yaml", clock)
    assert (rc, rounds, calls) == (0, 12, [1, 12])                        # 360 s / 30 s
    assert "12 rounds" in capsys.readouterr().err
    again = versions.Budget(600, clock=lambda: 0.0)
    calls.clear()
    assert versions.first_pass(["a", "b"], 2, None, out, "c.yaml", again) == (0, 12)
    assert calls == [12] and again.round_s == 30.0


SEED001 = {"experiment": "versions-seed001", "sizes": ["16KiB"], "settings": [
    {"name": "setting 1", "collective": "allgather", "groups": {"ratios": ["1/1"]}},
    {"name": "setting 2", "collective": "allgather", "groups": {"ratios": ["3/1"]}},
    {"name": "mixed", "collective": "allgatherv", "groups": {"ratios": ["1/1", "3/1"]}}]}


def test_fit_config_leaves_out_the_ratios_that_need_more_processes():
    fitted, left = versions.fit_config(SEED001, 2)
    assert [s["name"] for s in fitted["settings"]] == ["setting 1", "mixed"]
    assert fitted["settings"][1]["groups"]["ratios"] == ["1/1"]
    assert left == [("setting 'setting 2'", "3/1", 4), ("setting 'mixed'", "3/1", 4)]
    assert versions.fit_config(SEED001, 4) == (SEED001, [])
    flat, left = versions.fit_config({"groups": {"ratios": ["1/1", "5/3"]}}, 2)
    assert flat["groups"]["ratios"] == ["1/1"] and left == [("groups.ratios", "5/3", 8)]
    assert SEED001["settings"][2]["groups"]["ratios"] == ["1/1", "3/1"]            # untouched


def test_the_default_process_count_runs_a_fitted_config(tmp_path, capsys):
    config = tmp_path / "seed001.yaml"
    config.write_text(yaml.safe_dump(SEED001))
    out = tmp_path / "out"
    path = versions.fitted_config(str(config), 2, str(out), chosen=None)
    assert path == str(out / "fitted.yaml")
    assert [s["name"] for s in yaml.safe_load(open(path))["settings"]] == ["setting 1", "mixed"]
    err = capsys.readouterr().err
    assert "2 processes, one per core: left out setting 'setting 2' 3/1 (needs a multiple of 4)" in err
    assert versions.fitted_config(str(config), 2, str(out), chosen="2") == str(config)   # the user's choice
    assert versions.fitted_config(str(config), 4, str(tmp_path / "o4"), chosen=None) == str(config)
    only = tmp_path / "only.yaml"
    only.write_text(yaml.safe_dump({"experiment": "x", "groups": {"ratios": ["3/1"]}}))
    with pytest.raises(safeio.UserError, match=r"nothing fits 2 processes, one per core .*give --np N"):
        versions.fitted_config(str(only), 2, str(tmp_path / "o"), chosen=None)
    assert not (tmp_path / "o").exists()


def test_collrun_installations_runs_at_least_the_calibrated_rounds(monkeypatch, capsys):
    from collrepro import design
    from collrepro.launch import collrun
    got = []
    monkeypatch.setattr(collrun, "collrun_setup", lambda opts: ([type("R", (), {"label": "a"})()], 2))
    monkeypatch.setattr(collrun, "config_value", lambda run, opts, key: "5")
    monkeypatch.setattr(collrun, "_run_rounds", lambda runs, np, opts, n, fwd: got.append(("rounds", n)) or 0)
    monkeypatch.setattr(collrun, "_run_launches", lambda run, np, opts, n, fwd: got.append(("launches", n)) or 0)
    assert collrun.collrun(["--installations", "a,b", "--np", "2", "c.yaml"]) == 0
    assert f"--installations: {design.ROUNDS} rounds, the calibrated rounds of a verdict" in capsys.readouterr().err
    assert collrun.collrun(["--installations", "a,b", "--np", "2", "--launches", "3", "c.yaml"]) == 0
    assert collrun.collrun(["--mpi", "openmpi", "--np", "2", "c.yaml"]) == 0
    assert got == [("rounds", design.ROUNDS), ("rounds", 3), ("launches", 5)]   # asked for, or one installation


def test_the_default_installations_leave_out_the_synthetic_releases(monkeypatch):
    """A calibration declares +slowN (derived) and +preloadN (added, preloading the slowdown
    library): a plain `versions` run compares the real installations only."""
    def inst(name, origin, env=None):
        return type("I", (), {"name": name, "origin": origin, "env": env or {}})()
    known = [inst("openmpi-4.1.4", "debian"), inst("openmpi-5.0.7", "built"), inst("openmpi-4.1.4+slow10", "derived"),
             inst("openmpi-4.1.4+preload10", "added", {"COLLREPRO_SLOWLIB": "MPI_Allgather,inter,16384,+10%"}),
             inst("mine", "added", {"LD_LIBRARY_PATH": "/x"})]
    monkeypatch.setattr(versions.registry, "all_installations", lambda: known)
    assert versions.default_installations() == ["openmpi-4.1.4", "openmpi-5.0.7", "mine"]
