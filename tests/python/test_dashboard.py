"""analyze dashboard: the static site over a synthetic multi-installation results tree, and its
rendering in headless Chromium (no script errors, every plot drawn with its traces)."""

import re
import shutil

import numpy as np
import pandas as pd
import pytest

import headless
import synthetic as S
from collrepro.analysis import cli
from collrepro.analysis.dashboard import page as dashboard
from collrepro.analysis.dashboard import figures as figs
from collrepro.analysis.verdicts import verdicts as V

POINTS = S.guideline_points()
SLOW = ("native", "allgather", 65536)          # slower from openmpi-5.0.7 on, and than its mock-up
UNFAIR = ("straightforward", "neighbor-alltoall", 65536)   # slower on mpich-4.0.2, which is oversubscribed
INSTALLATIONS = [
    ("openmpi", "4.1.4", {}, None),
    ("openmpi", "5.0.7", {SLOW: 1.6}, None),
    ("openmpi", "5.1.0", {SLOW: 1.6}, None),
    ("mpich", "3.4.1", {}, None),
    ("mpich", "4.0.2", {UNFAIR: 1.6}, S.OVERSUBSCRIBED),
]


NP2 = [("openmpi", "4.1.4", {}), ("openmpi", "5.0.7", {})]   # a second run: 2 processes, no change
VERSIONS_PAGE = "exp-synth-versions--synth-versions.html"
NP2_PAGE = "exp-synth-versions--np2-synth-versions.html"


def write_np2_run(root, points):
    """The 2-process run of synth-versions: root/np2/synth-versions/<installation>, one rank per core."""
    for n, (impl, version, factors) in enumerate(NP2):
        S.write_result_set(root / "np2" / "synth-versions" / f"{impl}-{version}", points, launches=5, reps=6,
                           time_fn=S.slowdown(factors), experiment="synth-versions", mpi_impl=impl,
                           mpi_version=version, nprocs=2, ppn=2, start_utc=f"2024-02-{n + 1:02d}T00:00:00Z",
                           extra_meta={"mpi_library": f"{impl} library {version} (synthetic)",
                                       "oversubscription": dict(S.ONE_PER_CORE["oversubscription"], ranks=2)})


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("dash")
    S.write_installations(root / "results", INSTALLATIONS, POINTS, experiment="synth-versions")
    S.write_installations(root / "results", INSTALLATIONS[:1], POINTS[:3], experiment="synth-small")
    write_np2_run(root / "results", POINTS)
    out = root / "site"
    assert cli.main(["dashboard", str(root / "results"), "-o", str(out)]) == 0
    return out


def _section(page, anchor):
    """The HTML of one section of a run page (from its h2 to the next h2)."""
    return re.split(f"<h2 id=[\"']{anchor}[\"']>", page)[1].split("<h2 ")[0]


def _rows(table_html):
    return re.findall(r"<tr[^>]*>(.*?)</tr>", table_html.split("<tbody>")[1].split("</tbody>")[0], re.S)


def test_index_lists_runs_and_installations(site):
    index = (site / "index.html").read_text()
    for name in (VERSIONS_PAGE, NP2_PAGE, "exp-synth-small.html", "openmpi-5.1.0", "mpich-3.4.1",
                 "mpich library 4.0.2 (synthetic)"):
        assert name in index
    runs = {re.search(r'href="([^"]+)"', r).group(1): r for r in _rows(index.split("<h2>Runs</h2>")[1])}
    assert sorted(runs) == sorted([VERSIONS_PAGE, NP2_PAGE, "exp-synth-small.html"])
    # Each run from its own metadata: the 2-process run is not oversubscribed and has no change.
    assert "2 (1 x 2)" in runs[NP2_PAGE] and "<td>no</td>" in runs[NP2_PAGE]
    assert 'data-verdict="regression"' not in runs[NP2_PAGE]
    assert "8 (1 x 8)" in runs[VERSIONS_PAGE] and "<td>mpich-4.0.2</td>" in runs[VERSIONS_PAGE]
    assert "regression: 1</span>" in runs[VERSIONS_PAGE]
    assert "1 run(s) ran oversubscribed (synth-versions)" in index
    # The installations table: one row per installation, linking every run it is in once.
    installations = {re.search(r"<td>([^<]+)</td>", r).group(1): r
                     for r in _rows(index.split("<h2>Installations</h2>")[1])}
    assert installations["openmpi-4.1.4"].count("<a href=") == 3       # synth-versions twice, synth-small
    assert installations["openmpi-5.1.0"].count("<a href=") == 1
    assert (site / "plotly.min.js").stat().st_size > 1_000_000
    for page in site.glob("*.html"):       # offline: no script or style from the network
        assert not re.search(r'(src|href)="(https?:)?//', page.read_text()), page


