"""collrepro-py reproduce: the claims file checked against the project, the verdicts' known
answers (pure), and bad input (python/collrepro/reproduce/)."""

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from collrepro.analysis.figures import claims as C
from collrepro.reproduce import data as D
from collrepro.reproduce import judge as J
from collrepro.safeio import UserError
from collrepro.sim.running import paper
from collrepro.sim.validation import validate as V

REPO = Path(__file__).resolve().parents[2]


def test_every_claim_names_an_existing_experiment_and_a_number_from_the_paper():
    tolerance, figures, rest = C.load()
    runs = paper.load_runs()
    from collrepro.reproduce import small
    small_runs = small.load_runs()
    families = set(pd.read_csv(REPO / "results" / "sim" / "validation" / "summary.csv")["experiment"])
    seen = set()
    for fid, fig in figures.items():
        for name in fig["sim"]:
            assert name in runs, f"{fid}: no simulated set {name} in configs/paper/sim-runs.yaml"
            assert (REPO / "results" / "sim" / f"{name}-cori-memory").is_dir(), f"{fid}: no archive of {name}"
        if fig.get("node16"):
            assert fig["node16"] in V.EXPERIMENTS, f"{fid}: {fig['node16']} is not an experiment of the node's runs"
        for name in fig["small"]:
            assert name in small_runs, f"{fid}: no small set {name} in configs/paper/small-runs.yaml"
            assert (REPO / "results" / "reproduce" / "archive" / name).is_dir(), f"{fid}: no archive of {name}"
        assert fig.get("family") in families, f"{fid}: no validation rows for {fig.get('family')}"
        assert fig["paper"] in ("seed 000", "seed 001", "seed 004") and fig["figure"].startswith(("Fig", "Table"))
        for c in fig["claims"]:
            assert c["id"] not in seen, f"claim {c['id']} twice"
            seen.add(c["id"])
            assert c["kind"] == "slower" or c["value"] > 0
            assert "'" in c["source"] or ":" in c["source"], f"{c['id']}: the source quotes or places the paper's words"
    assert seen and rest and 1 < tolerance < 2


def test_paper_values_are_the_claims_files():
    """seed 000's Fig. 4 numbers are stated once, in the claims file."""
    from collrepro.analysis.figures import paper_values as PV
    _, figures, _ = C.load()
    stated = {(f["sim"][0].split("-")[1], c["at"]["p"], c["at"]["q"], c["value"])
              for f in figures.values() if f["paper"] == "seed 000" for c in f["claims"]}
    table = {("fc" if t == "fully-connected" else "ring", p, q, v) for (t, n, p, q), v in PV.SEED000_FIG4.items()}
    assert stated == table and len(table) == 12


@pytest.mark.parametrize("measured, verdict", [(5.0, J.HOLDS), (4.3, J.HOLDS), (3.0, J.SHAPE), (0.9, J.NOT_HOLD),
                                               (None, J.NOT_MEASURED)])
def test_a_claim_with_a_known_ratio(measured, verdict):
    assert J.claim_verdict("speedup", measured, 5.3, 1.25)[0] == verdict


def test_a_known_factor_turns_holds_into_does_not_hold():
    ratio = 5.3
    assert J.claim_verdict("speedup", ratio, 5.3, 1.25)[0] == J.HOLDS
    assert J.claim_verdict("speedup", ratio / 1.5, 5.3, 1.25)[0] == J.SHAPE
    assert J.claim_verdict("speedup", ratio / 6.0, 5.3, 1.25)[0] == J.NOT_HOLD
    assert J.claim_verdict("slower", 0.8, None, 1.25)[0] == J.HOLDS
    assert J.claim_verdict("slower", 1.2, None, 1.25)[0] == J.NOT_HOLD


def _frame():
    rows = []
    for b in (1 << 20, 4 << 20):
        rows += [{"collective": "allgather", "msg_bytes": b, "p": "128", "q": "128", "algorithm": "root-gathering",
                  "median_s": 4e-3 * b / (1 << 20)},
                 {"collective": "allgather", "msg_bytes": b, "p": "128", "q": "128", "algorithm": "halfduplex-fc",
                  "median_s": 1e-3 * b / (1 << 20)}]
    return pd.DataFrame(rows)


