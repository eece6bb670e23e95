"""Cost-model overlay (fit, efficiency), report (md/html), and the bash wrapper."""

import csv
import json
import subprocess
from pathlib import Path

import pytest

import synthetic as S
from collrepro.analysis.frames import aggregate as A
from collrepro.analysis import cli
from collrepro.analysis.figures import overlay
from collrepro.analysis.loading import loader
from collrepro.analysis.figures import plotting as pl

ANALYZE = Path(__file__).resolve().parent.parent.parent / "analysis" / "analyze"
SIZES = [4096, 65536]
PINGPONG = [{"bytes": b, "time_s": S.ALPHA + b * S.BETA} for b in (8, 1024, 65536, 1 << 20)]


@pytest.fixture(scope="module")
def exact(tmp_path_factory):
    """seed 001 points timed exactly by the synthetic cost model."""
    return S.write_result_set(tmp_path_factory.mktemp("exact") / "set", S.seed001_points(SIZES),
                              launches=2, reps=4, time_fn=lambda pt, l, r: S.model_time(pt),
                              pingpong=PINGPONG)


@pytest.mark.parametrize("source", ["model", "pingpong"])
def test_fit_recovers_alpha_beta(exact, source):
    rs = loader.load([exact])
    fits = overlay.fit_parameters(A.aggregate(rs), rs.metas, source)
    assert fits.iloc[0]["alpha_s"] == pytest.approx(S.ALPHA, rel=1e-6)
    assert fits.iloc[0]["beta_s_per_byte"] == pytest.approx(S.BETA, rel=1e-6)


def test_overlay_command_writes_efficiency(exact, tmp_path):
    out = tmp_path / "ov"
    assert cli.main(["overlay", str(exact), "-o", str(out)]) == 0
    rows = list(csv.DictReader(open(out / "efficiency.csv")))
    assert len(rows) == len(S.seed001_points(SIZES))
    for row in rows:
        # synthetic.point(): bound = 2 alpha + msg_bytes beta
        bound = 2.0 * S.ALPHA + float(row["msg_bytes"]) * S.BETA
        assert float(row["efficiency"]) == pytest.approx(bound / float(row["median"]), rel=1e-6)
        assert float(row["predicted_over_measured"]) == pytest.approx(1.0, rel=1e-6)
    assert (out / "overlay.png").stat().st_size > 0 and (out / "fit.csv").exists()


def test_report_markdown(exact, tmp_path):
    assert cli.main(["report", str(exact), "-o", str(tmp_path / "md")]) == 0
    text = (tmp_path / "md" / "report.md").read_text()
    assert "## Median of medians per point" in text and "Speedups:" in text
    assert "Eq. 5 model limit" in text and "![seed001-fig6-improvement]" in text
    for image in ("figures/seed001-fig4-allgather.png", "overlay/overlay.png"):
        assert (tmp_path / "md" / image).stat().st_size > 0


