"""The tools outside analysis meet bad input with one line and an exit code of the table:
simrun (platform files: missing, empty, truncated, random bytes, entity expansion, oversized,
foreign), paper, timing-study (usage, an unknown installation), collmpi, collslurm and collrun
(usage), damaged registry and Slurm records; their writers leave whole files and no temporaries.
No SimGrid, Slurm or collbench build is needed (a fake collbench stands in where one is run)."""

import contextlib
import errno
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from collrepro import safeio
from collrepro.sim.running import paper as sim_paper
from collrepro.sim.running import run as sim
from collrepro.studies import timing as ts
from collrepro.installations import cli as collmpi_cli
from collrepro.installations import registry
from collrepro.slurm import state

import synthetic

REPO = Path(__file__).resolve().parents[2]
SIMRUN = REPO / "bench" / "sim" / "simrun"
CONFIG = REPO / "configs" / "quick.yaml"
PLATFORM = REPO / "configs" / "platforms" / "cori-dragonfly.xml"
FAKE = "fakempi-9.9"  # an installation name this test registers


@pytest.fixture
def dirs(tmp_path, monkeypatch):
    """Private registry and cache directories, inherited by the commands the tests start."""
    monkeypatch.setenv("COLLREPRO_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("COLLREPRO_CACHE", str(tmp_path / "cache"))
    return tmp_path


def tool(*argv, cwd=None):
    env = dict(os.environ)
    env.pop("COLLREPRO_DEBUG", None)
    return subprocess.run([str(a) for a in argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=120, cwd=cwd, env=env)


class InProcess:
    """run_cli's result in this process (quicker than a new interpreter): returncode, stderr."""

    def __init__(self, capsys, prog, main, argv):
        capsys.readouterr()
        previous = signal.getsignal(signal.SIGTERM)  # run_cli installs its own
        try:
            self.returncode = safeio.run_cli(prog, main, [str(a) for a in argv])
        finally:
            signal.signal(signal.SIGTERM, previous)
        self.stderr = capsys.readouterr().err


def assert_one_line(r, prog, code, *needles):
    """Exit `code`, exactly one line on stderr, `prog: ...`, holding every needle, no traceback."""
    assert r.returncode == code, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"{prog}: "), r.stderr
    for needle in needles:
        assert needle in r.stderr, (needle, r.stderr)


# ------------------------------------------------------------------ simrun's platform file

def _platform(tmp_path, kind):
    path = tmp_path / f"{kind}.xml"
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "truncated":
        path.write_bytes(PLATFORM.read_bytes()[:700])
    elif kind == "random":
        path.write_bytes(bytes((i * 131 + 7) % 256 for i in range(4096)))  # fixed "random" bytes
    elif kind == "laughs":  # the billion laughs: ten levels of ten references, 10^9 "lol"s if expanded
        ents = ['<!ENTITY lol0 "lol">'] + [f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10)]
        path.write_text(f'<?xml version="1.0"?>\n<!DOCTYPE platform [{"".join(ents)}]>\n<platform>&lol9;</platform>\n')
    elif kind == "foreign":
        path.write_text('<?xml version="1.0"?>\n<svg><cluster prefix="node-" radical="0-7"/></svg>\n')
    elif kind == "oversized":
        with open(path, "wb") as f:
            f.truncate(safeio.MIB * 17)  # sparse: over the 16 MiB cap, costs no disk
    elif kind == "radical":
        path.write_text('<platform version="4.1"><cluster id="c" prefix="node-" radical="0-many"/></platform>\n')
    return path


PLATFORM_CASES = [
    ("missing", "No such file or directory"),
    ("empty", "the platform file is empty"),
    ("truncated", "not a well-formed XML file"),
    ("random", "not a well-formed XML file"),
    ("laughs", "declares an internal subset"),
    ("foreign", "the root element is <svg>, not <platform>"),
    ("oversized", "over the 16.0 MiB limit"),
    ("radical", 'radical="0-many"'),
]


