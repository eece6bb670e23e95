"""collrepro.versions.calibration on synthetic calibration runs (no MPI): a base installation, its A/A copy
and injected slowdowns on a known subset; the counts, the README generated from the data."""

import pandas as pd
import pytest

import synthetic as S
from collrepro import safeio
from collrepro.versions import calibration
from collrepro.versions import sequential

SIZES = (1024, 16384, 65536, 262144)
POINTS = [S.point(a, p=1, q=1, ka=m, kb=0, msg_bytes=m, cost_beta_bytes=(2.0 + i) * m)
          for i, a in enumerate(("native", "root-gathering")) for m in SIZES]
RULE = "allgather:>=64KiB:+{pct}%"


def rule_slows(rule, row):
    """The test's stand-in for the delay mode's predicate: native allgather from 64 KiB on."""
    return str(row["algorithm"]) == "native" and int(row["msg_bytes"]) >= 65536 and rule.startswith("allgather:")


SLOWLIB_RULE = "MPI_Allgather,inter,65536,+{pct}%"


def record(name, rule=""):
    """The metadata's installation record as collrun writes it: a derived one's (base, delay), or
    an added one's that preloads the slowdown library (its variables)."""
    rec = {"name": name, "kind": "openmpi", "version": "4.1.4", "prefix": "/usr", "origin": "debian"}
    if "+preload" in name:
        rec.update(origin="added", preload="/x/libcollrepro_slowlib.so",
                   env={"LD_PRELOAD": "/x/libcollrepro_slowlib.so", "COLLREPRO_SLOWLIB": rule})
    elif "+" in name:
        rec.update(origin="derived", base=calibration.base_of(name), delay=rule, preload="")
    return rec


def write_calibration(root, settings, experiment="calib", launches=6, noise=0.0, interposition=1.0):
    """root/<experiment>/<name>/ for the base and each (tag, pct, factor on the injected points[,
    points outside them slowed alike: (algorithm, msg_bytes) pairs]); interposition: what loading
    a mechanism costs every point of its settings (placebo and injected alike)."""
    def time_fn(factor, offset, spilled=(), overall=1.0):
        def fn(pt, launch, rep):
            injected = pt["algorithm"] == "native" and pt["msg_bytes"] >= 65536
            injected = injected or (pt["algorithm"], pt["msg_bytes"]) in spilled
            wobble = 1 + 0.004 * ((launch + offset) % 5) + noise * (((launch * 7 + offset) % 3) - 1)
            return S.default_time(pt, launch, rep) * (factor if injected else 1.0) * wobble * overall
        return fn

    def rule(tag, pct):
        return "" if not pct else (SLOWLIB_RULE if tag.startswith("preload") else RULE).format(pct=pct)
    runs = [("openmpi-4.1.4", "", 1.0, ())] + [(f"openmpi-4.1.4+{s[0]}", rule(s[0], s[1]), s[2], tuple(s[3:4]) and s[3])
                                               for s in settings]
    for n, (name, rule, factor, spilled) in enumerate(runs):
        S.write_result_set(root / experiment / name, POINTS, launches=launches, reps=6,
                           time_fn=time_fn(factor, n, spilled, interposition if "+" in name and "+aa" not in name
                                           else 1.0), experiment=experiment, nprocs=2, ppn=2,
                           start_utc=f"2026-11-26T13:0{n}:00Z",
                           extra_meta={"mpi_installation": record(name, rule), **S.ONE_PER_CORE})


def test_names_and_settings():
    assert calibration.base_of("openmpi-4.1.4+slow10") == "openmpi-4.1.4"
    assert calibration.base_of("openmpi-4.1.4") == "openmpi-4.1.4"
    assert calibration.setting_of("openmpi-4.1.4+aa") == ("aa", 0)
    assert calibration.setting_of("openmpi-4.1.4+slow25") == ("slow25", 25)
    assert calibration.setting_of("openmpi-4.1.4") is None
    assert calibration.setting_of("openmpi-4.1.4+preload25") == ("preload25", 25)
    assert [calibration.mechanism_of(t) for t in ("aa", "slow5", "preload5")] == ["none", "pmpi-delay", "slowlib"]
    assert calibration.SLOWDOWNS == (5, 10, 15, 25, 50)        # the power curve's injected percents
    assert calibration.installation_names("openmpi-4.1.4+x")[1:] == (
        ["openmpi-4.1.4+x+aa"] + [f"openmpi-4.1.4+x+slow{p}" for p in (0,) + calibration.SLOWDOWNS]
        + [f"openmpi-4.1.4+x+preload{p}" for p in (0,) + calibration.SLOWDOWNS])
    assert calibration.installation_names("openmpi-4.1.4", ("slowlib",))[2:] == [
        f"openmpi-4.1.4+preload{p}" for p in (0,) + calibration.SLOWDOWNS]
    assert calibration.is_placebo("slow0", 0) and not calibration.is_placebo("aa", 0)
    assert calibration.mechanisms_option("slowlib, pmpi-delay") == ("slowlib", "pmpi-delay")
    with pytest.raises(safeio.UserError, match="--mechanisms 'ld-preload': want one or more of pmpi-delay, slowlib"):
        calibration.mechanisms_option("ld-preload")


