"""Issue #17 (F5, W6, W7): damaged result directories are refused with one line naming the file
and the points, shortfalls warn with exit 4, random bytes give one line with exit 2, and
directories without an integrity record still load."""

import hashlib
import json
from pathlib import Path

import pytest

import synthetic as S
from collrepro import contract as C
from collrepro.analysis import cli
from collrepro.analysis.loading import loader

REPO = Path(__file__).resolve().parents[2]


def add_integrity(directory):
    """The integrity record collbench writes (bench/output/results.cpp), computed from the files."""
    for meta_path in sorted(directory.glob("meta-*.json")):
        meta = json.loads(meta_path.read_text())
        names = {k: C.file_name(k, meta["launch"], meta.get("slice")) for k in ("raw", "summary")}
        data = {k: (directory / n).read_bytes() for k, n in names.items()}
        lines = {k: v.split(b"\n")[:-1] for k, v in data.items()}
        meta["integrity"] = {
            "files": {names[k]: {"rows": len(lines[k]) - 1, "sha256": hashlib.sha256(data[k]).hexdigest()}
                      for k in names},
            "points": loader._points_of(lines["raw"], lines["summary"])}
        meta_path.write_text(json.dumps(meta))
    return directory


@pytest.fixture
def verified(tmp_path):
    pts = [S.point("native", p=2, q=2, ka=8, kb=8, msg_bytes=m) for m in (8, 64)]
    return add_integrity(S.write_result_set(tmp_path / "set", pts, launches=2, reps=4))


@pytest.fixture(autouse=True)
def fresh_state():
    loader.SHORTFALLS.clear()
    loader.UNVERIFIED.clear()


def run(directory, capsys):
    code = cli.main(["aggregate", str(directory)])
    return code, capsys.readouterr().err


def edit_lines(path, fn):
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(fn(lines)))


def test_intact_directory_loads(verified, capsys):
    assert run(verified, capsys) == (0, "")
    assert len(loader._points_of(*(p.read_bytes().split(b"\n")[:-1] for p in
                                   (verified / "raw-L0.csv", verified / "summary-L0.csv")))) == 2


@pytest.mark.parametrize("name, damage, message", [
    ("truncation", lambda d: edit_lines(d / "summary-L1.csv", lambda ls: ls[:-1]),
     "summary-L1.csv has 1 data rows, the metadata says 2 (points damaged or missing: 1)"),
    ("deleted rows", lambda d: edit_lines(d / "raw-L0.csv", lambda ls: ls[:1] + ls[2:]),
     "raw-L0.csv has 7 data rows, the metadata says 8 (points damaged or missing: 0)"),
    ("flipped byte", lambda d: edit_lines(d / "raw-L0.csv", lambda ls: ls[:-1] + [ls[-1].replace("e-", "e+", 1)]),
     "raw-L0.csv: its SHA-256 differs from the metadata's (points damaged or missing: 1)"),
])
def test_damaged_files_are_refused(verified, capsys, name, damage, message):
    damage(verified)
    code, err = run(verified, capsys)
    assert code == cli.EXIT_BAD_INPUT, name
    assert err.count("\n") == 1 and message in err and "re-run the launch" in err, err


def test_w6_random_bytes_give_one_line(verified, capsys):
    (verified / "raw-L0.csv").write_bytes(bytes(range(256)) * 8 + b"\n")
    for meta in verified.glob("meta-*.json"):  # without the integrity check in front
        m = json.loads(meta.read_text())
        del m["integrity"]
        meta.write_text(json.dumps(m))
    code, err = run(verified, capsys)
    assert code == cli.EXIT_BAD_INPUT and "Traceback" not in err
    assert "raw-L0.csv: line 2: not UTF-8 text (byte 0x80)" in err and "re-run the launch" in err, err


def unverified(directory):
    for meta in directory.glob("meta-*.json"):
        m = json.loads(meta.read_text())
        m.pop("integrity", None)
        m["complete"] = True
        m["points"] = {"total": 2, "slice_begin": 0, "slice_end": 2, "resumed": 0}
        meta.write_text(json.dumps(m))
    return directory


def test_w7_empty_launch_under_a_complete_meta_warns(verified, capsys):
    d = unverified(verified)
    for kind in ("raw", "summary"):
        edit_lines(d / f"{kind}-L0.csv", lambda ls: ls[:1])
    code, err = run(d, capsys)
    assert code == cli.EXIT_INCOMPLETE
    assert "launch 0 is complete but lacks 2 point(s): 0, 1" in err
    assert "metadata without checksums" in err


def test_fewer_repetitions_than_the_summary_warns(verified, capsys):
    d = unverified(verified)
    edit_lines(d / "raw-L0.csv", lambda ls: ls[:1] + ls[4:])
    code, err = run(d, capsys)
    assert code == cli.EXIT_INCOMPLETE and "launch 0 point 0: 1 of its 4 repetitions" in err, err


def test_reference_results_load_unverified_without_warnings(capsys):
    for directory in sorted((REPO / "results").glob("*/*/meta-L0.json")):
        code, err = run(directory.parent, capsys)
        assert code == 0 and "warning" not in err and "error" not in err, err