def test_report_html(tmp_path):
    pts = [S.point(a, collective="neighbor-alltoall", topology="torus", neighborhood="moore:d=2,r=1",
                   dims="4x4", msg_bytes=8, cost_alpha_terms=None, cost_beta_bytes=None)
           for a in ("torus", "mpi-neighbor")]
    d = S.write_result_set(tmp_path / "set", pts, launches=2, reps=3,
                           time_fn=lambda pt, l, r: 1e-5 * (2 if pt["algorithm"] == "torus" else 3))
    assert cli.main(["report", str(d), "-o", str(tmp_path / "html"), "--format", "html"]) == 0
    page = (tmp_path / "html" / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<table>" in page
    assert '<img src="figures/seed004-fig2-4-neighbor-alltoall.png"' in page
    assert "1.50x" in page                      # speedup mpi-neighbor / torus
    assert not (tmp_path / "html" / "overlay").exists()   # no cost model, no overlay


def test_wrapper_help_and_bad_input(tmp_path):
    done = subprocess.run([str(ANALYZE), "compare", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "--min-launches" in done.stdout
    done = subprocess.run([str(ANALYZE), "aggregate", str(tmp_path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "no raw-*.csv" in done.stderr


def test_report_and_compare_mix_all_families(tmp_path):
    """Rows of three families (their other families' shape columns empty) go through together."""
    pts = [S.point(a, collective="intra-allgatherv", distribution="random", dist_seed=2, msg_bytes=m)
           for a in ("native", "gather-bcast") for m in (64, 4096)]
    pts += [S.point("native", p=2, q=2, ka=8, kb=8, msg_bytes=8), S.iso_point("torus", msg_bytes=8)]
    d = S.write_result_set(tmp_path / "set", pts, launches=2, reps=3)
    assert cli.main(["report", str(d), "-o", str(tmp_path / "r")]) == 0
    titles = [l for l in (tmp_path / "r" / "report.md").read_text().splitlines() if l.startswith("### ")]
    assert titles == ["### allgather fully-connected 2:2, kA:kB=1:1",
                      "### intra-allgatherv random (seed 2), root 0",
                      "### neighbor-alltoall moore:d=2,r=1 on 4x4"]
    # The intra natives stand beside their mock-up: the report checks the guideline (2 launches: no verdict).
    assert "## Performance guidelines" in (tmp_path / "r" / "report.md").read_text()
    # 2 vs 2 launches cannot reach significance: every verdict is refused, exit 4.
    assert cli.main(["compare", str(d), str(d), "-o", str(tmp_path / "c")]) == 4
    rows = list(csv.DictReader(open(tmp_path / "c" / "compare.csv")))
    assert len(rows) == len(pts)


def test_report_shows_tails_and_warns_of_oversubscription(tmp_path):
    # every fifth repetition 10x slower: the Tukey filter drops them, p90/p99 keep them
    slow = lambda pt, l, r: S.model_time(pt) * (10.0 if r % 5 == 4 else 1.0)  # noqa: E731
    d = S.write_result_set(tmp_path / "set", S.seed001_points(SIZES), launches=2, reps=20, time_fn=slow)
    assert cli.main(["report", str(d), "-o", str(tmp_path / "quiet")]) == 0
    text = (tmp_path / "quiet" / "report.md").read_text()
    assert "Tail, P50 / P90 / P99 of the valid repetitions" in text and "OVERSUBSCRIBED" not in text
    agg = A.aggregate(loader.load([d]))
    assert (agg["p90"] > 5 * agg["max"]).all() and (agg["p50"] == agg["median"]).all()
    for meta in d.glob("meta-L*.json"):
        m = json.loads(meta.read_text())
        m["oversubscription"] = {"ranks_per_core": 4.0, "oversubscribed": True, "host": "testhost",
                                 "ranks": 8, "cores": 2}
        meta.write_text(json.dumps(m))
    assert cli.main(["report", str(d), "-o", str(tmp_path / "over")]) == 0
    text = (tmp_path / "over" / "report.md").read_text()
    assert "Warning: OVERSUBSCRIBED: 8 ranks on 2 cores of testhost (4 per core)" in text
    rs = loader.load([d])
    assert "OVERSUBSCRIBED" in pl.footer_text(A.aggregate(rs), rs.metas)    # every figure's footer


def test_footer_names_a_simulated_platform_and_its_role(tmp_path):
    d = S.write_result_set(tmp_path / "set", S.seed001_points(SIZES[:1]), launches=1, reps=3)
    rs = loader.load([d])
    assert "simulated" not in pl.footer_text(A.aggregate(rs), rs.metas)
    role = "the model-free reference: a contention-free network"
    for meta in d.glob("meta-L*.json"):
        m = json.loads(meta.read_text())
        m.update(simulated=True, platform="configs/platforms/flat-crossbar.xml",
                 simulation={"root_zone": "flat-crossbar", "platform_role": role})
        meta.write_text(json.dumps(m))
    rs = loader.load([d])
    assert f"(simulated: configs/platforms/flat-crossbar.xml): {role}" in pl.footer_text(A.aggregate(rs), rs.metas)
    for meta in d.glob("meta-L*.json"):  # a platform that states no role (cori-memory): none printed
        m = json.loads(meta.read_text())
        m["simulation"]["platform_role"] = None
        meta.write_text(json.dumps(m))
    rs = loader.load([d])
    assert pl.footer_text(A.aggregate(rs), rs.metas).splitlines()[0].endswith("flat-crossbar.xml)")