def test_aa_flags_nothing_and_a_large_injection_is_found(tmp_path):
    write_calibration(tmp_path / "runs", [("aa", 0, 1.0), ("slow50", 50, 1.5), ("slow1", 1, 1.01)])
    out = tmp_path / "calibration"
    assert calibration.main([str(tmp_path / "runs"), "-o", str(out)], predicate=rule_slows) == 0
    every = pd.read_csv(out / "summary.csv")
    assert sorted(set(every["launches_other"])) == [5, 6]                 # the default 5 + 5, and all
    first5 = every[every["launches_other"] == 5].set_index("setting")
    assert (first5.loc["slow50", "launches_base"], first5.loc["slow50", "detected"]) == (5, 2)
    summary = every[every["launches_other"] == 6].set_index("setting")
    assert list(summary.index) == ["aa", "slow1", "slow50"]               # by injected percent
    aa, big, tiny = summary.loc["aa"], summary.loc["slow50"], summary.loc["slow1"]
    assert (aa["points"], aa["injected"], aa["false_changes"]) == (8, 0, 0)
    assert (big["injected"], big["detected"], big["false_changes"]) == (2, 2, 0)
    assert big["detection_rate"] == 1.0
    assert tiny["detected"] == 0                                         # 1 % is below the threshold
    assert (aa["launches_base"], aa["launches_other"]) == (6, 6)
    points = pd.read_csv(out / calibration.POINTS_FILE)
    hit = points[(points["setting"] == "slow50") & points["injected"] & (points["launches"] == 6)]
    assert sorted(hit["msg_bytes"]) == [65536, 262144] and set(hit["algorithm"]) == {"native"}
    text = (out / "README.md").read_text()
    assert "## A/A (no change)" in text and "## +50 % injected" in text
    assert "`allgather:>=64KiB:+50%`" in text
    assert "2 / 2 (100 %)" in text and "0 / 8 (0 %)" in text and "0 / 6 (0 %)" in text
    assert "testhost, Synthetic CPU" in text and "2 processes per launch" in text
    assert "2026-11-26 13:00 to 2026-11-26 13:03 UTC" in text
    assert (out / safeio.OWNER_MARKER).is_file()


def test_the_readme_follows_the_data(tmp_path):
    """No figure is typed in: fewer launches and another experiment change the README."""
    write_calibration(tmp_path / "runs", [("aa", 0, 1.0), ("slow50", 50, 1.5)], experiment="other", launches=5)
    out = tmp_path / "calibration"
    calibration.main([str(tmp_path / "runs"), "-o", str(out)], predicate=rule_slows)
    text = (out / "README.md").read_text()
    assert "| other |" in text and "5 + 5" in text and "6 + 6" not in text


def test_a_slowdown_without_a_rule_is_refused(tmp_path):
    write_calibration(tmp_path / "runs", [("slow10", 0, 1.1)])
    # rename the A/A-like run: a +slowN installation whose metadata and registry hold no rule
    (tmp_path / "runs" / "calib" / "openmpi-4.1.4+slow10").rename(tmp_path / "runs" / "calib" / "x")
    for meta in (tmp_path / "runs" / "calib" / "x").glob("meta-*.json"):
        meta.write_text(meta.read_text().replace('"openmpi-4.1.4+slow10"', '"openmpi-4.1.4+slow7"'))
    with pytest.raises(safeio.UserError, match="has no pmpi-delay rule"):
        calibration.main([str(tmp_path / "runs"), "-o", str(tmp_path / "o")], predicate=rule_slows)


