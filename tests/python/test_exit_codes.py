"""Every command against the exit-code table (docs/exit-codes.md; python/collrepro/safeio.py):

  bad usage (an unknown option or subcommand)          -> 2
  a missing input file                                 -> 2
  an output that cannot be written (below a regular file: the system refuses the directory,
  ENOTDIR; the table's "a write failed") -> 5, as for no space or no permission
  --help                                               -> 0

and each error is one line: exactly one stderr line that starts with the command's name and a
colon, no Python traceback. Other stderr lines are allowed only where they are not errors:
argparse's usage block (`usage: ...` and its indented continuation), progress lines in the
project's `[name] ...` form, and under mpirun the launcher's own lines (collbench is counted by
its `collbench:` lines, as tests/driver/errors.sh does).

The unwritable-output case is left out where a command does not write itself: collrun (its
launches write through collbench, whose case is here), simrun (the same, under smpirun) and
./collrepro. Cases that need the Open MPI build skip without it. About 30 s.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from collrepro.mpienv import ci_environment

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build" / "openmpi"
COLLBENCH = Path(os.environ.get("COLLBENCH") or BUILD / "bench" / "collbench")
MPIEXEC = os.environ.get("MPIEXEC") or "/usr/bin/mpirun.openmpi"
QUICK = REPO / "configs" / "quick.yaml"
MPI_ENV = ci_environment()
TINY = ["--set", "groups.ratios=[1/1]", "--set", "blocks=[1:1]", "--set", "sizes=[1KiB]",
        "--set", "algorithms=[native]", "--set", "timing.reps=2", "--set", "timing.warmup=0"]
NEEDS_COLLBENCH = pytest.mark.skipif(not COLLBENCH.is_file(), reason=f"{COLLBENCH} is not built (cmake --preset openmpi)")

COMMANDS = {
    "collrepro": [REPO / "collrepro"],
    "collbench": [COLLBENCH],
    "collrun": [REPO / "bench" / "collrun"],
    "collmpi": [REPO / "bench" / "collmpi"],
    "collslurm": [REPO / "slurm" / "collslurm"],
    "analyze": [REPO / "analysis" / "analyze"],
    "colltune": [REPO / "interpose" / "colltune"],
    "simrun": [REPO / "bench" / "sim" / "simrun"],
    "timing-study": [REPO / "bench" / "timing-study"],
}


def run(name, *args, env=None, cwd=None, launcher=None, timeout=90):
    e = dict(os.environ)
    e.pop("COLLREPRO_DEBUG", None)
    e.update(MPI_ENV)
    e.update(env or {})
    argv = [str(a) for a in (launcher or []) + COMMANDS[name] + list(args)]
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e, cwd=cwd,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def error_lines(name, stderr, under_mpirun=False):
    """(the lines starting with 'name:', the other lines that are not allowed)."""
    mine, other, in_usage = [], [], False
    for line in stderr.splitlines():
        if not line.strip():
            continue
        if line.startswith(f"{name}:"):
            mine.append(line)
            in_usage = False
        elif line.startswith("usage:") or (in_usage and line[:1].isspace()):
            in_usage = True
        elif line.startswith(f"[{name}]") or under_mpirun:
            in_usage = False
        else:
            other.append(line)
    return mine, other


def check(proc, name, code, needle=None, under_mpirun=False):
    detail = f"exit {proc.returncode}; stderr:\n{proc.stderr[-1500:]}"
    assert "Traceback" not in proc.stderr, detail
    assert proc.returncode == code, detail
    mine, other = error_lines(name, proc.stderr, under_mpirun)
    assert len(mine) == 1, f"{len(mine)} lines start with '{name}:', want 1; " + detail
    assert not other, f"stderr lines that are neither the error line nor usage: {other[:3]}; " + detail
    if needle:
        assert needle in mine[0], f"the error line lacks {needle!r}; " + detail


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """A small result set (4 launches), a regular file to put outputs below, a timing-study
    directory, fake MPI prefix."""
    sys.path.insert(0, str(REPO / "tests" / "python"))
    import synthetic as S
    base = tmp_path_factory.mktemp("exit-codes")
    results = S.write_result_set(base / "results", S.seed000_points([32768]), launches=4, reps=5)
    blocker = base / "a-file"
    blocker.write_text("not a directory\n")
    study = base / "study"
    shutil.copytree(REPO / "results" / "timing" / "sync-methods" / "barrier" / "np2", study / "barrier" / "np2")
    prefix = base / "ompi"
    for tool, text in (("ompi_info", f'echo "ompi:version:full:9.9.9"\necho "config:cli: \'--prefix={prefix}\'"'),
                       ("mpicc", "exit 1"), ("mpicxx", "exit 1"), ("mpirun", "exit 1")):
        (prefix / "bin").mkdir(parents=True, exist_ok=True)
        (prefix / "bin" / tool).write_text(f"#!/bin/sh\n{text}\n")
        (prefix / "bin" / tool).chmod(0o755)
    (prefix / "lib").mkdir()
    (prefix / "include").mkdir()
    slurm_cfg = base / "slurm.yaml"
    slurm_cfg.write_text(QUICK.read_text())
    return {"base": base, "results": results, "below": blocker / "sub", "study": study, "prefix": prefix,
            "missing": base / "no-such-file.yaml", "missing_dir": base / "no-such-dir"}


# ------------------------------------------------------------------ --help: 0

@pytest.mark.parametrize("name", [n for n in COMMANDS if n != "collbench"] + [
    pytest.param("collbench", marks=NEEDS_COLLBENCH)])
def test_help_is_0(name):
    proc = run(name, "--help")
    assert proc.returncode == 0, proc.stderr[-800:]
    assert proc.stdout.strip() or proc.stderr.strip(), "--help printed nothing"
    assert "Traceback" not in proc.stderr


# ------------------------------------------------------------------ bad usage: 2

USAGE = {
    "collrepro": ["no-such-command"],
    "collrun": ["--no-such-option", str(QUICK)],
    "collmpi": ["no-such-command"],
    "collslurm": ["plan", str(QUICK), "--no-such-option"],
    "analyze": ["no-such-command"],
    "colltune": ["--no-such-option", "x"],
    "simrun": ["--no-such-option"],
    "timing-study": ["--no-such-option"],
}


@pytest.mark.parametrize("name", list(USAGE))
def test_bad_usage_is_2(name):
    check(run(name, *USAGE[name]), name, 2)


@pytest.mark.parametrize("args", [["run", "--methods", "no-such-method"], ["run", "--nps", "x"]])
def test_bad_option_value_is_2_timing_study(args, tmp_path):
    """A bad value of a known option is a usage error too (it exited 1)."""
    check(run("timing-study", *args, "--out", tmp_path / "out"), "timing-study", 2)
    assert not (tmp_path / "out").exists()


def test_unknown_installation_is_2_timing_study(tmp_path):
    """An unknown --mpi is bad input, said by timing-study itself, not a sweep to resume."""
    proc = run("timing-study", "run", "--mpi", "no-such-mpi", "--nps", "2", "--methods", "barrier", "--launches", "1",
               "--out", tmp_path / "out")
    check(proc, "timing-study", 2, needle="no-such-mpi")
    assert "resume" not in proc.stderr, proc.stderr


@NEEDS_COLLBENCH
def test_bad_usage_is_2_collbench():
    check(run("collbench", "--no-such-option", launcher=[MPIEXEC, "-n", "2"]), "collbench", 2, under_mpirun=True)


# ------------------------------------------------------------------ a missing input file: 2

def _missing_cases(i):
    m, d = str(i["missing"]), str(i["missing_dir"])
    return {
        "collrun": ["--np", "2", m],
        "collmpi": ["add", "openmpi-9.9.9", "--prefix", d],
        "collslurm": ["plan", m, "--np", "2"],
        "analyze": ["report", d, "-o", str(i["base"] / "report-out")],
        "colltune": [d, "-o", str(i["base"] / "rules.json")],
        "timing-study": ["report", d, "-o", str(i["base"] / "study-out")],
    }


@pytest.mark.parametrize("name", ["collrun", "collmpi", "collslurm", "analyze", "colltune", "timing-study"])
def test_missing_input_is_2(name, inputs, tmp_path):
    args = _missing_cases(inputs)[name]
    proc = run(name, *args, env={"COLLREPRO_CONFIG_DIR": str(tmp_path / "config"),
                                 "COLLREPRO_CACHE": str(tmp_path / "cache")})
    check(proc, name, 2, needle="no-such-")
    for out in ("report-out", "rules.json", "study-out"):
        assert not (inputs["base"] / out).exists(), f"{name} wrote {out} on a missing input"


@NEEDS_COLLBENCH
def test_missing_input_is_2_collbench(inputs):
    proc = run("collbench", inputs["missing"], "--out", inputs["base"] / "cb-out", launcher=[MPIEXEC, "-n", "2"])
    check(proc, "collbench", 2, needle="no-such-", under_mpirun=True)


def test_missing_platform_is_2_simrun(inputs, tmp_path):
    """The platform file is read by simrun itself (a missing one gave a traceback): a fake smpi
    build so that simrun gets as far as the platform."""
    if not Path("/usr/bin/smpirun").exists():
        pytest.skip("SimGrid's smpirun is not installed (libsimgrid-dev): simrun stops before the platform")
    fake = tmp_path / "smpi-build" / "bench" / "collbench"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    proc = run("simrun", "--platform", inputs["missing"], "--np", "2", "--build-dir", fake.parents[1], "--dry-run",
               QUICK)
    check(proc, "simrun", 2, needle="no-such-")


def test_missing_config_is_2_collrepro(inputs, tmp_path):
    """./collrepro run CONFIG: a missing config is refused before anything is installed or
    built (cmake, apt-get and sudo are stubs here that record being called)."""
    stubs = tmp_path / "bin"
    stubs.mkdir()
    for tool in ("cmake", "apt-get", "sudo"):
        (stubs / tool).write_text(f"#!/bin/sh\necho {tool} >> {tmp_path}/called\nexit 97\n")
        (stubs / tool).chmod(0o755)
    proc = run("collrepro", "run", inputs["missing"], env={"PATH": f"{stubs}:{os.environ.get('PATH', '/usr/bin:/bin')}"},
               timeout=120)
    check(proc, "collrepro", 2, needle="no-such-")
    assert not (tmp_path / "called").exists(), f"called before the config was checked: {(tmp_path / 'called').read_text()}"


# ------------------------------------------------------------------ an unwritable output: 5

def test_unwritable_output_is_5_analyze(inputs):
    check(run("analyze", "report", inputs["results"], "-o", inputs["below"]), "analyze", 5)


def test_unwritable_output_is_5_colltune(inputs):
    check(run("colltune", inputs["results"], "-o", inputs["below"] / "rules.json"), "colltune", 5)


def test_unwritable_output_is_5_timing_study(inputs):
    check(run("timing-study", "report", inputs["study"], "-o", inputs["below"]), "timing-study", 5)


def test_unwritable_registry_is_5_collmpi(inputs, tmp_path):
    proc = run("collmpi", "add", "openmpi-9.9.9", "--prefix", inputs["prefix"],
               env={"COLLREPRO_CONFIG_DIR": str(inputs["below"]), "COLLREPRO_CACHE": str(tmp_path / "cache")})
    check(proc, "collmpi", 5)


@NEEDS_COLLBENCH
def test_unwritable_output_is_5_collslurm(inputs):
    proc = run("collslurm", "submit", QUICK, "--dry-run", "--np", "2", "--out", inputs["below"],
               "--build-dir", BUILD, "--collbench", COLLBENCH, *TINY)
    check(proc, "collslurm", 5)


@NEEDS_COLLBENCH
def test_unwritable_output_is_5_collbench(inputs):
    proc = run("collbench", QUICK, "--out", inputs["below"], *TINY, launcher=[MPIEXEC, "-n", "2"])
    check(proc, "collbench", 5, under_mpirun=True)
