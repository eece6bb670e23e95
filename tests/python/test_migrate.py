"""Contract version 1 directories: in-memory migration (one note per directory) and
`analyze migrate`, which rewrites them once."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

import synthetic as S
from collrepro import contract as C
from collrepro.analysis import cli, loader
from collrepro.analysis.migrate import neighbor_count
from collrepro.analysis.schema import InputError, read_header

CONFIG = {"settings": [
    {"name": "arith", "points": [1], "sweep": {"collective": "allgatherv", "distributions": ["arithmetic"]}},
    {"name": "rand", "points": [2], "sweep": {"collective": "allgatherv", "distributions": ["equal", "random"],
                                              "blocks": ["1:1", "2:1"]}},
    {"name": "w", "points": [3], "sweep": {"collective": "neighbor-alltoallw", "distributions": ["distance"]}},
]}
SHAPE = ["family"] + C.SHAPE_COLUMNS


def points():
    return [
        S.point("native", **S.inter_shape("allgather", 4, 2, 64, (4, 1))),
        S.point("native", collective="allgatherv", **S.inter_shape("allgatherv", 5, 3, 1000, (1, 1), "arithmetic")),
        S.point("native", collective="allgatherv", **S.inter_shape("allgatherv", 5, 3, 1000, (2, 1), "random")),
        S.iso_point("torus", collective="neighbor-alltoallw", neighborhood="moore:d=3,r=1", dims="4x2x2",
                    neighbors=26, block_rule="distance", block_min=1, block_max=16384, msg_bytes=128),
        S.iso_point("torus", neighborhood="shells:d=3,r=3+7", dims="4x2x2", neighbors=1396),
    ]


def write(directory, version, config=CONFIG, pts=None):
    return S.write_result_set(directory, pts or points(), launches=2, reps=3, config=config, version=version)


def shapes(rs):
    return rs.summary.sort_values(["launch", "point"])[SHAPE].reset_index(drop=True)


@pytest.fixture
def v1_dir(tmp_path):
    return write(tmp_path / "v1", 1)


def test_v1_reads_as_v2_with_one_note(v1_dir, tmp_path, capsys):
    truth = shapes(loader.load([write(tmp_path / "v2", C.VERSION)]))
    assert capsys.readouterr().err == ""
    migrated = loader.load([v1_dir])
    err = capsys.readouterr().err.splitlines()
    assert err == [f"note: {v1_dir} uses results contract v1; read as v2 (distribution recovered from the metadata)"]
    pd.testing.assert_frame_equal(shapes(migrated), truth)
    assert list(migrated.raw.columns[:-1]) == C.RAW_COLUMNS


def test_unpinned_distribution_is_guessed_with_a_warning(tmp_path, capsys):
    pts = points()[2:3]            # random at 2:1, but the config says nothing: equal 1:1 assumed
    d = write(tmp_path / "v1", 1, config={}, pts=pts)
    row = loader.load([d]).summary.iloc[0]
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and err[1].startswith("warning:") and "point(s) 0" in err[1]
    assert row["distribution"] == "arithmetic" and row["bytes_a"] != pts[0]["bytes_a"]


def test_neighbor_counts():
    assert [neighbor_count(n) for n in ("moore:d=2,r=1", "octant:d=3,r=3", "shells:d=3,r=3+7",
                                        "vonneumann:d=2,r=2", "list:(0,1),(1,0),(0,0)")] == [8, 63, 1396, 12, 3]
    with pytest.raises(InputError):
        neighbor_count("hexagon:d=2,r=1")


def test_migrate_rewrites_once(v1_dir, tmp_path, capsys):
    truth = shapes(loader.load([write(tmp_path / "v2", C.VERSION)]))
    before = loader.load([v1_dir])
    capsys.readouterr()
    assert cli.main(["migrate", str(v1_dir)]) == 0
    out = capsys.readouterr().out.split()
    assert sorted(Path(p).name for p in out) == sorted(p.name for p in v1_dir.iterdir())
    assert read_header(v1_dir / "raw-L0.csv") == C.RAW_COLUMNS
    assert json.loads((v1_dir / "meta-L1.json").read_text())["contract_version"] == C.VERSION
    after = loader.load([v1_dir])
    assert capsys.readouterr().err == ""
    pd.testing.assert_frame_equal(shapes(after), truth)
    pd.testing.assert_frame_equal(after.raw, before.raw)
    assert not [p for p in v1_dir.iterdir() if p.name.startswith(".")]
    assert cli.main(["migrate", str(v1_dir)]) == 0            # nothing left to do
    assert "already" in capsys.readouterr().err


def test_migrate_refuses_unfinished_runs(v1_dir, capsys):
    (v1_dir / "raw-L2.csv.tmp").write_text("partial")
    assert cli.main(["migrate", str(v1_dir)]) == 2
    assert "temporary file" in capsys.readouterr().err
    (v1_dir / "raw-L2.csv.tmp").unlink()
    meta = json.loads((v1_dir / "meta-L1.json").read_text())
    (v1_dir / "meta-L1.json").write_text(json.dumps(dict(meta, complete=False)))
    assert cli.main(["migrate", str(v1_dir)]) == 2
    assert "incomplete" in capsys.readouterr().err
    assert read_header(v1_dir / "raw-L0.csv") == C.V1["raw"]         # nothing rewritten


def test_mixed_versions_are_refused(v1_dir, tmp_path):
    v2 = write(tmp_path / "v2", C.VERSION)
    shutil.copy(v2 / "raw-L1.csv", v1_dir / "raw-L1.csv")
    with pytest.raises(InputError, match="different contract versions"):
        loader.load([v1_dir])


def test_reference_v1_directory_recovers_arithmetic(capsys):
    ref = Path(__file__).resolve().parents[2] / "results" / "seed001-fullduplex" / "openmpi-4.1.4"
    summary = loader.load([ref]).summary
    assert len(capsys.readouterr().err.splitlines()) == 1
    v = summary[summary["collective"] == "allgatherv"]
    assert set(v["distribution"]) == {"equal", "arithmetic"}
    arith = v[v["distribution"] == "arithmetic"]
    # seed 001's arithmetic blocks 2 (i+1) ceil(s/n): K = ka (n+1)/2 exactly
    assert (arith["bytes_a"] * 2 == arith["ka"] * (arith["p"] + 1)).all()


def test_migrate_refuses_a_partial_file_before_writing_anything(v1_dir, capsys):
    text = (v1_dir / "summary-L1.csv").read_text()
    (v1_dir / "summary-L1.csv").write_text(text[:-20])
    assert cli.main(["migrate", str(v1_dir)]) == 2
    assert "partial" in capsys.readouterr().err
    assert all(read_header(p) == C.V1_TABLE_COLUMNS[p.name.split("-")[0]] for p in v1_dir.glob("*-L0.csv"))
