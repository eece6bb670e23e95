"""Performance-guideline checks: each native collective against its mock-up, per installation."""

import copy

import pandas as pd

import synthetic as S
from collrepro import catalogue
from collrepro.analysis import cli
from collrepro.analysis.loading import inventory
from collrepro.analysis.verdicts import guidelines

POINTS = S.guideline_points()


def run(tmp_path, roots):
    out = tmp_path / "guide"
    code = cli.main(["guidelines", *map(str, roots), "-o", str(out)])
    return code, pd.read_csv(out / "guidelines.csv", keep_default_na=False), out


def test_a_planted_violation_is_found_by_installation(tmp_path):
    # mpich-4.0.2: the native intra Allgather at 64 KiB is 1.5x its own model time; the mock-up is
    # not. Both installations are otherwise identical.
    S.write_installations(tmp_path / "results", [
        ("openmpi", "4.1.4", {}, None),
        ("mpich", "4.0.2", {("native", "intra-allgather", 65536): 1.5,
                            ("gather-bcast", "intra-allgather", 65536): 0.5}, None)], POINTS)
    code, table, out = run(tmp_path, [tmp_path / "results"])
    assert code == 1
    bad = table[table["status"] == "violated"]
    assert len(bad) == 1
    hit = bad.iloc[0]
    assert (hit["installation"], hit["collective"], hit["msg_bytes"], hit["mockup"]) == \
        ("mpich-4.0.2", "intra-allgather", 65536, "gather-bcast")
    assert abs(hit["ratio"] - 3.0) < 0.1 and (hit["n_native"], hit["n_mockup"]) == (S.INSTALLATION_LAUNCHES,) * 2
    assert hit["verdict"] == "regression" and hit["q_value"] < 0.05 and hit["ci_low"] > 1.05
    # Every guideline was checked at every size on both installations.
    assert len(table) == 2 * len(S.GUIDELINE_SIZES) * 3
    assert set(table["mockup"]) == {"root-gathering", "gather-bcast", "straightforward"}
    assert "mpich-4.0.2" in (out / "guidelines.md").read_text().split("## Violations (1)")[1]


def test_no_violation_where_natives_keep_the_guidelines(tmp_path):
    # The natives are the same or faster than their mock-ups (synthetic model: equal cost).
    S.write_installations(tmp_path / "results", [
        ("openmpi", "4.1.4", {("native", "allgather", 1024): 0.7}, None)], POINTS)
    code, table, out = run(tmp_path, [tmp_path / "results"])
    assert code == 0
    assert set(table["status"]) == {"kept"}
    assert "## Violations (0)\n\nNone." in (out / "guidelines.md").read_text()


def test_too_few_launches_give_no_verdict(tmp_path):
    S.write_installations(tmp_path / "results", [
        ("openmpi", "4.1.4", {("native", "allgather", 1024): 2.0}, None)], POINTS, launches=3)
    code, table, _ = run(tmp_path, [tmp_path / "results"])
    assert code == 4
    assert set(table["status"]) == {"inconclusive"} and set(table["verdict"]) == {"inconclusive"}
    assert table["reason"].str.startswith("too few launches").all()


def test_no_mockup_measured_is_bad_input(tmp_path, capsys):
    S.write_installations(tmp_path / "results", [("openmpi", "4.1.4", {}, None)],
                          [p for p in POINTS if p["algorithm"] not in ("root-gathering", "gather-bcast",
                                                                       "straightforward")])
    assert cli.main(["guidelines", str(tmp_path / "results"), "-o", str(tmp_path / "g")]) == 2
    assert "mock-up" in capsys.readouterr().err


def test_the_neighbourhood_pair_is_checked_and_named_by_its_neighbourhood(tmp_path):
    # MPI_Neighbor_alltoall (mpi-neighbor) planted 1.6x slower than straightforward at 1 KiB on
    # one installation: the violation names the neighbourhood and torus, the other size is kept.
    S.write_installations(tmp_path / "results", [
        ("openmpi", "5.0.7", {("mpi-neighbor", "neighbor-alltoall", 1024): 1.6}, None)], POINTS)
    code, table, _ = run(tmp_path, [tmp_path / "results"])
    assert code == 1
    pair = table[table["mockup"] == "straightforward"]
    assert set(pair["native"]) == {"mpi-neighbor"} and set(pair["collective"]) == {"neighbor-alltoall"}
    assert sorted(pair["msg_bytes"]) == sorted(S.GUIDELINE_SIZES)
    bad = pair[pair["status"] == "violated"]
    assert list(bad["msg_bytes"]) == [1024] and list(bad["shape"]) == ["moore:d=2,r=1 on 4x4"]
    assert abs(bad["ratio"].iat[0] - 1.6) < 0.05
    assert set(table[table["mockup"] != "straightforward"]["status"]) == {"kept"}


# ---- the rules come from the catalogue ------------------------------------------------------

def bruck_points(sizes=S.GUIDELINE_SIZES):
    return [S.point("bruck", collective="intra-allgather", msg_bytes=m) for m in sizes]


