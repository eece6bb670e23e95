"""Contract checks: every violation gives one clear line naming file and problem."""

import json

import pytest

import synthetic as S
from collrepro_analysis import cli, loader
from collrepro_analysis.schema import InputError


@pytest.fixture
def result_dir(tmp_path):
    pts = [S.point("native", p=2, q=2, ka=8, kb=8, msg_bytes=m) for m in (8, 64)]
    return S.write_result_set(tmp_path / "set", pts, launches=2, reps=4)


def rewrite(path, fn):
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(fn(lines)))


def drop_column(lines, name):
    header = lines[0].rstrip("\n").split(",")
    i = header.index(name)
    out = []
    for line in lines:     # the test data has no quoted commas in these files' early columns
        fields = line.rstrip("\n").split(",")
        del fields[i]
        out.append(",".join(fields) + "\n")
    return out


def error_of(directory):
    with pytest.raises(InputError) as info:
        loader.load([directory])
    message = str(info.value)
    assert "\n" not in message
    return message


def test_missing_column(result_dir):
    rewrite(result_dir / "raw-L1.csv", lambda lines: drop_column(lines, "clock"))
    msg = error_of(result_dir)
    assert "raw-L1.csv" in msg and "missing column(s) clock" in msg


def test_extra_column(result_dir):
    rewrite(result_dir / "summary-L0.csv",
            lambda lines: [lines[0].rstrip("\n") + ",extra\n"] + [l.rstrip("\n") + ",1\n" for l in lines[1:]])
    msg = error_of(result_dir)
    assert "summary-L0.csv" in msg and "unexpected column(s) extra" in msg


def test_wrong_type(result_dir):
    rewrite(result_dir / "raw-L0.csv",
            lambda lines: lines[:2] + [lines[2].rsplit(",", 2)[0] + ",fast,1\n"] + lines[3:])
    msg = error_of(result_dir)
    assert "raw-L0.csv: line 3: column time_s: expected a finite number, got 'fast'" in msg


def test_bad_enum_value(result_dir):
    rewrite(result_dir / "raw-L0.csv",
            lambda lines: lines[:2] + [lines[2].rstrip("\n")[:-1] + "2\n"] + lines[3:])
    msg = error_of(result_dir)
    assert "line 3: column valid" in msg and "0|1" in msg


def test_partial_file(result_dir):
    rewrite(result_dir / "raw-L1.csv", lambda lines: lines[:-1] + [lines[-1][:40]])
    msg = error_of(result_dir)
    assert "raw-L1.csv" in msg and "partial" in msg


def test_partial_row_inside_file(result_dir):
    rewrite(result_dir / "raw-L1.csv", lambda lines: lines[:3] + [lines[3][:40] + "\n"] + lines[4:])
    msg = error_of(result_dir)
    assert "raw-L1.csv: line 4:" in msg and "expected 25" in msg


def test_launch_must_match_file_name(result_dir):
    (result_dir / "raw-L1.csv").rename(result_dir / "raw-L7.csv")
    assert "expected 7 (from the file name)" in error_of(result_dir)


def test_meta_missing_key_and_bad_json(result_dir):
    meta = json.loads((result_dir / "meta-L0.json").read_text())
    del meta["nprocs"]
    (result_dir / "meta-L0.json").write_text(json.dumps(meta))
    assert "meta-L0.json: missing key 'nprocs'" in error_of(result_dir)
    (result_dir / "meta-L0.json").write_text("{")
    assert "meta-L0.json: invalid JSON" in error_of(result_dir)


def test_tmp_files_are_ignored(result_dir):
    (result_dir / "raw-L2.csv.tmp").write_text("garbage")
    (result_dir / "meta-L2.json.tmp").write_text("{")
    assert len(loader.load([result_dir]).raw) == 2 * 2 * 4


def test_empty_directory(tmp_path):
    assert "no raw-*.csv or summary-*.csv" in error_of(tmp_path)


def test_cli_reports_one_line_and_exit_2(result_dir, capsys):
    rewrite(result_dir / "raw-L1.csv", lambda lines: drop_column(lines, "valid"))
    assert cli.main(["aggregate", str(result_dir)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("analyze: error:") and "missing column(s) valid" in err
    assert len(err.splitlines()) == 1