def test_runs_without_a_base_are_refused(tmp_path):
    write_calibration(tmp_path / "runs", [("aa", 0, 1.0)])
    (tmp_path / "runs" / "calib" / "openmpi-4.1.4").rename(tmp_path / "elsewhere")
    with pytest.raises(safeio.UserError, match="want one base installation"):
        calibration.main([str(tmp_path / "runs"), "-o", str(tmp_path / "o")], predicate=rule_slows)


def test_the_calibration_declares_its_missing_derived_installations(monkeypatch, capsys):
    from collrepro.versions import run as versions
    from collrepro.installations import registry
    declared = {"openmpi-4.1.4": "", "openmpi-4.1.4+slow10": "allgather:>=64KiB:+10%"}
    calls = []

    def resolve(name):
        if name not in declared:
            raise registry.RegistryError(f"no MPI installation named '{name}'")
        return type("I", (), {"name": name, "delay": declared[name]})()

    monkeypatch.setattr(registry, "resolve", resolve)
    monkeypatch.setattr(registry, "derive", lambda name, base, delay="": calls.append((name, base, delay)))
    names = ["openmpi-4.1.4", "openmpi-4.1.4+aa", "openmpi-4.1.4+slow5", "openmpi-4.1.4+slow10"]
    versions._declare(names, dry_run=True)
    assert calls == []
    versions._declare(names, dry_run=False)
    assert calls == [("openmpi-4.1.4+aa", "openmpi-4.1.4", ""),
                     ("openmpi-4.1.4+slow5", "openmpi-4.1.4", "allgather:>=16KiB:+5%")]
    err = capsys.readouterr().err
    assert "would declare openmpi-4.1.4+aa" in err
    assert "openmpi-4.1.4+slow10 is declared with delay 'allgather:>=64KiB:+10%'" in err


def test_both_mechanisms_side_by_side_with_their_own_predicates(tmp_path):
    """Each mechanism's injected subset comes from its own predicate (the delay mode's and the
    slowdown library's, not a stand-in); summary.csv has the mechanism; the README puts both
    side by side; a wrongly slowed point outside the subset shows in the FDR."""
    spill = [("root-gathering", 262144)]  # slowed by the preload setting, but outside its rule's subset
    write_calibration(tmp_path / "runs", [("aa", 0, 1.0), ("slow50", 50, 1.5), ("preload50", 50, 1.5, spill)])
    out = tmp_path / "calibration"
    assert calibration.main([str(tmp_path / "runs"), "-o", str(out), "--launches", "all"]) == 0
    summary = pd.read_csv(out / "summary.csv").set_index("setting")
    assert list(summary.index) == ["aa", "slow50", "preload50"]
    assert list(summary["mechanism"]) == ["none", "pmpi-delay", "slowlib"]
    delay, lib = summary.loc["slow50"], summary.loc["preload50"]
    assert (delay["injected"], delay["detected"], delay["flagged"], delay["false_changes"]) == (2, 2, 2, 0)
    assert delay["fdr"] == 0.0
    assert (lib["injected"], lib["detected"], lib["flagged"], lib["false_changes"]) == (2, 2, 3, 1)
    assert lib["fdr"] == pytest.approx(1 / 3)
    assert lib["rule"] == "MPI_Allgather,inter,65536,+50%"
    assert pd.isna(summary.loc["aa", "fdr"])                              # no injected setting: no FDR
    points = pd.read_csv(out / calibration.POINTS_FILE)
    hit = points[(points["mechanism"] == "slowlib") & points["injected"]]
    assert sorted(zip(hit["algorithm"], hit["msg_bytes"])) == [("native", 65536), ("native", 262144)]
    text = (out / "README.md").read_text()
    assert "## Both mechanisms side by side" in text and "## +50 % injected (slowlib)" in text
    assert "| +50 % | 6 | 2 / 2 (100 %) | x1.5" in text                  # pmpi-delay first, then slowlib
    assert "## False discovery rate over the injected settings" in text
    assert "| 6 | slowlib | 3 | 1 | 1 / 3 (33.3 %) |" in text
    assert "| 6 | all | 5 | 1 | 1 / 5 (20.0 %) |" in text
    assert (out / calibration.FIGURE).stat().st_size > 1000


