"""Directories of earlier contract versions: in-memory migration (one note per directory)
and `analyze migrate`, which rewrites them once. Version 1 lacks the shape columns, version 2
the tail percentiles."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

import synthetic as S
from collrepro import contract as C
from collrepro.analysis import cli
from collrepro.analysis.loading import loader
from collrepro.analysis.frames.aggregate import aggregate
from collrepro.analysis.loading.migrate import neighbor_count
from collrepro.analysis.loading.schema import InputError, read_header

CONFIG = {"settings": [
    {"name": "arith", "points": [1], "sweep": {"collective": "allgatherv", "distributions": ["arithmetic"]}},
    {"name": "rand", "points": [2], "sweep": {"collective": "allgatherv", "distributions": ["equal", "random"],
                                              "blocks": ["1:1", "2:1"]}},
    {"name": "w", "points": [3], "sweep": {"collective": "neighbor-alltoallw", "distributions": ["distance"]}},
]}
SHAPE = ["family"] + C.SHAPE_COLUMNS
PAIR_NOTE = "pair_mode absent: read from the metadata's config (default intercomm)"
OVERLAP = "overlap_pct, overlap_pure_s, overlap_compute_s"       # version 9: a nonblocking call's overlap



def assert_reloads_unchanged(d, loaded, capsys):
    """After `analyze migrate`, d loads silently (it is current) and equal to what it read as before."""
    capsys.readouterr()
    after = loader.load([d])
    assert capsys.readouterr().err == ""
    pd.testing.assert_frame_equal(after.raw, loaded.raw)
    pd.testing.assert_frame_equal(after.summary, loaded.summary)

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


def test_v1_reads_as_current_with_one_note(v1_dir, tmp_path, capsys):
    truth = shapes(loader.load([write(tmp_path / "v2", C.VERSION)]))
    assert capsys.readouterr().err == ""
    migrated = loader.load([v1_dir])
    err = capsys.readouterr().err.splitlines()
    assert err == [f"note: {v1_dir} uses results contract v1; read as v{C.VERSION} "
                   "(distribution and pair_mode recovered from the metadata)"]
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


# ---------------------------------------------------------------- version 2

TAILS = ["p50", "p90", "p99"]


def wobbly(pt, launch, rep):
    """Times with a tail: every seventh repetition is slow (the Tukey filter drops it)."""
    return S.model_time(pt) * (10.0 if rep % 7 == 3 else 1.0 + 0.001 * ((rep * 5 + launch) % 9))


def write_v2(directory, with_integrity=True):
    d = S.write_result_set(directory, points()[:2], launches=2, reps=20, time_fn=wobbly, version=2)
    if with_integrity:
        for launch in range(2):
            path = d / f"meta-L{launch}.json"
            meta = json.loads(path.read_text())
            meta["integrity"] = loader.file_integrity(d, launch, None, 2)
            path.write_text(json.dumps(meta))
    return d


def test_v2_reads_with_empty_tails_and_the_aggregation_recomputes_them(tmp_path, capsys):
    d = write_v2(tmp_path / "v2")
    rs = loader.load([d])
    err = capsys.readouterr().err.splitlines()
    assert err == [f"note: {d} uses results contract v2; read as v{C.VERSION} "
                   "(p50, p90, p99 absent: left empty, recomputed from the raw rows where present; "
                   "clock_residual_s, clock_residual_err_s, clock_drift_residual, resynced, init_s, "
                   f"{OVERLAP} absent: left empty; arrival, arrival_max_s, time_from_last_s, "
                   "median_from_last absent: every rank started at once (arrival none, arrival_max_s 0, times from the last arrival = time_s, median); "
                   f"call absent: every call was blocking; {PAIR_NOTE})"]
    assert list(rs.summary.columns[:-1]) == C.SUMMARY_COLUMNS
    assert rs.summary[TAILS].isna().all().all()
    agg = aggregate(rs).set_index("point")
    raw = rs.raw[rs.raw["valid"] == 1]
    for point, sub in raw.groupby("point"):
        per_launch = sub.groupby("launch")["time_s"].quantile([0.5, 0.9, 0.99]).unstack()
        want = per_launch.median().to_numpy()
        assert agg.loc[point, TAILS].to_numpy(dtype=float) == pytest.approx(want, rel=1e-12)
        assert agg.loc[point, "p99"] > 5 * agg.loc[point, "max"]    # the tail the filter cut


def test_v2_migrate_writes_current_files_with_fresh_integrity(tmp_path, capsys):
    d = write_v2(tmp_path / "v2")
    before = loader.load([d])
    capsys.readouterr()
    assert cli.main(["migrate", str(d)]) == 0
    assert read_header(d / "summary-L0.csv") == C.SUMMARY_COLUMNS
    meta = json.loads((d / "meta-L1.json").read_text())
    assert meta["contract_version"] == C.VERSION
    assert meta["integrity"] == loader.file_integrity(d, 1)
    after = loader.load([d])
    assert capsys.readouterr().err == ""
    pd.testing.assert_frame_equal(after.raw, before.raw)
    # the fresh records are real: a changed byte is caught
    data = bytearray((d / "raw-L1.csv").read_bytes())
    data[-4] = ord("0") + (data[-4] - ord("0") + 1) % 10
    (d / "raw-L1.csv").write_bytes(bytes(data))
    with pytest.raises(InputError, match="SHA-256"):
        loader.load([d])


def test_v2_migrate_refuses_damaged_files(tmp_path, capsys):
    d = write_v2(tmp_path / "v2")
    lines = (d / "raw-L0.csv").read_text().splitlines(True)
    (d / "raw-L0.csv").write_text("".join(lines[:2] + lines[3:]))
    assert cli.main(["migrate", str(d)]) == 2
    assert "points damaged or missing" in capsys.readouterr().err
    assert read_header(d / "summary-L1.csv") == C.TABLE_COLUMNS_OF[2]["summary"]    # nothing rewritten


# ---------------------------------------------------------------- version 4

def test_v4_reads_as_simultaneous_arrival_and_migrates(tmp_path, capsys):
    """Before version 5 every rank started at once: arrival none, arrival_max_s 0, and the times
    from the last arrival are the times themselves, in memory and after `analyze migrate`."""
    d = S.write_result_set(tmp_path / "v4", points()[:2], launches=2, reps=20, time_fn=wobbly, version=4)
    for launch in range(2):
        path = d / f"meta-L{launch}.json"
        meta = json.loads(path.read_text())
        meta["integrity"] = loader.file_integrity(d, launch, None, 4)
        path.write_text(json.dumps(meta))
    assert read_header(d / "raw-L0.csv") == C.TABLE_COLUMNS_OF[4]["raw"]
    before = loader.load([d])
    err = capsys.readouterr().err.splitlines()
    assert err == [f"note: {d} uses results contract v4; read as v{C.VERSION} (init_s, {OVERLAP} absent: left "
                   "empty; arrival, arrival_max_s, time_from_last_s, median_from_last absent: every rank started at once "
                   "(arrival none, arrival_max_s 0, times from the last arrival = time_s, median); call absent: "
                   f"every call was blocking; {PAIR_NOTE})"]
    for frame in (before.raw, before.summary):
        assert list(frame.columns[:-1]) == C.TABLE_COLUMNS["raw" if "rep" in frame else "summary"]
        assert (frame["arrival"] == "none").all() and (frame["arrival_max_s"] == 0).all()
    pd.testing.assert_series_equal(before.raw["time_from_last_s"], before.raw["time_s"], check_names=False)
    pd.testing.assert_series_equal(before.summary["median_from_last"], before.summary["median"], check_names=False)
    assert cli.main(["migrate", str(d)]) == 0
    assert read_header(d / "raw-L1.csv") == C.RAW_COLUMNS
    assert read_header(d / "summary-L0.csv") == C.SUMMARY_COLUMNS
    meta = json.loads((d / "meta-L0.json").read_text())
    assert meta["contract_version"] == C.VERSION and meta["integrity"] == loader.file_integrity(d, 0)
    assert_reloads_unchanged(d, before, capsys)


# ---------------------------------------------------------------- version 5 -> 6 -> 7 -> 8

def test_v5_reads_as_current_and_migrate_adds_the_call_columns(tmp_path, capsys):
    """Version 6 changed no column, version 7 added call and init_s: a version 5 directory whose
    values are all in the sets reads with every call blocking and no init (one note), and
    migrate writes those columns."""
    d = S.write_result_set(tmp_path / "v5", [S.point("native")], launches=2, reps=4, version=5)
    loaded = loader.load([d])
    assert capsys.readouterr().err.splitlines() == [
        f"note: {d} uses results contract v5; read as v{C.VERSION} (init_s, {OVERLAP} absent: left empty; "
        f"call absent: every call was blocking; {PAIR_NOTE})"]
    assert list(loaded.summary.columns[:-1]) == C.SUMMARY_COLUMNS
    assert (loaded.raw["call"] == "blocking").all() and loaded.summary["init_s"].isna().all()
    assert cli.main(["migrate", str(d)]) == 0
    assert json.loads((d / "meta-L0.json").read_text())["contract_version"] == C.VERSION == 9
    assert read_header(d / "raw-L0.csv") == C.RAW_COLUMNS
    assert_reloads_unchanged(d, loaded, capsys)


def test_v6_reads_every_call_as_blocking(tmp_path, capsys):
    """Before version 7 every call was blocking: a version 6 directory reads so, with init_s empty."""
    d = S.write_result_set(tmp_path / "v6", [S.point("native")], launches=1, reps=3, version=6)
    assert "call" not in read_header(d / "raw-L0.csv")
    rs = loader.load([d])
    assert (f"read as v{C.VERSION} (init_s, {OVERLAP} absent: left empty; call absent: every call was blocking; {PAIR_NOTE})"
            in capsys.readouterr().err)
    assert (rs.summary["call"] == "blocking").all() and rs.summary["init_s"].isna().all()
    assert (aggregate(rs)["call"] == "blocking").all()


# ---------------------------------------------------------------- version 7 -> 8

def half_duplex(**fields):
    return S.point("halfduplex-fc", p=2, q=2, ka=64, kb=0, **fields)


def pair_modes(rs):
    """{point: pair_mode} of a loaded result set's summary rows (every launch agrees)."""
    by_point = rs.summary.groupby("point")["pair_mode"].unique()
    assert all(len(modes) == 1 for modes in by_point), by_point
    return {point: modes[0] for point, modes in by_point.items()}


