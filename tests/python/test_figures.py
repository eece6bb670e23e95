"""Figure commands: non-empty PNG/PDF, expected panel counts, partial panels render."""

from pathlib import Path

import pandas as pd
import pytest

import synthetic as S
from collrepro.analysis.frames import aggregate as A
from collrepro.analysis import cli
from collrepro.analysis.loading import loader
from collrepro.analysis.figures import figures
from collrepro.analysis.figures import paper_values as pv
from collrepro.analysis.figures.models import eq5_limit
from collrepro.analysis.frames.units import time_unit


def aggregated(tmp_path_factory, name, points):
    d = S.write_result_set(tmp_path_factory.mktemp(name) / "data", points, launches=3, reps=6)
    rs = loader.load([d])
    return A.aggregate(rs), rs.metas


def build(tmp_path_factory, name, agg_metas):
    figs = figures.build_and_save(name, *agg_metas, tmp_path_factory.mktemp(name + "-figs"))
    return {fo.name: fo for fo in figs}


def assert_files(fo):
    assert [p.suffix for p in fo.paths] == [".png", ".pdf"]
    png = fo.paths[0].read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    assert fo.paths[1].stat().st_size > 1_000


def footer(fo):
    return " ".join(t.get_text() for t in fo.fig.texts)


@pytest.fixture(scope="module")
def seed000_agg(tmp_path_factory):
    return aggregated(tmp_path_factory, "seed000", S.seed000_points())


@pytest.fixture(scope="module")
def seed001_agg(tmp_path_factory):
    return aggregated(tmp_path_factory, "seed001", S.seed001_points())


@pytest.fixture(scope="module")
def seed004_agg(tmp_path_factory):
    return aggregated(tmp_path_factory, "seed004", S.seed004_points())


@pytest.fixture(scope="module")
def seed000(tmp_path_factory, seed000_agg):
    return build(tmp_path_factory, "seed000", seed000_agg)


@pytest.fixture(scope="module")
def seed001(tmp_path_factory, seed001_agg):
    return build(tmp_path_factory, "seed001", seed001_agg)


@pytest.fixture(scope="module")
def seed004(tmp_path_factory, seed004_agg):
    return build(tmp_path_factory, "seed004", seed004_agg)


def test_seed000_one_panel_per_pq_and_topology(seed000):
    fo = seed000["seed000-fig4"]
    assert_files(fo)
    assert fo.panels == len(fo.fig.axes) == 3
    titles = [ax.get_title() for ax in fo.fig.axes]
    assert titles == ["4/4, fully connected", "6/2, fully connected", "4/4, ring"]
    lines = [len(ax.get_lines()) for ax in fo.fig.axes]
    # 4/4 FC: three algorithms, 6/2 FC: no native (partial panel), ring: two.
    assert lines[0] > lines[1] and lines[1] == lines[2]
    text = footer(fo)
    assert "testhost" in text and "openmpi 4.1.4" in text and "8 processes" in text and "block" in text
    labels = [t.get_text() for t in fo.fig.legends[0].texts]
    assert labels == ["halfduplex-fc", "root-gathering", "native", "halfduplex-ring", "ring-allgather"]


def test_seed000_axes_have_units(seed000):
    ax = seed000["seed000-fig4"].fig.axes[0]
    assert ax.get_ylabel().endswith("[ms]") and "size" in ax.get_xlabel()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["32 KiB", "128 KiB", "512 KiB"]


def test_seed001_settings_and_eq5_limit_lines(seed001):
    assert set(seed001) == {"seed001-fig4-allgather", "seed001-fig5-allgatherv", "seed001-fig6-improvement"}
    for fo in seed001.values():
        assert_files(fo)
    assert seed001["seed001-fig4-allgather"].panels == 2
    assert seed001["seed001-fig5-allgatherv"].panels == 1
    fig6 = seed001["seed001-fig6-improvement"]
    assert fig6.panels == len(fig6.fig.axes) == 1
    levels = {round(line.get_ydata()[0], 6) for line in fig6.fig.axes[0].get_lines()
              if line.get_linestyle() == "--"}
    expected = {round(eq5_limit(4, 4), 6), round(eq5_limit(10 * 4, 4 * 1), 6)}
    assert levels == expected == {7.0, 4.3}


def test_seed004_bars_per_neighborhood(seed004):
    fo = seed004["seed004-fig2-4-neighbor-alltoall"]
    assert_files(fo)
    assert fo.panels == len(fo.fig.axes) == 3
    bars = [len(ax.patches) for ax in fo.fig.axes]
    assert bars == [12, 12, 9]          # 3 block sizes x 4 algorithms; mpi-neighbor missing in the last
    assert seed004["seed004-fig5-neighbor-allgather"].panels == 1
    assert "seed004-fig3-neighbor-alltoallw" not in seed004