def test_fdr_is_the_share_of_flagged_points_not_injected():
    assert calibration.fdr(1, 4) == 0.25 and calibration.fdr(0, 3) == 0.0
    assert calibration.fdr(0, 0) != calibration.fdr(0, 0)                   # nothing flagged: nan


def test_a_preload_setting_without_a_rule_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLREPRO_CONFIG_DIR", str(tmp_path / "config"))   # no user registry to fall back on
    write_calibration(tmp_path / "runs", [("preload10", 10, 1.1)])
    for meta in (tmp_path / "runs" / "calib" / "openmpi-4.1.4+preload10").glob("meta-*.json"):
        meta.write_text(meta.read_text().replace('"COLLREPRO_SLOWLIB": "MPI_Allgather,inter,65536,+10%"',
                                                 '"OTHER": ""'))
    with pytest.raises(safeio.UserError, match=r"has no slowlib rule \(COLLREPRO_SLOWLIB\)"):
        calibration.main([str(tmp_path / "runs"), "-o", str(tmp_path / "o")])


def test_blocks_judge_disjoint_rounds_and_sum_their_counts(tmp_path):
    """--launches 3x2 judges launches 1-3 and 4-6 of each side as two runs of their own: twice
    the points and injected points of one block; the power table and the quiet counts follow."""
    write_calibration(tmp_path / "runs", [("aa", 0, 1.0), ("slow50", 50, 1.5)], launches=6)
    out = tmp_path / "calibration"
    assert calibration.main([str(tmp_path / "runs"), "-o", str(out), "--launches", "3x2,6"],
                            predicate=rule_slows) == 0
    every = pd.read_csv(out / "summary.csv")
    blocks = every[every["launches_other"] == 3].set_index("setting")
    whole = every[every["launches_other"] == 6].set_index("setting")
    assert blocks.loc["aa", "blocks"] == 2 and whole.loc["aa", "blocks"] == 1
    assert blocks.loc["aa", "points"] == 2 * whole.loc["aa", "points"] == 16
    assert blocks.loc["slow50", "injected"] == 4 and whole.loc["slow50", "injected"] == 2
    assert blocks.loc["slow50", "injected_quiet"] <= blocks.loc["slow50", "injected"]
    points = pd.read_csv(out / calibration.POINTS_FILE)
    assert sorted(set(points[points["launches"] == 3]["block"])) == [0, 1]
    text = (out / "README.md").read_text()
    assert "## Power curve" in text and "3 + 3, 2 blocks" in text
    assert "## Variance components" in text and (out / "variance.csv").is_file()


def test_launch_counts_parse_blocks_and_refuse_the_rest():
    assert calibration.launch_counts("5,16x3,10xall,all") == ((5, 1), (16, 3), (10, None), (None, 1))
    for bad in ("1", "x3", "4x0", "4xy", "4x", "-3"):
        with pytest.raises(safeio.UserError, match="--launches"):
            calibration.launch_counts(bad)


def test_first_launches_takes_the_block():
    per = pd.DataFrame({"installation": ["a"] * 6 + ["b"] * 6, "launch": list(range(6)) * 2})
    assert list(calibration.first_launches(per, 2, block=1)["launch"]) == [2, 3, 2, 3]
    assert len(calibration.first_launches(per, None)) == 12


def test_the_forecast_check_takes_its_pilot_from_another_block_and_counts_the_family():
    """forecast_check: each injected point's forecast comes from its A/A floor in the next block of
    the same design (the pilot an earlier run would be), in a family of m / k points; `found` is
    the share found slower. Two blocks of 16 rounds, a family of 8 points of which 2 injected."""
    from collrepro.analysis.verdicts import stats
    rows = []
    for block, aa_floor in ((0, 0.01), (1, 0.04)):
        for i in range(8):
            key = dict(experiment="e", library="openmpi", config_setting="s", shape="1:1",
                       algorithm="native", msg_bytes=1024 * (i + 1), launches=16, block=block)
            rows.append(dict(key, setting="aa", mechanism="none", injected_pct=0, injected=False,
                             verdict="same", ratio=1.0, noise_floor=aa_floor))
            found = block == 0 and i == 0
            rows.append(dict(key, setting="slow10", mechanism="pmpi-delay", injected_pct=10, injected=i < 2,
                             verdict="regression" if found else "inconclusive", ratio=1.1,
                             noise_floor=0.02))
    check = calibration.forecast_check(pd.DataFrame(rows))
    assert len(check) == 1
    r = check.iloc[0]
    assert (r["mechanism"], r["injected_pct"], r["launches"], r["points"]) == ("pmpi-delay", 10, 16, 4)
    assert r["found"] == pytest.approx(0.25)
    # block 0 takes block 1's A/A floor (4 %), block 1 takes block 0's (1 %); m / k = 8 / 2
    expected = [stats.paired_detect_rate(0.10, round(stats.sd_of_floor(f), 4), 16, 4) for f in (0.04, 0.04, 0.01, 0.01)]
    assert r["forecast"] == pytest.approx(sum(expected) / 4)
    assert r["gap"] == pytest.approx(100 * (0.25 - r["forecast"]))
    assert "## Forecast against outcome" in "\n".join(calibration.forecast_section(check))


