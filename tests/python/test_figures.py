"""Figure commands: non-empty PNG/PDF, expected panel counts, partial panels render."""

from pathlib import Path

import pytest

import synthetic as S
from collrepro.analysis import aggregate as A
from collrepro.analysis import cli, figures, loader
from collrepro.analysis.models import eq5_limit


def build(tmp_path_factory, name, points):
    base = tmp_path_factory.mktemp(name)
    d = S.write_result_set(base / "data", points, launches=3, reps=6)
    rs = loader.load([d])
    figs = figures.build_and_save(name, A.aggregate(rs), rs.metas, base / "figs")
    return {fo.name: fo for fo in figs}


def assert_files(fo):
    assert [p.suffix for p in fo.paths] == [".png", ".pdf"]
    png = fo.paths[0].read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    assert fo.paths[1].stat().st_size > 1_000


def footer(fo):
    return " ".join(t.get_text() for t in fo.fig.texts)


@pytest.fixture(scope="module")
def seed000(tmp_path_factory):
    return build(tmp_path_factory, "seed000", S.seed000_points())


@pytest.fixture(scope="module")
def seed001(tmp_path_factory):
    return build(tmp_path_factory, "seed001", S.seed001_points())


@pytest.fixture(scope="module")
def seed004(tmp_path_factory):
    return build(tmp_path_factory, "seed004", S.seed004_points())


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



REFERENCE_SEED004 = Path(__file__).resolve().parents[2] / "results" / "seed004-isomorphic" / "openmpi-4.1.4"


def test_seed004_reference_results(tmp_path):
    """The committed reference set renders: Moore d=3 r=3 is measured in two settings of
    neighbor-alltoall there (Figs. 2 and 4), one panel per setting."""
    assert cli.main(["figure", "seed004", str(REFERENCE_SEED004), "-o", str(tmp_path)]) == 0
    assert (tmp_path / "seed004-fig2-4-neighbor-alltoall.png").stat().st_size > 10_000