def test_bruck_is_a_second_allgather_mock_up_with_a_family_of_its_own(tmp_path):
    # The native intra Allgather planted 1.5x slower at 64 KiB: measured beside bruck too, it
    # violates both Allgather guidelines there; the gather-bcast checks are a family apart, so
    # their q-values are the ones of the run without bruck.
    slow = {("native", "intra-allgather", 65536): 1.5}
    S.write_installations(tmp_path / "with", [("openmpi", "4.1.4", slow, None)], POINTS + bruck_points())
    S.write_installations(tmp_path / "without", [("openmpi", "4.1.4", slow, None)], POINTS)
    code, table, out = run(tmp_path, [tmp_path / "with"])
    assert code == 1
    (bruck_rule,) = [r for r in guidelines.RULES if r.mockup == "bruck"]
    assert set(bruck_rule.collectives) == {"intra-allgather", "intra-allgatherv"}
    assert bruck_rule.guideline not in {r.guideline for r in guidelines.RULES if r.mockup != "bruck"}
    bruck = table[table["mockup"] == "bruck"]
    assert sorted(bruck["msg_bytes"]) == sorted(S.GUIDELINE_SIZES) and set(bruck["native"]) == {"native"}
    assert set(bruck["guideline"]) == {bruck_rule.guideline}
    assert list(bruck[bruck["status"] == "violated"]["msg_bytes"]) == [65536]
    assert f"`{bruck_rule.guideline}`: native against `bruck`" in (out / "guidelines.md").read_text()
    without = cli.main(["guidelines", str(tmp_path / "without"), "-o", str(tmp_path / "g0")])
    assert without == 1
    before = pd.read_csv(tmp_path / "g0" / "guidelines.csv", keep_default_na=False)
    pd.testing.assert_frame_equal(table[table["mockup"] != "bruck"].reset_index(drop=True), before)
    assert "bruck" not in (tmp_path / "g0" / "guidelines.md").read_text()


def test_a_mock_up_added_to_the_catalogue_yields_its_rule(tmp_path):
    # A synthetic catalogue in which fullduplex-allgather also mocks up the native inter-group
    # Allgather: its rule, and its checks, come with no edit of guidelines.py.
    snapshot = copy.deepcopy(catalogue.load())
    (entry,) = [e for e in snapshot["algorithms"]
                if (e["collective"], e["name"]) == ("allgather", "fullduplex-allgather")]
    assert entry["mock_up_of"] is None
    entry["mock_up_of"] = {"natives": ["native"], "guideline": "a synthetic guideline"}
    rules = guidelines.rules(snapshot)
    assert guidelines.Rule("a synthetic guideline", ("allgather",), "fullduplex-allgather", ("native",)) in rules
    assert len(set(rules) - set(guidelines.RULES)) == 1
    S.write_installations(tmp_path / "results", [("openmpi", "4.1.4", {}, None)], POINTS)
    entries = inventory.load_tree([tmp_path / "results"])
    grown = guidelines.check(entries, rules_=rules)
    new = grown[grown["mockup"] == "fullduplex-allgather"]
    assert sorted(new["msg_bytes"]) == sorted(S.GUIDELINE_SIZES)
    assert set(new["guideline"]) == {"a synthetic guideline"} and set(new["native"]) == {"native"}
    assert "fullduplex-allgather" not in set(guidelines.check(entries)["mockup"])
    assert "fullduplex-allgather" in guidelines.mockups(rules)


def test_each_call_form_is_checked_against_the_same_form_of_the_mock_up(tmp_path):
    # The native intra Allgather and gather-bcast as blocking and nonblocking calls; only the
    # native's nonblocking call is planted slow (1.5x at 64 KiB). Each form is its own check,
    # native against the mock-up of the same form, so exactly the nonblocking one is violated and
    # the report names its form.
    forms = ("blocking", "nonblocking")
    points = [S.point(a, collective="intra-allgather", msg_bytes=m, call=f)
              for m in S.GUIDELINE_SIZES for a in ("native", "gather-bcast") for f in forms]
    base = S.slowdown({})

    def time_fn(pt, launch, rep):
        slow = pt["algorithm"] == "native" and pt["call"] == "nonblocking" and pt["msg_bytes"] == 65536
        return base(pt, launch, rep) * (1.5 if slow else 1.0)

    d = S.write_result_set(tmp_path / "results" / "synth" / "openmpi-4.1.4", points, launches=5, reps=6,
                           time_fn=time_fn, extra_meta=S.ONE_PER_CORE)
    code, table, out = run(tmp_path, [d])
    assert code == 1
    assert len(table) == len(S.GUIDELINE_SIZES) * len(forms)
    bad = table[table["status"] == "violated"]
    assert [(r.call, r.msg_bytes, r.mockup) for r in bad.itertuples()] == [("nonblocking", 65536, "gather-bcast")]
    assert abs(bad.iloc[0]["ratio"] - 1.5) < 0.05
    violations = (out / "guidelines.md").read_text().split("## Violations (1)")[1].split("##")[0]
    assert "| nonblocking | native | gather-bcast |" in violations