def test_the_shipped_procedure_is_emulated_first_pass_then_pooled_looks(tmp_path):
    """shipped_table: a first pass of F rounds, then the tripped and undecided points judged again on
    rounds 1..F + R_k at each look's spent alpha (versions' own look_rounds and look_levels). With 4
    rounds and looks of 4 + 4 (12 launches a side) a +50 % injection is found and kept; A/A flags
    nothing; runs too short for the design give None."""
    from collrepro.analysis.loading import inventory
    from collrepro.versions import run
    write_calibration(tmp_path / "runs", [("aa", 0, 1.0), ("slow50", 50, 1.5)], launches=12)
    entries = {e.installation.name: e for e in inventory.load_tree([str(tmp_path / "runs")])}
    base = entries["openmpi-4.1.4"]
    final, first = calibration.shipped_table(base, entries["openmpi-4.1.4+slow50"], first=4, looks=2)
    assert len(final) == len(first) == len(POINTS)
    assert set(final["look"]) <= {0, 1, 2} and (final["look"] > 0).any()
    assert set(final.loc[final["look"] > 0, "n_before"]) <= {8, 12}         # pooled: the first pass's 4 included
    slow = final[(final["algorithm"] == "native") & (final["msg_bytes"] >= 65536)]
    assert set(slow["verdict"]) == {"regression"}
    aa, _ = calibration.shipped_table(base, entries["openmpi-4.1.4+aa"], first=4, looks=2)
    assert not aa["verdict"].isin(["regression", "improvement", "changed-not-comparable"]).any()
    assert calibration.shipped_table(base, entries["openmpi-4.1.4+aa"], first=8, looks=2) == (None, None)
    assert sum(run.look_levels(4, run.look_rounds(8, 2))) == pytest.approx(0.05)


def _simulated_family(rng, m, total, changes, modes=0.0, mode_factor=2.2, sd=0.02, round_sd=0.05):
    """A judge(n, alpha) for sequential_verdicts over m simulated points of `total` paired rounds: a
    round effect both sides share, launch noise, and whole launches in a slow mode (probability
    `modes` per launch, x mode_factor), as on an AMD EPYC host of the development VM's kind."""
    import math
    import numpy as np
    from collrepro.analysis.verdicts import stats
    data = []
    for change in changes:
        shared = round_sd * rng.standard_normal(total)
        a = shared + sd * rng.standard_normal(total) + math.log(mode_factor) * (rng.random(total) < modes)
        b = (shared + sd * rng.standard_normal(total) + math.log(mode_factor) * (rng.random(total) < modes)
             + math.log1p(change))
        data.append((np.exp(a), np.exp(b)))
    keys = [f"1/{k}" for k in range(total)]

    def judge(n, level):
        rows = [stats.measure(a[:n], b[:n], 4, rounds=(keys[:n], keys[:n])) for a, b in data]
        decided = stats.decide_family(rows, [(True, "")] * m, level)
        return pd.DataFrame([dict(d, library="x", point=i) for i, d in enumerate(decided)])
    return judge


def test_the_full_procedure_keeps_its_family_wise_false_changes_under_launch_modes():
    """The shipped composition (first pass, then pooled looks under alpha spending), simulated with
    round effects and two-mode launches (30 % of launches 2.2x slower, either side): over 80 A/A
    families of 12 points at 8 + 8 + 8 rounds, a family with any false change is rare (nominal 5 %)."""
    import numpy as np
    from collrepro.versions import run
    rng = np.random.default_rng(2026)
    first, rounds = 8, run.look_rounds(16, 2)
    levels = run.look_levels(first, rounds)
    families = 0
    for _ in range(80):
        judge = _simulated_family(rng, 12, first + rounds[-1], [0.0] * 12, modes=0.3)
        final, _ = sequential.sequential_verdicts(judge, first, rounds, levels)
        families += bool(final["verdict"].isin(["regression", "improvement"]).any())
    assert families <= 8, families            # P(more than 8 of 80 | 5 %) < 2 %