def test_v7_reads_pair_mode_from_the_config_of_each_setting(tmp_path, capsys):
    """Before version 8 no column said how the two groups were connected: an inter-group row
    reads its setting's pair_mode, else the top level's; a row of another family leaves it empty.
    migrate writes the column, and the rewritten files read the same."""
    config = {"pair_mode": "intracomm", "settings": [
        {"name": "pinned", "points": [0], "sweep": {"collective": "allgather", "pair_mode": "intercomm"}},
        {"name": "top", "points": [1, 2], "sweep": {"collective": "allgather"}}]}
    d = S.write_result_set(tmp_path / "v7", [half_duplex(), half_duplex(), S.iso_point("torus")],
                           launches=2, reps=3, version=7, config=config)
    assert "pair_mode" not in read_header(d / "summary-L0.csv")
    before = loader.load([d])
    assert capsys.readouterr().err.splitlines() == [
        f"note: {d} uses results contract v7; read as v{C.VERSION} ({OVERLAP} absent: left empty; {PAIR_NOTE})"]
    assert pair_modes(before) == {0: "intercomm", 1: "intracomm", 2: ""}
    assert set(before.raw.loc[before.raw["point"] == 1, "pair_mode"]) == {"intracomm"}
    assert list(before.summary.columns[:-1]) == C.SUMMARY_COLUMNS
    assert set(aggregate(before).set_index("point")["pair_mode"].items()) == {(0, "intercomm"), (1, "intracomm"), (2, "")}
    assert cli.main(["migrate", str(d)]) == 0
    assert read_header(d / "raw-L1.csv") == C.RAW_COLUMNS
    assert_reloads_unchanged(d, before, capsys)