def test_simrun_refuses_a_bad_platform_in_one_line(tmp_path):
    """The command itself, for the five damaged files of the issue: checked before the build is
    looked for (no SimGrid needed), exit 2 whatever is installed."""
    for kind, needle in PLATFORM_CASES[:5]:
        platform = _platform(tmp_path, kind) if kind != "missing" else tmp_path / "absent.xml"
        r = tool(SIMRUN, "--platform", platform, "--np", "4", "--build-dir", tmp_path / "no-build", CONFIG)
        assert_one_line(r, "simrun", 2, needle, str(platform))


@pytest.mark.parametrize("kind, needle", PLATFORM_CASES)
def test_simrun_platform_check_in_process(tmp_path, capsys, kind, needle):
    platform = _platform(tmp_path, kind) if kind != "missing" else tmp_path / "absent.xml"
    r = InProcess(capsys, "simrun", sim.main, ["--platform", platform, "--np", "4", "--build-dir",
                                               tmp_path / "no-build", CONFIG])
    assert_one_line(r, "simrun", 2, needle, str(platform))


def test_simrun_usage_and_a_missing_build(tmp_path, capsys):
    def simrun(*argv):
        return InProcess(capsys, "simrun", sim.main, argv)

    assert_one_line(simrun("--np", "4", CONFIG), "simrun", 2, "--platform required")
    assert_one_line(simrun("--platform", PLATFORM, "--np", "four", CONFIG), "simrun", 2, "--np")
    assert_one_line(simrun("--platform", PLATFORM, "--np", "99999", CONFIG), "simrun", 2,
                    "nodes needed, the platform has")
    # a good platform and no build: the environment (5), naming what to build
    assert_one_line(simrun("--platform", PLATFORM, "--np", "4", "--build-dir", tmp_path, CONFIG),
                    "simrun", 5, "cmake --preset smpi")


def test_paper_usage_and_a_damaged_runs_file(tmp_path, capsys):
    assert_one_line(tool(REPO / "bench" / "sim" / "paper"), "paper", 2, "--list")
    assert_one_line(InProcess(capsys, "paper", sim_paper.main, ["no-such-run"]), "paper", 2, "no-such-run")
    bad = tmp_path / "runs.yaml"
    bad.write_text("a: [unclosed\n")
    with pytest.raises(safeio.UserError, match="not valid YAML"):
        sim_paper.load_runs(str(bad))
    bad.write_text("a: 3\n")
    with pytest.raises(safeio.UserError, match="want a map of fields"):
        sim_paper.load_runs(str(bad))


# ------------------------------------------------------------------ timing-study

TIMING = REPO / "bench" / "timing-study"


def _register_fake(dirs):
    """An `add`ed installation in the registry file (its prefix need not exist to be listed)."""
    record = {"name": FAKE, "kind": "openmpi", "version": "9.9", "prefix": str(dirs / "fake"),
              "mpicc": "/x/mpicc", "mpicxx": "/x/mpicxx", "launcher": "/x/mpirun", "env": {}, "origin": "added"}
    safeio.write_json(dirs / "config" / "installations.json", {"version": 1, "installations": [record]})


def test_timing_study_usage_errors_exit_2(dirs, capsys):
    assert_one_line(tool(TIMING), "timing-study", 2, "required")  # the command itself, once

    def study(*argv):
        return InProcess(capsys, "timing-study", ts.main, argv)

    assert_one_line(study("run", "--nps", "2,x"), "timing-study", 2, "--nps")
    assert_one_line(study("run", "--launches", "0"), "timing-study", 2, "--launches")
    assert_one_line(study("run", "--methods", "fastest"), "timing-study", 2, "unknown method fastest")
    assert_one_line(study("report", dirs / "absent"), "timing-study", 2, "no such directory")


def test_timing_study_names_the_known_installations_before_any_mpi_work(dirs):
    _register_fake(dirs)
    out = dirs / "study"
    r = tool(TIMING, "run", "--mpi", "nosuch-1.0", "--out", out, "--nps", "2")
    assert_one_line(r, "timing-study", 2, "no MPI installation named 'nosuch-1.0'", "known: ", FAKE)
    assert "sweep" not in r.stderr and not out.exists()