def test_runs_are_separated(site):
    """The 2- and 8-process runs of one installation are two entries on two pages, never merged."""
    for page, names, processes in ((VERSIONS_PAGE, [f"{i}-{v}" for i, v, _, _ in INSTALLATIONS], "8 (1 x 8)"),
                                   (NP2_PAGE, [f"{i}-{v}" for i, v, _ in NP2], "2 (1 x 2)")):
        rows = _rows(_section((site / page).read_text(), "installations"))
        assert [re.search(r"<td>([^<]+)</td>", r).group(1) for r in rows] == sorted(names)
        assert all(f"<td>{processes}</td>" in r and "<td>block</td>" in r for r in rows)
        assert [("<td>yes</td>" in r) for r in rows] == [n == "mpich-4.0.2" for n in sorted(names)]
    np2 = (site / NP2_PAGE).read_text()
    assert "OVERSUBSCRIBED" not in np2 and np2.count("full metadata</summary>") == 5 * len(NP2)


def test_run_page_marks_regressions_violations_and_oversubscription(site):
    page = (site / VERSIONS_PAGE).read_text()
    assert "OVERSUBSCRIBED: 8 ranks on 2 cores of testhost" in page
    trend_html = _section(page, "trend")
    slower = re.findall(r'<tr class="bad">(.*?)</tr>', trend_html.split("<details>")[0])
    assert len(slower) == 1 and "openmpi-5.0.7" in slower[0] and "64 KiB" in slower[0]
    badge = re.search(r'<span class="badge v-regression" data-verdict="regression" title="([^"]+)">'
                      r"regression</span>", slower[0])
    assert badge and "ratio x1.6 [" in badge.group(1)     # the ratio and its interval on hover
    assert re.search(r"Comparisons \(\d+\): <span class=\"badge v-regression\"[^>]*>regression: 1</span>", trend_html)
    violations = page.split("<h3>Violations (")[1]
    assert violations.startswith("2)")       # openmpi-5.0.7 and 5.1.0, native vs root-gathering
    assert "openmpi-5.0.7" in violations.split("</table>")[0]
    assert violations.split("</table>")[0].count('data-verdict="regression"') == 2
    assert "mpich: some installations ran oversubscribed and others not" in page
    assert page.count("full metadata</summary>") == S.INSTALLATION_LAUNCHES * len(INSTALLATIONS)   # every launch's provenance
    # 3 settings; per library and setting a history and a ratio plot; per library its verdicts' ratios
    assert page.count('class="plot"') == 3 + 2 * 2 * 3 + 2
    assert len(re.findall(r'<div class="plot" id="[^"]*-ratios-[0-9]+"', page)) == 2


def test_a_change_on_an_oversubscribed_run_is_never_a_regression(site):
    """mpich-4.0.2 ran oversubscribed: its planted slowdown is a change, not comparable, with why."""
    page = (site / VERSIONS_PAGE).read_text()
    flagged = _section(page, "trend").split("<details>")[0]
    unfair = [r for r in re.findall(r"<tr[^>]*>(.*?)</tr>", flagged) if "straightforward" in r and "64 KiB" in r]
    assert len(unfair) == 1 and "mpich-4.0.2" in unfair[0]
    title = re.search(r'<span class="badge v-changed-not-comparable" data-verdict="changed-not-comparable" '
                      r'title="([^"]+)">changed-not-comparable</span>', unfair[0]).group(1)
    assert "not comparable: " in title and "oversubscribed" in title
    row = next(r for r in _rows((site / "index.html").read_text().split("<h2>Runs</h2>")[1]) if VERSIONS_PAGE in r)
    assert "regression: 1</span>" in row and "changed-not-comparable: 1</span>" in row
    assert re.search(r'data-verdict="changed-not-comparable" title="1 point\(s\) changed-not-comparable; 1x '
                     r'[^"]*oversubscribed', row)


