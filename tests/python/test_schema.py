"""Contract checks: every violation gives one clear line naming file and problem."""

import json

import pytest

import synthetic as S
from collrepro import contract as C
from collrepro.analysis import cli
from collrepro.analysis.loading import loader
from collrepro.analysis.loading.schema import InputError


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
    set_cell(result_dir / "raw-L0.csv", 3, "time_s", "fast")
    msg = error_of(result_dir)
    assert "raw-L0.csv: line 3: column time_s: expected a finite number, got 'fast'" in msg


def test_bad_enum_value(result_dir):
    set_cell(result_dir / "raw-L0.csv", 3, "valid", "2")
    msg = error_of(result_dir)
    assert "line 3: column valid" in msg and "0|1" in msg


def test_partial_file(result_dir):
    rewrite(result_dir / "raw-L1.csv", lambda lines: lines[:-1] + [lines[-1][:40]])
    msg = error_of(result_dir)
    assert "raw-L1.csv" in msg and "partial" in msg


def test_partial_row_inside_file(result_dir):
    rewrite(result_dir / "raw-L1.csv", lambda lines: lines[:3] + [lines[3][:40] + "\n"] + lines[4:])
    msg = error_of(result_dir)
    assert "raw-L1.csv: line 4:" in msg and f"expected {len(C.RAW_COLUMNS)}" in msg


def test_launch_must_match_file_name(result_dir):
    (result_dir / "raw-L1.csv").rename(result_dir / "raw-L7.csv")
    assert "expected 7 (from the file name)" in error_of(result_dir)


def test_meta_missing_key_and_bad_json(result_dir):
    meta = json.loads((result_dir / "meta-L0.json").read_text())
    del meta["nprocs"]
    (result_dir / "meta-L0.json").write_text(json.dumps(meta))
    assert "meta-L0.json: missing key 'nprocs'" in error_of(result_dir)
    (result_dir / "meta-L0.json").write_text("{")
    assert "meta-L0.json: not valid JSON" in error_of(result_dir)


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


# ---------------------------------------------------------------- family-owned shape columns

def set_cell(path, line, column, value):
    import csv
    rows = list(csv.reader(path.read_text().splitlines()))
    rows[line - 1][rows[0].index(column)] = value
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


@pytest.fixture
def mixed_dir(tmp_path):
    pts = [S.point("native", p=2, q=2, ka=8, kb=8, msg_bytes=8), S.iso_point("torus", msg_bytes=8)]
    return S.write_result_set(tmp_path / "set", pts, launches=1, reps=2)


def test_shape_column_of_another_family_must_be_empty(mixed_dir):
    set_cell(mixed_dir / "raw-L0.csv", 4, "p", "3")                 # line 4: an isomorphic row
    assert "line 4: column p: must be empty in rows of a family" in error_of(mixed_dir)


def test_own_shape_column_must_be_filled(mixed_dir):
    set_cell(mixed_dir / "summary-L0.csv", 2, "bytes_a", "")
    assert "summary-L0.csv: line 2: column bytes_a: expected an integer, got ''" in error_of(mixed_dir)


def test_enum_checked_only_in_owning_rows(mixed_dir):
    set_cell(mixed_dir / "raw-L0.csv", 2, "distribution", "zipf")
    assert "line 2: column distribution: expected one of equal|arithmetic|random" in error_of(mixed_dir)
    set_cell(mixed_dir / "raw-L0.csv", 2, "distribution", "equal")
    assert len(loader.load([mixed_dir]).raw) == 4                    # isomorphic rows: distribution empty


def test_family_must_match_the_collective(mixed_dir):
    set_cell(mixed_dir / "raw-L0.csv", 2, "family", "isomorphic")
    assert "collective allgather belongs to family inter-group" in error_of(mixed_dir)


def test_newer_contract_version_is_refused(mixed_dir):
    meta = json.loads((mixed_dir / "meta-L0.json").read_text())
    (mixed_dir / "meta-L0.json").write_text(json.dumps(dict(meta, contract_version=99)))
    assert "contract_version 99" in error_of(mixed_dir)



def pad_values(path, pad, quoting):
    """Rewrite a CSV with every value (not the header) padded by pad(text)."""
    import csv
    rows = list(csv.reader(path.read_text().splitlines()))
    with open(path, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n", quoting=quoting)
        writer.writerow(rows[0])
        writer.writerows([pad(v) for v in row] for row in rows[1:])


@pytest.mark.parametrize("pad,quoting", [
    (lambda v: f" {v}\t", "minimal"), (lambda v: f"{v} ", "minimal"),
    (lambda v: f" {v} ", "all"), (lambda v: f"\u00a0{v}", "minimal")],
    ids=["space-before-tab-after", "space-after", "quoted-spaces", "non-ascii-space"])
def test_padded_values_read_as_unpadded(result_dir, pad, quoting):
    """White space around a value is not part of it: a padded file loads as the plain one (the
    loader skips the strip only where no value can be padded)."""
    import csv
    plain = loader.load([result_dir])
    for name in ("raw-L0.csv", "summary-L1.csv"):
        pad_values(result_dir / name, pad, csv.QUOTE_ALL if quoting == "all" else csv.QUOTE_MINIMAL)
    padded = loader.load([result_dir])
    assert padded.raw.equals(plain.raw) and padded.summary.equals(plain.summary)
