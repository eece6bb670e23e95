"""analyze dashboard: the static site over a synthetic multi-installation results tree, and its
rendering in headless Chromium (no script errors, every plot drawn with its traces)."""

import re
import shutil

import numpy as np
import pytest

import headless
import synthetic as S
from collrepro.analysis import cli, dashboard

POINTS = S.guideline_points()
SLOW = ("native", "allgather", 65536)          # slower from openmpi-5.0.7 on, and than its mock-up
INSTALLATIONS = [
    ("openmpi", "4.1.4", {}, None),
    ("openmpi", "5.0.7", {SLOW: 1.6}, None),
    ("openmpi", "5.1.0", {SLOW: 1.6}, None),
    ("mpich", "3.4.1", {}, None),
    ("mpich", "4.0.2", {}, S.OVERSUBSCRIBED),
]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("dash")
    S.write_installations(root / "results", INSTALLATIONS, POINTS, experiment="synth-versions")
    S.write_installations(root / "results", INSTALLATIONS[:1], POINTS[:3], experiment="synth-small")
    out = root / "site"
    assert cli.main(["dashboard", str(root / "results"), "-o", str(out)]) == 0
    return out


def test_index_lists_experiments_and_installations(site):
    index = (site / "index.html").read_text()
    for name in ("exp-synth-versions.html", "exp-synth-small.html", "openmpi-5.1.0", "mpich-3.4.1",
                 "mpich library 4.0.2 (synthetic)"):
        assert name in index
    assert "1 experiment(s) ran oversubscribed (synth-versions)" in index
    assert (site / "plotly.min.js").stat().st_size > 1_000_000
    for page in site.glob("*.html"):       # offline: no script or style from the network
        assert not re.search(r'(src|href)="(https?:)?//', page.read_text()), page


def test_experiment_page_marks_regressions_violations_and_oversubscription(site):
    page = (site / "exp-synth-versions.html").read_text()
    assert "OVERSUBSCRIBED: 8 ranks on 2 cores of testhost" in page
    slower = re.findall(r'<tr class="bad">(.*?)</tr>', page.split("id='trend'")[1].split("<h3>")[0])
    assert len(slower) == 1 and "openmpi-5.0.7" in slower[0] and "64 KiB" in slower[0]
    violations = page.split("<h3>Violations (")[1]
    assert violations.startswith("2)")       # openmpi-5.0.7 and 5.1.0, native vs root-gathering
    assert "openmpi-5.0.7" in violations.split("</table>")[0]
    assert "mpich: some installations ran oversubscribed and others not" in page
    assert page.count("full metadata</summary>") == 5 * len(INSTALLATIONS)   # every launch's provenance
    assert page.count('class="plot"') == 3 + 2 * 3    # 3 settings; trend: 3 per library


def test_oversubscription_is_inferred_for_runs_that_did_not_record_it():
    meta = {"ppn": 16, "hwloc": {"cores": 2}, "machine": "vm; Xeon", "simulated": False}
    inferred = dashboard.oversubscription(meta)
    assert inferred["oversubscribed"] and inferred["ranks_per_core"] == 8 and inferred["host"] == "vm"
    assert not dashboard.oversubscription(dict(meta, ppn=2))["oversubscribed"]
    assert dashboard.oversubscription(dict(meta, simulated=True)) is None


def test_foreign_output_directory_is_refused(tmp_path, site, capsys):
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    assert cli.main(["dashboard", str(site.parent / "results"), "-o", str(other)]) == 2
    assert (other / "notes.txt").read_text() == "keep me"
    assert "not a dashboard" in capsys.readouterr().err


def test_rebuild_replaces_a_dashboard(tmp_path):
    S.write_installations(tmp_path / "results", INSTALLATIONS[:1], POINTS[:3], experiment="one")
    out = tmp_path / "site"
    for _ in range(2):
        assert cli.main(["dashboard", str(tmp_path / "results"), "-o", str(out)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results", "site"]   # no staging left
    assert (out / "exp-one.html").exists() and "openmpi-4.1.4" in (out / "index.html").read_text()


needs_chromium = pytest.mark.skipif(headless.BROWSER is None,
                                    reason="chromium is not installed (./collrepro deps installs it)")


@needs_chromium
def test_chromium_draws_every_plot_without_script_errors(site):
    page = site / "exp-synth-versions.html"
    plots = page.read_text().count('class="plot"')
    shown = headless.render(page)
    assert 'data-script-errors="0"' in shown.dom, shown.console
    assert f'data-plots-drawn="{plots}"' in shown.dom
    assert shown.dom.count('data-drawn="1"') == plots
    assert not [line for line in shown.console if "Uncaught" in line or "Error" in line]
    # Every trace drew a line path: the size plots have one per (algorithm, installation).
    lines = re.findall(r'<path class="js-line" d="M[^"]+"', shown.dom)
    assert len(lines) >= 3 * len(INSTALLATIONS)


@needs_chromium
def test_chromium_reports_a_broken_page(site, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(site, broken)
    (broken / "plotly.min.js").unlink()
    shown = headless.render(broken / "exp-synth-versions.html")
    assert 'data-script-errors="0"' not in shown.dom
    assert "plotly.min.js did not load" in shown.dom


@needs_chromium
def test_screenshot_is_not_blank(site, tmp_path):
    from matplotlib.image import imread
    png = headless.screenshot(site / "exp-synth-versions.html", tmp_path / "dashboard.png")
    pixels = imread(png)[..., :3].reshape(-1, 3)
    colours = np.unique((pixels * 255).astype(np.uint8), axis=0)
    assert len(colours) > 100                      # text, tables and coloured plot lines
    shutil.copy(png, site / "screenshot-test.png")  # for a look: beside the site
