"""Result files stored gzip-compressed (collrepro.resultfiles) are read as their plain bytes by
the loader (integrity records included); `compact` compresses in place, verifies before it
removes, finishes an interrupted run, skips unfinished launches, and refuses both forms that
differ; damaged or doubled files are refused with one line."""

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

import synthetic as S
from collrepro import resultfiles
from collrepro import contract as C
from collrepro.analysis.loading import loader
from collrepro.analysis.loading import migrate
from collrepro.analysis.loading.errors import InputError
from test_integrity import add_integrity

REPO = Path(__file__).resolve().parents[2]
ENV = {"PYTHONPATH": str(REPO / "python"), "PATH": "/usr/bin:/bin"}


@pytest.fixture
def result_set(tmp_path):
    pts = [S.point("native", p=2, q=2, ka=8, kb=8, msg_bytes=m) for m in (8, 64)]
    return add_integrity(S.write_result_set(tmp_path / "set", pts, launches=2, reps=4))


def tool(*args):
    return subprocess.run([sys.executable, "-m", "collrepro", "compact", *map(str, args)], env=ENV,
                          capture_output=True, text=True)


def snapshot(directory):
    """{plain name: plain bytes} of a directory's result files, whichever form they are in."""
    return {C.plain_name(p.name): resultfiles.read_bytes(p, 1 << 30, "test") for p in directory.iterdir()
            if C.parse_file_name(p.name)}


def test_compact_keeps_every_byte_and_the_loader_reads_the_same_frames(result_set):
    before, plain = snapshot(result_set), loader.load_dir(result_set)
    proc = tool("--check", result_set)
    assert proc.returncode == 1 and "6 file(s) to compress" in proc.stdout
    assert snapshot(result_set) == before and not list(result_set.glob("*.gz"))      # a dry run
    assert tool(result_set).returncode == 0
    assert sorted(p.name for p in result_set.iterdir() if not p.name.startswith(".")) == sorted(
        n + ".gz" for n in before)
    assert snapshot(result_set) == before
    packed = loader.load_dir(result_set)          # the integrity records hold for the .gz files
    assert packed.raw.equals(plain.raw) and packed.summary.equals(plain.summary)
    assert tool("--check", result_set).returncode == 0      # nothing left


def test_an_interrupted_compaction_is_finished_and_different_forms_refused(result_set):
    raw = result_set / "raw-L0.csv"
    data = raw.read_bytes()
    (result_set / "raw-L0.csv.gz").write_bytes(gzip.compress(data))     # killed before the unlink
    with pytest.raises(InputError, match="holds both raw-L0.csv and raw-L0.csv.gz"):
        loader.load_dir(result_set)
    assert tool(result_set).returncode == 0 and not raw.exists()
    assert resultfiles.read_bytes(result_set / "raw-L0.csv.gz", 1 << 20, "t") == data
    (result_set / "summary-L1.csv").write_text("other\n")       # beside its different .gz
    proc = tool(result_set)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "holds both summary-L1.csv and summary-L1.csv.gz with different contents" in proc.stderr
    assert (result_set / "summary-L1.csv").exists()            # nothing removed


def test_unfinished_launches_and_temporaries_are_left_alone(result_set):
    (result_set / "raw-L1.csv.tmp").write_text("x\n")          # launch 1 is being written
    (result_set / ".raw-L0.csv.gz.collrepro-tmp-999999").write_bytes(b"stale")   # a dead writer's
    assert tool(result_set).returncode == 0
    assert (result_set / "raw-L1.csv").exists() and (result_set / "meta-L1.json").exists()
    assert (result_set / "raw-L0.csv.gz").exists() and not (result_set / "raw-L0.csv").exists()
    assert not list(result_set.glob(".*collrepro-tmp*"))


def test_a_damaged_gz_is_one_line(result_set):
    assert tool(result_set).returncode == 0
    packed = result_set / "raw-L0.csv.gz"
    packed.write_bytes(packed.read_bytes()[:40])
    with pytest.raises(InputError, match=r"raw-L0.csv.gz: not a complete gzip file .*damaged"):
        loader.load_dir(result_set)
    packed.write_bytes(gzip.compress(b"a" * 5000))
    with pytest.raises(resultfiles.UserError, match="decompresses to over the 1.0 KiB limit"):
        resultfiles.read_bytes(packed, 1024, "a raw CSV")


def test_migrate_rewrites_a_compressed_v1_directory_compressed(tmp_path):
    d = S.write_result_set(tmp_path / "v1", S.seed000_points([32768])[:3], launches=1, reps=3, version=1)
    assert tool(d).returncode == 0
    migrate.migrate_dir(d)
    assert not [p for p in d.iterdir() if C.parse_file_name(p.name) and not C.is_compressed(p.name)]
    header = resultfiles.read_text(d / "raw-L0.csv.gz", 1 << 20, "t").split("\n", 1)[0]
    assert header.split(",") == C.RAW_COLUMNS
    meta = json.loads(resultfiles.read_text(d / "meta-L0.json.gz", 1 << 20, "t"))
    assert meta["contract_version"] == C.VERSION
    assert len(loader.load_dir(d).raw) == 9


def test_not_a_directory_is_exit_2(tmp_path):
    proc = tool(tmp_path / "nope")
    assert proc.returncode == 2 and proc.stderr.startswith("compact: ") and proc.stderr.count("\n") == 1