def test_the_forecast_matches_the_simulated_first_pass_with_round_effects():
    """Round effects cancel in the paired design: with normal launches the forecast from a pilot's
    noise floor is within 10 points of the simulated first pass's detection, for a lone change in a
    family of 12 at 16 rounds."""
    import numpy as np
    from collrepro.analysis.verdicts import stats
    rng = np.random.default_rng(7)
    for change in (0.07, 0.09):
        found, floors = 0, []
        for _ in range(80):
            table = _simulated_family(rng, 12, 16, [change] + [0.0] * 11)(16, 0.05)
            found += table.loc[0, "verdict"] == "regression"
            floors.append(float(np.median(table["noise_floor"])))
        forecast = stats.paired_detect_rate(change, stats.sd_of_floor(float(np.median(floors))), 16, 12)
        assert abs(found / 80 - forecast) <= 0.10, (change, found / 80, forecast)


def test_injected_settings_are_judged_against_their_mechanisms_placebo(tmp_path):
    """A placebo per mechanism (`+slow0`: the delay mode loaded, +0 %): when loading the mechanism
    itself costs every point 8 %, an injected setting judged against the base would flag every
    point outside its injected subset; against the placebo it flags none, and the placebo's own row
    (against the base) shows the interposition's effect."""
    write_calibration(tmp_path / "runs", [("aa", 0, 1.0), ("slow0", 0, 1.0), ("slow50", 50, 1.5)],
                      launches=8, interposition=1.08)
    out = tmp_path / "calibration"
    assert calibration.main([str(tmp_path / "runs"), "-o", str(out), "--launches", "all"],
                            predicate=rule_slows) == 0
    summary = pd.read_csv(out / "summary.csv").set_index("setting")
    assert summary.loc["slow50", "base"] == "openmpi-4.1.4+slow0"         # the reference is the placebo
    assert (summary.loc["slow50", "false_changes"], summary.loc["slow50", "detected"]) == (0, 2)
    assert summary.loc["slow0", "base"] == "openmpi-4.1.4"
    assert summary.loc["slow0", "false_changes"] == summary.loc["slow0", "points"] == 8   # the interposition
    assert summary.loc["aa", "false_changes"] == 0
    assert "## placebo (pmpi-delay, +0 %)" in (out / "README.md").read_text()
    assert calibration.installation_names("openmpi-4.1.4", ("pmpi-delay",))[2] == "openmpi-4.1.4+slow0"


def test_the_shipped_rows_and_the_forecast_are_written_as_data(tmp_path):
    """A run long enough for the shipped design (16 rounds, then looks to 48) writes shipped.csv,
    one row per setting, whose counts are the README's shipped table; a shorter one writes none."""
    write_calibration(tmp_path / "runs", [("aa", 0, 1.0), ("slow50", 50, 1.5)], launches=48, noise=0.01)
    out = tmp_path / "calibration"
    calibration.main([str(tmp_path / "runs"), "-o", str(out), "--launches", "16,all"], predicate=rule_slows)
    shipped = pd.read_csv(out / calibration.SHIPPED_FILE)
    assert list(shipped["setting"]) == ["aa", "slow50"]
    slow = shipped.set_index("setting").loc["slow50"]
    text = (out / "README.md").read_text()
    assert (f"| +50 % injected (pmpi-delay) | {len(POINTS)} | {slow['remeasured']} | "
            f"{slow['false_changes']}/{slow['outside']} | {slow['detected']}/{slow['injected']} |") in text
    assert slow["detected"] == slow["injected"] > 0 and shipped["false_changes"].sum() == 0
    assert "`shipped.csv`" in text and "-o results/versions/calibration`" not in text  # its own output named
    short = tmp_path / "short"
    write_calibration(tmp_path / "runs-short", [("aa", 0, 1.0)], launches=6)
    calibration.main([str(tmp_path / "runs-short"), "-o", str(short)], predicate=rule_slows)
    assert not (short / calibration.SHIPPED_FILE).exists()