def _verdict_row(verdict, reason="", comparability="", ratio=1.0, **more):
    row = dict.fromkeys(V.ROW_COLUMNS, np.nan)
    row.update(verdict=verdict, reason=reason, comparable=not comparability, comparability=comparability,
               ratio=ratio, ci_low=ratio * 0.9, ci_high=ratio * 1.1, ci_level=0.952, q_value=0.01,
               threshold=0.05, **more)
    return row


def test_badges_carry_the_label_and_the_reason_on_hover():
    rows = [_verdict_row(V.REGRESSION, "significant after FDR, interval beyond 5%", ratio=1.6),
            _verdict_row(V.NOT_COMPARABLE, "changed", "oversubscribed: 4 ranks on 2 cores", ratio=1.3),
            _verdict_row(V.NOT_COMPARABLE, "changed", "device ch3 vs ch4:ucx", ratio=0.7),
            _verdict_row(V.SAME), _verdict_row(V.INCONCLUSIVE, "interval straddles the threshold")]
    badge = dashboard.H.verdict_badge(rows[1])
    assert badge.startswith('<span class="badge v-changed-not-comparable" data-verdict="changed-not-comparable"')
    title = re.search(r'title="([^"]+)"', badge).group(1)
    assert "not comparable: oversubscribed: 4 ranks on 2 cores" in title and "[1.17, 1.43] (95.2% interval)" in title
    assert "interval straddles the threshold" in dashboard.H.verdict_badge(rows[4])
    assert "ratio x1" in dashboard.H.verdict_badge(rows[3])          # 'same' has no reason: the interval
    summary = dashboard.H.badge_summary(rows)
    assert re.findall(r'data-verdict="([^"]+)"', summary) == [V.REGRESSION, V.NOT_COMPARABLE, V.SAME,
                                                                V.INCONCLUSIVE]
    assert ">changed-not-comparable: 2</span>" in summary
    assert "1x oversubscribed: 4 ranks on 2 cores; 1x device ch3 vs ch4:ucx" in summary
    assert [dashboard.H.cell(c, v) for c, v in (("ci_level", 0.96825), ("q_value", 0.022329), ("mde", np.nan))] \
        == ["96.8%", "0.022", "-"]


def test_history_selects_one_point_at_a_time_on_a_log_axis():
    per = pd.DataFrame([{"point_key": k, "installation": i, "launch": n, "median": t * (1 + 0.01 * n)}
                        for k, t in (("a", 1e-5), ("b", 2e-5))
                        for i, f in (("v1", 1.0), ("v2", 1.5)) for n in range(3)])
    per.loc[(per["point_key"] == "b") & (per["installation"] == "v2"), "median"] *= 1.5
    menu = [("a", "ring, 1 KiB", V.SAME, "within"), ("b", "ring, 64 KiB", V.REGRESSION, "slower")]
    fig = figs.history_figure(per, menu, ["v1", "v2"], "History")
    assert [t.visible for t in fig.data] == [False, False, True, True]   # opens on the regression
    assert fig.layout.yaxis.type == "log" and list(fig.layout.xaxis.ticktext) == ["v1", "v2"]
    buttons = fig.layout.updatemenus[0].buttons
    assert [b.label for b in buttons] == ["ring, 1 KiB · same", "ring, 64 KiB · regression",
                                          "every point (medians)"]
    assert buttons[0].args[0]["visible"] == [True, True, False, False]
    assert len(set(fig.data[2].x)) == 6          # 2 installations x 3 launches, spread, not stacked
    ratio = figs.trend_figure(pd.DataFrame({"algorithm": ["ring"] * 2, "msg_bytes": [1024] * 2,
                                            "position": [0, 1], "installation": ["v1", "v2"],
                                            "ratio": [1.0, 1.5], "n_launches": [3, 3]}),
                              pd.DataFrame(), ["v1", "v2"], "Ratio")
    assert ratio.layout.yaxis.type == "log"
    rows = [dict(r, name=f"p{n}", hover="h") for n, r in enumerate(
        [_verdict_row(V.REGRESSION, ratio=1.6), _verdict_row(V.SAME), _verdict_row(V.SAME, ratio=np.nan)])]
    forest = figs.ratio_figure(rows, "Ratios", 0.05)
    assert forest.layout.xaxis.type == "log" and [t.name for t in forest.data] == [V.REGRESSION, V.SAME]
    assert list(forest.data[0].error_x.array) == pytest.approx([0.16])      # to ci_high = 1.76


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