def test_v7_without_the_key_reads_intercomm(tmp_path, capsys):
    """The sweep key's default: a configuration that never names pair_mode measured intercomm."""
    d = S.write_result_set(tmp_path / "v7", [half_duplex(), S.iso_point("torus")], launches=1, reps=3,
                           version=7, config={"collective": "allgather"})
    assert pair_modes(loader.load([d])) == {0: "intercomm", 1: ""}


def test_v1_reads_pair_mode_from_the_config(tmp_path, capsys):
    """Version 1 rows get pair_mode with their other shape columns, from the same config."""
    d = S.write_result_set(tmp_path / "v1", [half_duplex(), S.iso_point("torus")], launches=1, reps=3,
                           version=1, config={"pair_mode": "intracomm"})
    assert pair_modes(loader.load([d])) == {0: "intracomm", 1: ""}


def test_v8_reads_without_overlap_and_migrates(tmp_path, capsys):
    """Version 9 added the overlap of a nonblocking call: a version 8 directory reads with the
    three columns empty, and migrate writes them (empty) without changing anything else."""
    d = S.write_result_set(tmp_path / "v8", [half_duplex(call="nonblocking"), half_duplex()], launches=1, reps=3,
                           version=8)
    assert "overlap_pct" not in read_header(d / "summary-L0.csv")
    before = loader.load([d])
    assert capsys.readouterr().err.splitlines() == [
        f"note: {d} uses results contract v8; read as v{C.VERSION} ({OVERLAP} absent: left empty)"]
    assert before.summary[OVERLAP.split(", ")].isna().all().all()
    assert cli.main(["migrate", str(d)]) == 0
    assert read_header(d / "summary-L0.csv") == C.SUMMARY_COLUMNS
    assert_reloads_unchanged(d, before, capsys)


def test_v7_pair_mode_outside_the_set_is_refused_in_one_line(tmp_path):
    d = S.write_result_set(tmp_path / "v7", [half_duplex()], launches=1, reps=3, version=7,
                           config={"pair_mode": "intercom"})
    with pytest.raises(InputError) as err:
        loader.load([d])
    text = str(err.value)
    assert "\n" not in text and "meta-L0.json" in text and "'intercom'" in text and "intercomm|intracomm" in text


def test_v5_value_outside_the_sets_is_refused_in_one_line(tmp_path):
    """Version 5 left placement open: a value the contract's set lacks is refused by the loader,
    with one line naming the file, line, column and value (migrate refuses it the same way)."""
    d = S.write_result_set(tmp_path / "v5", [S.point("native")], launches=1, reps=2, version=5,
                           placement="scatter")
    with pytest.raises(InputError) as err:
        loader.load([d])
    text = str(err.value)
    assert "\n" not in text and "line 2: column placement" in text and "'scatter'" in text
    assert "block|interleaved|nodes|sockets" in text
    assert cli.main(["migrate", str(d)]) == 2