def test_timing_study_report_keeps_the_previous_report_when_an_input_is_damaged(tmp_path):
    block = synthetic.write_timing_block(tmp_path / "barrier" / "np2", [1e-5], [0])
    assert ts.report(str(tmp_path), str(tmp_path / "out")) == 0
    before = {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()}
    assert set(before) == {"study.csv", "residuals.csv", "study.md", "spread.png", ".collrepro-output"}  # no temporaries left
    (block / "meta-L0.json").write_text('{"sync": {"sync_cost": {"seconds": 0.00')  # truncated
    with pytest.raises(safeio.UserError, match="meta-L0.json: not valid JSON"):
        ts.report(str(tmp_path), str(tmp_path / "out"))
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir()} == before


def test_timing_study_report_is_all_or_nothing_on_a_full_disk(tmp_path, monkeypatch):
    """A write that fails (ENOSPC) for the third file: the previous report directory stays as it
    was, byte for byte, and no temporary is left beside it."""
    synthetic.write_timing_block(tmp_path / "barrier" / "np2", [1e-5], [0])
    out = tmp_path / "out"
    assert ts.report(str(tmp_path), str(out)) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    shutil.rmtree(tmp_path / "barrier" / "np2")
    synthetic.write_timing_block(tmp_path / "barrier" / "np2", [2e-5], [0])
    real = ts._write_file

    def full_disk_at_study_md(path, data):
        if Path(path).name == "study.md":
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data)

    monkeypatch.setattr(ts, "_write_file", full_disk_at_study_md)
    with pytest.raises(OSError, match="No space left"):
        ts.report(str(tmp_path), str(out))
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["barrier", "out"]


# ------------------------------------------------------------------ collmpi, collslurm, collrun usage

COLLMPI = REPO / "bench" / "collmpi"
COLLSLURM = REPO / "slurm" / "collslurm"
COLLRUN = REPO / "bench" / "collrun"


@pytest.mark.parametrize("argv, prog, needle", [
    ([COLLMPI, "frob"], "collmpi", "invalid choice: 'frob'"),
    ([COLLSLURM, "frob"], "collslurm", "invalid choice: 'frob'"),
    ([COLLRUN, "--bogus", CONFIG], "collrun", "unrecognized arguments: --bogus"),
])
def test_bad_usage_is_one_line_and_exit_2(dirs, argv, prog, needle):
    assert_one_line(tool(*argv), prog, 2, needle)


def test_more_bad_usage_in_process(dirs, capsys):
    from collrepro.launch.collrun import collrun
    from collrepro.slurm.cli import main as collslurm_main

    for prog, main, argv, needle in [
            ("collmpi", collmpi_cli.main, [], "required"),
            ("collmpi", collmpi_cli.main, ["build", "--jobs", "many"], "--jobs"),
            ("collslurm", collslurm_main, [], "give a command"),
            ("collslurm", collslurm_main, ["status"], "required: dir"),
            ("collrun", collrun, [], "a CONFIG.yaml is required"),
            ("collrun", collrun, ["--np", "0", CONFIG], "--np 0 is not a positive number")]:
        assert_one_line(InProcess(capsys, prog, main, argv), prog, 2, needle)


# ------------------------------------------------------------------ damaged records

@pytest.mark.parametrize("content, needle", [
    ('{"version": 1, "installations": [{"name": "openmpi-4', "not valid JSON"),
    ('[1, 2]', "not a registry"),
    ('{"version": 1, "installations": [{"name": 7}]}', "entry 0 is not an installation"),
])
def test_a_damaged_registry_is_one_line_naming_it(dirs, content, needle):
    path = dirs / "config" / "installations.json"
    path.parent.mkdir(parents=True)
    path.write_text(content)
    assert_one_line(tool(COLLMPI, "remove", FAKE), "collmpi", 2, str(path), needle, "delete it")
    with pytest.raises(registry.RegistryError):  # never an empty registry that `add` would write back
        registry.add(FAKE, str(dirs))
    assert path.read_text() == content


def test_a_damaged_registry_stops_collrun_too(dirs):
    path = dirs / "config" / "installations.json"
    path.parent.mkdir(parents=True)
    path.write_text("{")
    assert_one_line(tool(COLLRUN, "--mpi", FAKE, CONFIG), "collrun", 2, str(path), "not valid JSON")