@pytest.fixture(scope="module")
def rendered(site):
    """The synth-versions run page as headless Chromium drew it (rendered once for the tests)."""
    return headless.render(site / VERSIONS_PAGE)


@needs_chromium
def test_chromium_draws_every_plot_without_script_errors(site, rendered):
    plots = (site / VERSIONS_PAGE).read_text().count('class="plot"')
    shown = rendered
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
    shown = headless.render(broken / VERSIONS_PAGE)
    assert 'data-script-errors="0"' not in shown.dom
    assert "plotly.min.js did not load" in shown.dom


@needs_chromium
def test_screenshot_is_not_blank(site, tmp_path):
    from matplotlib.image import imread
    png = headless.screenshot(site / VERSIONS_PAGE, tmp_path / "dashboard.png")
    pixels = imread(png)[..., :3].reshape(-1, 3)
    colours = np.unique((pixels * 255).astype(np.uint8), axis=0)
    assert len(colours) > 100                      # text, tables and coloured plot lines
    shutil.copy(png, site / "screenshot-test.png")  # for a look: beside the site


@needs_chromium
def test_chromium_shows_verdict_badges_and_separate_runs(site, rendered):
    """The rendered pages: the badges with their reasons on hover, the history menus open on the
    most severe verdict, and each run with its own installations."""
    shown = rendered
    badges = re.findall(r'<span class="badge v-([a-z-]+)" data-verdict="\1" title="([^"]+)">', shown.dom)
    assert {V.REGRESSION, V.NOT_COMPARABLE, V.SAME} <= {b for b, _ in badges} and all(t for _, t in badges)
    assert re.search(r'title="[^"]*ratio x1.6 \[[^"]*">regression</span>', shown.dom)
    menus = re.findall(r'class="updatemenu-item-text"[^>]*>([^<]+)<', shown.dom)
    assert "native, 64 KiB · regression" in menus      # the openmpi inter-group history opens on it
    assert "straightforward, 64 KiB · changed-not-comparable" in menus     # mpich's neighbourhood one
    assert re.search(r'title="[^"]*not comparable: [^"]*oversubscribed[^"]*">changed-not-comparable</span>',
                     shown.dom)
    np2 = headless.render(site / NP2_PAGE).dom
    rows = _rows(_section(np2, "installations"))
    assert [re.search(r"<td>([^<]+)</td>", r).group(1) for r in rows] == ["openmpi-4.1.4", "openmpi-5.0.7"]
    assert "regression" not in {b for b in re.findall(r'data-verdict="([^"]+)"', np2)}
    plots = (site / NP2_PAGE).read_text().count('class="plot"')
    assert f'data-plots-drawn="{plots}"' in np2 and np2.count('data-drawn="1"') == plots


def test_the_trend_table_shows_the_design_and_the_regression_ruled_out(site):
    """The verdict columns of the reports reach the page: paired or unpaired (`design`), the rounds
    (`n_pairs`, where paired); the largest regression an inconclusive row rules out is shown where a
    row has one (none here: the synthetic sides are not comparable or settled), as a percentage."""
    for name in (VERSIONS_PAGE, NP2_PAGE):
        trend_html = _section((site / name).read_text(), "trend")
        header = re.search(r"<thead>(.*?)</thead>", trend_html, re.S).group(1)
        assert "<th>design</th><th>n_pairs</th>" in header
        assert re.search(r"<td>unpaired</td>", trend_html)                   # the synthetic runs share no rounds
    from collrepro.analysis.dashboard import html as H
    assert H.cell("max_regression", 0.062) == "6.2%"