def test_figure_command_line(tmp_path, capsys):
    d = S.write_result_set(tmp_path / "data", S.seed004_points(sizes=(8,)), launches=2, reps=3)
    assert cli.main(["figure", "seed004", str(d), "-o", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "seed004-fig2-4-neighbor-alltoall.png").stat().st_size > 0
    # No seed 000 data in a seed 004 result set: clear error, exit 2.
    assert cli.main(["figure", "seed000", str(d), "-o", str(tmp_path / "out")]) == 2
    assert "no data for seed 000" in capsys.readouterr().err



# ---------------------------------------------------------------- the papers' values, units

def notes(fo):
    return {ax.get_title(): " ".join(t.get_text() for t in ax.texts) for ax in fo.fig.axes}


def y_units(fo):
    return {ax.get_ylabel().rsplit("[", 1)[-1] for ax in fo.fig.axes}


def test_paper_lookup_exact_and_scaled_down():
    assert pv.seed000_fig4("fully-connected", 256, 128, 128) == (5.3, 256, 128, 128, False)
    assert pv.seed000_fig4("ring", 1024, 768, 256).value == 1.8
    scaled = pv.seed000_fig4("fully-connected", 64, 16, 48)
    assert scaled == (5.1, 256, 64, 192, True)
    assert scaled.note() == "paper (256 procs, same p:q): 5.1x"
    assert pv.seed000_fig4("fully-connected", 8, 1, 7) is None
    assert pv.seed000_note("fully-connected", 8, 1, 7) == "paper: -"


def test_seed000_panel_notes_carry_the_paper_value(seed000_agg):
    agg, metas = seed000_agg
    agg = agg.copy()
    at_256 = (agg["topology"] == "fully-connected") & (agg["p"] == 4)
    agg.loc[at_256, ["p", "q", "nprocs"]] = [128, 128, 256]     # the paper's own panel
    fig4 = figures.seed000(agg, metas)[0]
    by_title = notes(fig4)
    assert "paper: 5.3x at 4 MB" in by_title["128/128, fully connected (nprocs=256)"]
    assert "measured root-gathering/halfduplex-fc at 512 KiB:" in by_title["128/128, fully connected (nprocs=256)"]
    # 6/2 at 8 processes: scaled down, the 256-process 192/64 panel, and it says so
    assert "paper (256 procs, same p:q): 4.4x" in by_title["6/2, fully connected (nprocs=8)"]
    assert "paper (256 procs, same p:q): 1.9x" in by_title["4/4, ring (nprocs=8)"]


def test_seed000_improvement_has_the_paper_star_at_4_mb(seed000):
    fo = seed000["seed000-fig4-improvement"]
    assert [ax.get_title() for ax in fo.fig.axes] == ["fully connected, 8 processes, 8 per node",
                                                       "ring, 8 processes, 8 per node"]
    fc = fo.fig.axes[0]
    stars = {line.get_color(): (line.get_xdata()[0], line.get_ydata()[0])
             for line in fc.get_lines() if line.get_marker() == "*"}
    series = {c.get_label(): c.lines[0].get_color() for c in fc.containers}
    assert stars[series["p/q = 4/4 (1:1)"]] == (pv.SEED000_SIZE_BYTES, 5.3)
    assert stars[series["p/q = 6/2 (3:1)"]] == (pv.SEED000_SIZE_BYTES, 4.4)
    assert any(line.get_ydata()[0] == 1.0 and line.get_linestyle() == "-" for line in fc.get_lines()
               if len(line.get_ydata()) == 2)
    labels = [t.get_text() for t in fo.fig.legends[0].texts]
    assert "paper, Fig. 4 text, 4 MB" in labels
    assert [t.get_text() for t in fc.get_xticklabels()][-1] == "4 MiB"


def test_one_time_unit_per_figure(seed000_agg, seed001_agg):
    """Panels whose own largest time would pick another unit are labelled with the figure's."""
    agg, metas = seed000_agg
    agg = agg.copy()
    ring = agg["topology"] == "ring"
    agg.loc[ring, ["median", "min", "max"]] *= 1e-3
    assert len({time_unit(agg.loc[m, "max"].max())[0] for m in (ring, ~ring)}) == 2
    fig4 = figures.seed000(agg, metas)[0]
    assert y_units(fig4) == {"ms]"}
    agg, metas = seed001_agg
    agg = agg.copy()
    small = agg["p"] == 10
    agg.loc[small, ["median", "min", "max"]] *= 1e-3
    assert len({time_unit(agg.loc[m, "max"].max())[0] for m in (small, ~small)}) == 2
    fig4 = figures.seed001(agg, metas)[0]
    assert fig4.panels == 2 and len(y_units(fig4)) == 1


def test_seed001_headline_only_on_256_process_panels(seed001_agg):
    agg, metas = seed001_agg
    agg = pd.concat([agg, agg.assign(nprocs=256)], ignore_index=True)
    figs = {fo.name: fo for fo in figures.seed001(agg, metas)}
    fig6 = figs["seed001-fig6-improvement"]
    dotted = {ax.get_title(): [line.get_ydata()[0] for line in ax.get_lines() if line.get_linestyle() == ":"]
              for ax in fig6.fig.axes}
    assert dotted == {"8 processes": [], "256 processes": [pv.SEED001_HEADLINE]}
    assert pv.SEED001_HEADLINE_TEXT in [t.get_text() for t in fig6.fig.legends[0].texts]
    assert "Eq. 5 model limit" in " ".join(t.get_text() for t in fig6.fig.legends[0].texts)
    for name in ("seed001-fig4-allgather", "seed001-fig5-allgatherv"):
        assert "gives no measured values" in footer(figs[name])


REFERENCE_SEED004 = Path(__file__).resolve().parents[2] / "results" / "seed004-isomorphic" / "openmpi-4.1.4"


def test_seed004_reference_results(tmp_path):
    """The committed reference set renders: Moore d=3 r=3 is measured in two settings of
    neighbor-alltoall there (Figs. 2 and 4), one panel per setting."""
    assert cli.main(["figure", "seed004", str(REFERENCE_SEED004), "-o", str(tmp_path)]) == 0
    assert (tmp_path / "seed004-fig2-4-neighbor-alltoall.png").stat().st_size > 10_000