def test_measured_ratio_at_the_claims_point_and_the_largest_over_points():
    claim = {"kind": "speedup", "baseline": "root-gathering", "proposed": ["halfduplex-fc"],
             "at": {"p": 128, "q": 128, "bytes": 4 << 20}}
    assert D.measured_ratio(_frame(), claim) == pytest.approx(4.0)
    assert D.measured_ratio(_frame(), dict(claim, at={"p": 64, "q": 192, "bytes": 4 << 20})) is None
    assert D.measured_ratio(_frame(), dict(claim, kind="max-speedup", at={})) == pytest.approx(4.0)


def test_a_deterministic_set_regenerated_is_reproduced_and_a_scaled_algorithm_is_named():
    archive = D.medians_by_key(_frame())
    assert J.archive_verdict(archive, dict(archive))[0] == J.REPRODUCED
    tie = {k: v + 1e-9 for k, v in archive.items()}  # one of SimGrid's date steps: a tie
    assert J.archive_verdict(archive, tie)[0] == J.REPRODUCED
    scaled = {k: v * (1.2 if "root-gathering" in k else 1.0) for k, v in archive.items()}
    verdict, detail, differing = J.archive_verdict(archive, scaled)
    assert verdict == J.NOT_REPRODUCED and "2 of 4 points differ" in detail and "20.00%" in detail
    assert {k for k, _, _ in differing} == {k for k in archive if "root-gathering" in k}
    assert J.archive_verdict(archive, None)[0] == J.NOT_RUN


def _run(*args):
    return subprocess.run([str(REPO / "collrepro-py"), "reproduce", *args], capture_output=True, text=True, cwd=REPO)


def test_an_unknown_figure_is_one_line_and_exit_2(tmp_path):
    p = _run("fig99", "--out", str(tmp_path))
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "--list" in p.stderr
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("text, field", [("figures: 3\ntolerance: 1.25\n", "figures"),
                                         ("tolerance: 9\nfigures: {}\n", "tolerance"),
                                         ("tolerance: 1.25\nfigures:\n  x: {paper: seed 000, figure: Fig. 9, "
                                          "scales: [moon], claims: [], sim: [a]}\n", "scales"),
                                         ("tolerance: 1.25\nfigures:\n  x: {paper: seed 000, figure: Fig. 9, "
                                          "scales: [here], sim: [a], claims: [{id: c, kind: speedup, baseline: a, "
                                          "proposed: b, value: 2, source: s, at: {bytes: lots}}]}\n", "at.bytes"),
                                         ("{not yaml", "not valid YAML")])
def test_a_damaged_claims_file_is_one_line_naming_the_field(tmp_path, text, field):
    path = tmp_path / "claims.yaml"
    path.write_text(text)
    with pytest.raises(UserError) as err:
        C.load(path)
    assert field in str(err.value) and "\n" not in str(err.value)
    p = _run("--list", "--claims", str(path))
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1


def test_the_list_names_every_figure_and_the_unregenerated(tmp_path):
    p = _run("--list")
    assert p.returncode == 0, p.stderr
    _, figures, rest = C.load()
    for fid in figures:
        assert f"\n{fid}: " in p.stdout
    assert "not regenerated:" in p.stdout and all(r["figure"] in p.stdout for r in rest)




def test_the_docs_table_comes_from_the_verdicts_on_disk(tmp_path):
    from collrepro.reproduce import cli
    _, figures, _ = C.load()
    fid = next(iter(figures))
    (tmp_path / fid).mkdir()
    (tmp_path / fid / "verdict.json").write_text(
        '{"rows": [{"what": "archive x", "verdict": "reproduced", "detail": ""}, '
        '{"what": "claim fig4d", "verdict": "holds in shape", "on": "x (regenerated)", "measured": 3.97, "detail": ""}], '
        '"model_validity": [{"family": "f", "library": "mpich", "median_abs_error_pct": 15.7, '
        '"ranking_preserved_pct": 79.2, "goal": "neither"}]}')
    doc = tmp_path / "results.md"
    doc.write_text(f"intro\n{cli.BEGIN}\nold\n{cli.END}\nrest\n")
    assert cli.write_table(figures, tmp_path, doc) == 0
    text = doc.read_text()
    assert "\nold\n" not in text and text.startswith("intro\n") and text.endswith("rest\n")
    assert f"(`{fid}`) | x: reproduced | fig4d holds in shape (x: x3.97) | f / mpich: 15.7 %, ranking 79.2 % (neither) |" in text
    assert text.count("not judged yet") == len(figures) - 1
    doc.write_text("no block\n")
    with pytest.raises(UserError):
        cli.write_table(figures, tmp_path, doc)


