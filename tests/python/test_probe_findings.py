"""What a new-user probe found in the tools outside the analysis (issue 40), each a regression
test: one clear line and the right exit code of the table (safeio), and nothing written where
nothing should be. No SimGrid or collbench build is needed."""

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

from collrepro import resultfiles, safeio
from collrepro.sim.validation import sensitivity as sim_sensitivity

REPO = Path(__file__).resolve().parents[2]
PYTHON = REPO / "python"


def door(*words, pythonpath=(), cwd=None):
    """`python3 -m collrepro WORDS` (./collrepro-py WORDS), as a user starts a verb."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*map(str, pythonpath), str(PYTHON)])}
    env.pop("COLLREPRO_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "collrepro", *map(str, words)], capture_output=True,
                          text=True, timeout=120, env=env, cwd=cwd)


def one_line(r, prog, code, *needles):
    assert r.returncode == code, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    lines = [l for l in r.stderr.splitlines() if l]
    assert len(lines) == 1 and lines[0].startswith(f"{prog}: "), r.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def test_sim_sensitivity_refuses_a_damaged_table_with_exit_2(tmp_path):
    (tmp_path / "sensitivity.csv").write_text("effect,value\nnic,abc\n")
    r = door("sim", "sensitivity", "--dry-run", "--effects", "nic", "-o", tmp_path)
    one_line(r, "sim sensitivity", safeio.EXIT_BAD_INPUT, str(tmp_path / "sensitivity.csv"), "damaged")
    rows = sim_sensitivity.COLUMNS
    (tmp_path / "sensitivity.csv").write_text(",".join(rows) + "\n" + ",".join(["nic"] + ["x"] * (len(rows) - 1)) + "\n")
    one_line(door("sim", "sensitivity", "--dry-run", "--effects", "nic", "-o", tmp_path), "sim sensitivity",
             safeio.EXIT_BAD_INPUT, "damaged")


def test_sim_sensitivity_names_shapes_not_nodes(tmp_path):
    r = door("sim", "sensitivity", "--dry-run", "--effects", "mem", "--shapes", "1000x1", "-o", tmp_path)
    one_line(r, "sim sensitivity", safeio.EXIT_BAD_INPUT, "--shapes '1000x1'", "2..384")
    assert "--nodes" not in r.stderr
    r = door("sim", "sensitivity", "--dry-run", "--effects", "mem", "--shapes", "256x128", "-o", tmp_path)
    one_line(r, "sim sensitivity", safeio.EXIT_BAD_INPUT, "--shapes '256x128'", "1..64")
    assert "--cores" not in r.stderr
    assert not (tmp_path / "platforms").exists()


def test_compact_keeps_a_small_file_whose_gzip_is_larger(tmp_path):
    (tmp_path / "summary-L0.csv").write_text("a\n")
    r = door("compact", tmp_path)
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "summary-L0.csv").exists()
    packed = tmp_path / "summary-L0.csv.gz"
    assert packed.stat().st_size > 2 and gzip.decompress(packed.read_bytes()) == b"a\n"
    assert resultfiles.read_bytes(packed, 1024, "a result file") == b"a\n"


def test_node_memory_platform_needs_the_directory_to_exist(tmp_path):
    target = tmp_path / "absent" / "x.xml"
    r = door("sim", "node-memory", "--nodes", "2", "--cores", "2", "-o", target)
    one_line(r, "sim node-memory", safeio.EXIT_BAD_INPUT, str(tmp_path / "absent"), "does not exist")
    assert not (tmp_path / "absent").exists()
    r = door("sim", "node-memory", "--nodes", "2", "--cores", "2", "-o", tmp_path / "x.xml")
    assert r.returncode == 0 and (tmp_path / "x.xml").stat().st_size > 0, r.stderr


def test_sim_paper_dry_run_writes_no_platform(tmp_path):
    build = tmp_path / "build"
    r = door("sim", "paper", "--dry-run", "--build-dir", build, "seed000-fc-256x1")
    assert "Traceback" not in r.stderr, r.stderr
    assert "is not written" in r.stderr, r.stderr
    assert not build.exists(), sorted(p.name for p in build.rglob("*"))


@pytest.mark.parametrize("verb", ["sim validate", "tune", "study node16"])
def test_verbs_without_numpy_say_so_in_one_line(tmp_path, verb):
    """Under a Python without numpy (a stand-in package that fails to import) a verb exits 5 with
    one line naming the Debian package, no traceback."""
    (tmp_path / "numpy.py").write_text("raise ModuleNotFoundError(\"No module named 'numpy'\", name='numpy')\n")
    r = door(*verb.split(), "--help", pythonpath=[tmp_path])
    one_line(r, "collrepro-py", safeio.EXIT_ENVIRONMENT, f"{verb}: ", "lacks numpy", "python3-numpy")
