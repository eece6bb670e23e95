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
    families = set(pd.read_csv(REPO / "results" / "sim" / "validation" / "summary.csv")["experiment"])
    seen = set()
    for fid, fig in figures.items():
        for name in fig["sim"]:
            assert name in runs, f"{fid}: no simulated set {name} in configs/paper/sim-runs.yaml"
            assert (REPO / "results" / "sim" / f"{name}-cori-memory").is_dir(), f"{fid}: no archive of {name}"
        if fig.get("node16"):
            assert fig["node16"] in V.EXPERIMENTS, f"{fid}: {fig['node16']} is not an experiment of the node's runs"
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


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))


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
    assert f"(`{fid}`) | reproduced | fig4d holds in shape (x: x3.97) | f / mpich: 15.7 %, ranking 79.2 % (neither) |" in text
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
    p = _run("seed001-figs4-6-2048", "--out", str(tmp_path))
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
    (tmp_path / "seed000-fig4-fc-256").mkdir()
    kept = tmp_path / "seed000-fig4-fc-256" / "verdict.md"
    kept.write_text("the earlier verdict\n")
    assert cli.main(["seed000-fig4-fc-256", "--out", str(tmp_path)]) == 130
    out = capsys.readouterr().out
    assert "not run" in out and "the simulation stopped (exit 130) with 0 of 48 points" in out
    assert "(archive, cori-memory)" in out and "not reproduced" not in out
    assert kept.read_text() == "the earlier verdict\n"