def test_registry_writes_leave_no_temporaries(dirs):
    _register_fake(dirs)
    config = dirs / "config"
    stale = config / f".installations.json{safeio.TMP_TAG}{2 ** 22 + 12345}"  # a writer that died
    stale.write_text("{half")
    registry.remove(FAKE)
    assert sorted(p.name for p in config.iterdir()) == ["installations.json"]
    assert json.loads((config / "installations.json").read_text())["installations"] == []


def test_a_damaged_slurm_record_is_one_line_naming_it(tmp_path, capsys):
    from collrepro.slurm.cli import main as collslurm_main

    sub = tmp_path / "run" / "openmpi"
    sub.mkdir(parents=True)
    record = sub / state.SUBMISSION
    record.write_text('{"mapping": [{"task": 0, "launch": 0')  # truncated
    assert_one_line(tool(COLLSLURM, "status", sub), "collslurm", 2, str(record), "not valid JSON", "restore it")
    assert_one_line(InProcess(capsys, "collslurm", collslurm_main, ["collect", tmp_path / "run"]), "collslurm", 2,
                    str(record), "not valid JSON")
    record.write_text(json.dumps({"mapping": [{"task": "zero"}], "tasks": 1}))
    assert_one_line(InProcess(capsys, "collslurm", collslurm_main, ["status", sub]), "collslurm", 2,
                    str(record), "not a number")


def _record(mpi, results):
    mapping = [{"task": 0, "launch": 0, "slice": 0, "first": 0, "last": 0, "count": 1}]
    return {"mpi": mpi, "experiment": "e", "config": "c.yaml", "mapping": mapping, "tasks": 1, "launches": 1,
            "slices": 1, "points": 1, "np": 2, "task_id": "t", "submissions": [{"job_id": "7"}]}


def test_a_damaged_slurm_index_is_rebuilt_from_the_libraries_records(tmp_path):
    """DIR/slurm-submission.json only indexes DIR/<mpi>/: damaged, it is rebuilt (nothing is lost)
    and status reads the libraries' own records meanwhile."""
    for mpi in ("openmpi", "mpich"):
        (tmp_path / mpi).mkdir()
        state.write_json(tmp_path / mpi / state.SUBMISSION, _record(mpi, tmp_path / mpi))
    (tmp_path / state.SUBMISSION).write_text('{"version": 1, "arr')
    assert state.submission_dirs(tmp_path) == [tmp_path / "mpich", tmp_path / "openmpi"]
    state.update_index(tmp_path / "openmpi", _record("openmpi", tmp_path / "openmpi"))
    index = json.loads((tmp_path / state.SUBMISSION).read_text())
    assert sorted(index["arrays"]) == ["mpich", "openmpi"]
    assert not [p for p in tmp_path.iterdir() if safeio.TMP_TAG in p.name]


def test_slurm_exit_meanings_follow_the_table():
    assert state.exit_text(4) == "exit 4: MPI failure / incomplete"
    assert state.exit_text(5).startswith("exit 5: environment / I/O failure")
    assert state.exit_text(70).startswith("exit 70: internal error")


# ------------------------------------------------------------------ collbench's codes through collrun

@pytest.mark.skipif(shutil.which("mpirun.openmpi") is None, reason="Open MPI's launcher is not installed")
def test_collrun_passes_collbench_codes_through(tmp_path):
    """A stand-in collbench that exits 5 (an I/O failure): collrun exits with it, unchanged."""
    code = 5
    exe = tmp_path / "build" / "bench" / "collbench"
    exe.parent.mkdir(parents=True)
    exe.write_text(f"#!/bin/sh\necho 'collbench: stand-in failure' >&2\nexit {code}\n")
    exe.chmod(0o755)
    r = tool(COLLRUN, "--mpi", "openmpi", "--np", "1", "--launches", "1", "--build-dir", tmp_path / "build",
             "--out", tmp_path / "out", CONFIG)
    assert r.returncode == code, r.stderr
    assert "Traceback" not in r.stderr and f"launch 0 failed with exit code {code}" in r.stderr, r.stderr


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