def test_the_containerfile_installs_exactly_what_collrepro_installs():
    """results/artifact/Containerfile (reproduce --appendix) and ./collrepro's package list agree."""
    from collrepro.reproduce import appendix
    text = (REPO / "results" / "artifact" / "Containerfile").read_text()
    run = text[text.index("--no-install-recommends"):text.index("&& rm -rf")]
    listed = [w for w in run.replace("\\", " ").split()[1:]]
    assert listed == appendix.packages(), "regenerate it: ./collrepro-py reproduce --appendix"
    assert "FROM localhost/" in text and "debootstrap" in text  # no registry: a base made from apt's own sources


def test_a_set_too_long_to_rerun_is_not_run_and_says_how(tmp_path):
    """seed 001 at 2048 x 32 took hours: under the default --max-minutes it is judged, not simulated."""
    claims = tmp_path / "claims.yaml"      # without the small real sets, which would run here
    claims.write_text("".join(ln for ln in C.CLAIMS and open(C.CLAIMS) if not ln.startswith("    small:")))
    p = _run("seed001-figs4-6-2048", "--out", str(tmp_path), "--claims", str(claims))
    assert p.returncode == 0, p.stderr
    assert "not run" in p.stdout and "over --max-minutes 60; give --max-minutes" in p.stdout
    assert not (tmp_path / "sim").exists()
    bad = _run("seed000-fig4-fc-256", "--max-minutes", "0", "--out", str(tmp_path))
    assert bad.returncode == 2 and "--max-minutes" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_a_stopped_simulation_is_not_judged_and_leaves_the_verdict_alone(tmp_path, monkeypatch, capsys):
    """A rerun stopped halfway (exit 130) is `not run` with how many points it has, its claims are
    judged on the archive, the exit code is the simulation's and the verdict on disk is kept."""
    from collrepro.reproduce import cli
    monkeypatch.setattr(cli, "simulate_missing", lambda name, out, build_dir: 130)
    monkeypatch.setattr(cli, "judge_small", lambda name, a: ({"what": f"archive {name}", "verdict": "not run",
                                                              "detail": "not run in this test"}, 0))
    (tmp_path / "seed000-fig4-fc-256").mkdir()
    kept = tmp_path / "seed000-fig4-fc-256" / "verdict.md"
    kept.write_text("the earlier verdict\n")
    assert cli.main(["seed000-fig4-fc-256", "--out", str(tmp_path)]) == 130
    out = capsys.readouterr().out
    assert "not run" in out and "the simulation stopped (exit 130) with 0 of 48 points" in out
    assert "(archive, cori-memory)" in out and "not reproduced" not in out
    assert kept.read_text() == "the earlier verdict\n"


# ---------------------------------------------------------------- the small real sets: equivalence

def _launches(seed, points=18, launches=40, spread=0.04, level=0.15, shift=None):
    """{point: {launch: median}}: each launch at a level of its own (log sd `level`, the host's
    launch modes) and each point about 20-240 us with launch-to-launch noise `spread` (log sd);
    shift: {point: factor}."""
    import numpy as np
    rng = np.random.default_rng(seed)
    shift = shift or {}
    lv = level * rng.standard_normal(launches)
    return {k: {l: float(np.exp(np.log(2e-5 * (k[1] + 1) * shift.get(k, 1.0)) + lv[l] + spread * rng.standard_normal()))
                for l in range(launches)}
            for k in (("p", i, alg) for i in range(points // 3) for alg in ("proposed", "baseline", "native"))}


def test_a_rerun_from_the_same_noise_is_reproduced_and_the_margins_are_the_archives_alone():
    from collrepro.reproduce import equivalence as E
    archive = _launches(1)
    verdict, detail, rows, margins = E.judge(archive, _launches(2))
    assert verdict == E.REPRODUCED, detail
    assert all(r["status"] == E.EQUIVALENT for r in rows.values())
    assert E.judge(archive, _launches(3, spread=0.3))[3] == margins      # stated in advance: the archive's
    assert all(0.05 <= v < 0.15 for v in margins["points"].values())


def test_reruns_from_the_archives_noise_are_reproduced_about_as_often_as_the_margin_promises():
    """The margin is the one within which a rerun of the archive's own noise is reproduced 90 % of
    the time; 40 seeded reruns (the level spread the AMD host shows, 15 %) land near that."""
    from collrepro.reproduce import equivalence as E
    archive = _launches(100)
    hits = sum(E.judge(archive, _launches(seed))[0] == E.REPRODUCED for seed in range(101, 141))
    assert 30 <= hits <= 40, hits


def test_one_algorithm_scaled_by_1_2_is_not_reproduced_naming_exactly_its_points():
    from collrepro.reproduce import equivalence as E
    archive = _launches(1)
    scaled = {k: {l: v * 1.2 for l, v in vs.items()} if k[2] == "baseline" else vs for k, vs in archive.items()}
    verdict, detail, rows, _ = E.judge(scaled, archive)
    assert verdict == E.NOT_REPRODUCED and "6 of 18 judged points differ" in detail, detail
    assert {k for k, *_ in E.differing(rows)} == {k for k in archive if k[2] == "baseline"}
    assert all(abs(r - 1 / 1.2) < 0.04 for _, r, _, _ in E.differing(rows))   # the level: a median, nudged
    assert rows[E.LEVEL]["status"] == E.EQUIVALENT      # a minority of points moved: not the level


def test_a_slower_machine_is_the_level_not_the_points():
    from collrepro.reproduce import equivalence as E
    archive = _launches(1)
    slower = {k: {l: v * 1.3 for l, v in vs.items()} for k, vs in _launches(2).items()}
    verdict, detail, rows, _ = E.judge(archive, slower)
    assert verdict == E.NOT_REPRODUCED and "level differs" in detail, detail
    assert [k for k, *_ in E.differing(rows)] == [E.LEVEL]


def test_too_few_launches_is_inconclusive_with_the_margin_the_data_supports():
    from collrepro.reproduce import equivalence as E
    archive = _launches(1)
    few = {k: {l: v for l, v in vs.items() if l < 3} for k, vs in _launches(2).items()}
    verdict, detail, _, margins = E.judge(archive, few)
    assert verdict == E.INCONCLUSIVE and "could support a margin of" in detail, detail
    supported = float(detail.split("could support a margin of ")[1].split("%")[0]) / 100
    assert supported > max(margins["points"].values())


def test_a_missing_point_or_another_machine():
    from collrepro.reproduce import equivalence as E
    archive = _launches(1)
    fewer = {k: v for k, v in _launches(2).items() if k != ("p", 0, "baseline")}
    assert E.judge(archive, fewer)[0] == E.NOT_REPRODUCED
    verdict, detail, _, _ = E.judge(archive, _launches(2), ["different machine"])
    assert verdict == E.NOT_COMPARABLE and detail == "different machine"


SMALL = REPO / "results" / "reproduce" / "archive"


@pytest.mark.parametrize("name", ["seed000-np2", "seed001-np2", "seed004-np2"])
def test_a_real_archive_against_itself_and_scaled(name):
    """A committed archive of a small real set: against itself `reproduced`; with each algorithm's
    medians in turn scaled by 1.2, `not reproduced`, naming only that algorithm's points, and every
    one of them whose margin leaves room to see 20 % (at most 10 %)."""
    from collrepro.reproduce import equivalence as E
    path = SMALL / name
    if not path.is_dir():
        pytest.skip(f"no committed archive of {name}")
    archive = D.launch_medians(path)
    assert E.judge(archive, archive)[0] == E.REPRODUCED
    for algorithm in sorted({k[-1] for k in archive}):
        scaled = {k: {l: v * 1.2 for l, v in vs.items()} if k[-1] == algorithm else vs for k, vs in archive.items()}
        verdict, detail, rows, margins = E.judge(archive, scaled)
        named = {k for k, *_ in E.differing(rows)}
        assert verdict == E.NOT_REPRODUCED, (algorithm, detail)
        assert all(k[-1] == algorithm for k in named), algorithm
        assert {k for k in archive if k[-1] == algorithm and margins["points"][k] <= 0.10} <= named, algorithm


def test_an_archive_of_another_process_count_is_not_comparable():
    from collrepro.reproduce import cli
    name, path = "seed000-np2", SMALL / "seed000-np2"
    other = REPO / "results" / "seed000-halfduplex" / "openmpi-4.1.4"   # 16 processes, oversubscribed
    row = cli.small_verdict(name, other, path)
    assert row["verdict"] == "not comparable" and "process count 16 (archive) vs 2" in row["detail"]


def test_a_missing_small_archive_is_one_line_and_exit_2(tmp_path):
    p = _run("seed000-fig4-fc-256", "--archive-root", str(tmp_path / "none"), "--out", str(tmp_path / "out"))
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "--make-archive seed000-np2" in p.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("text, field", [("s: {what: w, config: seed004-isomorphic.yaml, np: 1, mpi: openmpi, launches: 5}", "np"),
                                         ("s: {what: w, config: nope.yaml, np: 2, mpi: openmpi, launches: 5}", "config"),
                                         ("s: {what: w, config: seed004-isomorphic.yaml, np: 2, mpi: openmpi}", "launches")])
def test_a_damaged_small_sets_file_is_one_line_naming_the_field(tmp_path, text, field):
    from collrepro.reproduce import small
    path = tmp_path / "small.yaml"
    path.write_text(text + "\n")
    with pytest.raises(UserError) as err:
        small.load_runs(path)
    assert field in str(err.value) and "\n" not in str(err.value)



def test_an_archive_is_sealed_summaries_and_metadata_compressed_and_still_read_alike(tmp_path):
    import shutil
    from collrepro.reproduce import small
    src = SMALL / "seed000-np2"
    if not src.is_dir():
        pytest.skip("no committed archive of seed000-np2")
    d = tmp_path / "a"
    shutil.copytree(src, d)
    (d / "raw-L0.csv").write_text("the repetitions, tens of MB in a real run\n")
    (d / "summary-L0.csv.gz").rename(d / "summary-L0.csv")     # one file not yet compressed
    import gzip
    (d / "summary-L0.csv").write_bytes(gzip.decompress((d / "summary-L0.csv").read_bytes()))
    assert small.seal(d) == 0
    assert not list(d.glob("raw-*")) and not list(d.glob("*.csv")) and (d / "summary-L0.csv.gz").is_file()
    assert D.launch_medians(d) == D.launch_medians(src)


def test_ctrl_c_in_a_small_set_stops_the_command_and_keeps_the_verdict(tmp_path, monkeypatch, capsys):
    from collrepro.reproduce import cli, small
    monkeypatch.setattr(small, "run", lambda *args, **kw: 130)
    simulated = []
    monkeypatch.setattr(cli, "simulate_missing", lambda *args: simulated.append(args) or 0)
    (tmp_path / "seed000-fig4-fc-256").mkdir()
    kept = tmp_path / "seed000-fig4-fc-256" / "verdict.md"
    kept.write_text("the earlier verdict\n")
    assert cli.main(["seed000-fig4-fc-256", "seed000-fig4-ring-256", "--out", str(tmp_path)]) == 130
    assert not simulated and kept.read_text() == "the earlier verdict\n"
    assert "interrupted during seed000-fig4-fc-256" in capsys.readouterr().out
    assert not (tmp_path / "seed000-fig4-ring-256").exists()


def test_a_missing_simulated_archive_is_one_line_and_exit_2(tmp_path, monkeypatch):
    from collrepro.reproduce import cli
    monkeypatch.setattr(cli, "archive_dir", lambda name: tmp_path / "gone" / name)
    with pytest.raises(UserError) as err:
        cli.main(["seed000-fig4-fc-256", "--out", str(tmp_path / "out")])
    assert "no archive of the simulated set seed000-fc-256x1" in str(err.value) and "\n" not in str(err.value)
    assert not (tmp_path / "out").exists()


def test_a_partial_regenerated_simulation_is_not_run_not_judged(tmp_path, monkeypatch, capsys):
    """A set whose simulation was stopped (collbench's .tmp files beside the finished slices) is
    `not run`, with how many points are done, even when only judged (--no-run)."""
    import shutil
    from collrepro.reproduce import cli
    monkeypatch.setattr(cli, "judge_small", lambda name, a: ({"what": f"archive {name}", "verdict": "not run",
                                                              "detail": "not run in this test"}, 0))
    regen = tmp_path / "sim" / "seed000-fc-256x1-cori-memory"
    shutil.copytree(REPO / "results" / "sim" / "seed000-fc-256x1-cori-memory", regen)
    (regen / "summary-L1.csv.tmp").write_text("")
    assert cli.main(["seed000-fig4-fc-256", "--no-run", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "the regenerated set is partial" in out and "48 of 48 points complete" in out
    assert "not reproduced" not in out


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
