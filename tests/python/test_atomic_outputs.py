"""Every analyze output appears whole or not at all.

`analyze report` is stopped by SIGTERM at several moments of its run (while it imports and loads,
once its staging directory exists, while it draws the figures, once report.md is written, and not
at all): the output directory afterwards is the previous report, intact, or the new one, complete,
never a mix; the exit is 143 with one line, and no temporary survives. A dashboard killed with
SIGKILL leaves its staging directory, which the next successful run removes. Damaged input and an
unwritable output give one line and an exit code, never a traceback.
"""

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import synthetic as S
from collrepro import safeio
from collrepro.analysis import cli
from collrepro.analysis.loading import schema

REPO = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(REPO / "python"), MPLBACKEND="Agg")
TEXT = (".md", ".csv")


def snapshot(directory):
    """{relative path: bytes (text files) or None (figures: their bytes carry a timestamp)}."""
    return {p.relative_to(directory).as_posix(): (p.read_bytes() if p.suffix in TEXT else None)
            for p in sorted(directory.rglob("*")) if p.is_file()}


def temporaries(directory):
    return [p.name for p in directory.parent.iterdir()
            if p.name.startswith(f".{directory.name}.") and p.name != directory.name]


def catches_sigterm(pid):
    """True once the process has installed its SIGTERM handler (safeio.run_cli)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    caught = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), 16)
    return bool(caught & (1 << (signal.SIGTERM - 1)))


def wait_for(proc, condition, limit=120):
    """Poll until `condition()` or the process ended; True when the condition held."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        if condition():
            return True
        time.sleep(0.002)
    raise AssertionError("timed out waiting for the analysis to reach a point")


@pytest.fixture(scope="module")
def two_reports(tmp_path_factory):
    """Two experiments and their complete reports (built in this process)."""
    root = tmp_path_factory.mktemp("atomic")
    a = S.write_result_set(root / "a", S.seed000_points([32768]), launches=3, reps=6, experiment="alpha")
    b = S.write_result_set(root / "b", S.seed001_points([32768]), launches=3, reps=6, experiment="beta")
    refs = {}
    for name, d in (("a", a), ("b", b)):
        assert cli.main(["report", str(d), "-o", str(root / f"ref-{name}")]) == 0
        refs[name] = snapshot(root / f"ref-{name}")
    assert refs["a"]["report.md"] != refs["b"]["report.md"]
    return root, {"a": a, "b": b}, refs


def stage(out):
    return [p for p in out.parent.iterdir() if p.name.startswith(f".{out.name}{safeio.TMP_TAG}")]


MOMENTS = {
    "loading": lambda out: True,
    "staging": lambda out: bool(stage(out)),
    "figures": lambda out: any(any((s / "figures").glob("*.p*")) for s in stage(out)),
    "report.md": lambda out: any((s / "report.md").exists() for s in stage(out)),
    "never": None,
}


def test_report_stopped_by_sigterm_is_old_or_new_never_mixed(two_reports):
    root, dirs, refs = two_reports
    out = root / "out"
    shutil.copytree(root / "ref-a", out)
    current, terminated = "a", 0
    for moment, reached in MOMENTS.items():
        new = "b" if current == "a" else "a"
        proc = subprocess.Popen([sys.executable, "-m", "collrepro", "analyze", "report", str(dirs[new]),
                                 "-o", str(out)], env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        if reached is not None and wait_for(proc, lambda: catches_sigterm(proc.pid)) \
                and wait_for(proc, lambda: reached(out)):
            proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=300)
        now = snapshot(out)
        assert now in (refs[current], refs[new]), f"{moment}: a mixed report: {sorted(now)}"
        assert not temporaries(out), f"{moment}: {temporaries(out)}"
        assert "Traceback" not in stderr
        if proc.returncode == 143:        # (after the swap the new report is complete: kept)
            terminated += 1
            # the front door says it while it imports the verb (pandas), analyze once it runs
            assert stderr.strip().splitlines() in (
                [f"{prog} terminated (SIGTERM); finished work is kept, a re-run resumes"]
                for prog in ("analyze: error:", "collrepro-py:")), stderr
        else:
            assert proc.returncode == 0 and now == refs[new], (moment, proc.returncode, stderr)
            assert stdout.strip() == str(out / "report.md")
        current = new if now == refs[new] else current
    assert terminated >= 3                 # the kills landed during the run, not after it


def test_killed_dashboard_leaves_staging_that_the_next_run_removes(tmp_path):
    pytest.importorskip("plotly")
    S.write_installations(tmp_path / "results", [("openmpi", "4.1.4", {}, None)], S.guideline_points((1024,)),
                          experiment="one", launches=2, reps=3)
    site = tmp_path / "site"
    # A staging directory and an old site of builds before safeio, both of processes gone.
    gone = subprocess.Popen(["true"])
    gone.wait()
    for legacy in (f".site.tmp-{gone.pid}", f".site.old-{gone.pid}"):
        (tmp_path / legacy).mkdir()
        (tmp_path / legacy / "plotly.min.js").write_text("x")
    proc = subprocess.Popen([sys.executable, "-m", "collrepro", "analyze", "dashboard", str(tmp_path / "results"),
                             "-o", str(site)], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    staged = wait_for(proc, lambda: any((s / "plotly.min.js").exists() for s in stage(site)))
    proc.kill()
    proc.wait()
    if staged:
        assert stage(site) and not site.exists()          # what SIGKILL leaves
    assert cli.main(["dashboard", str(tmp_path / "results"), "-o", str(site)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results", "site"]
    assert (site / "index.html").is_file() and (site / safeio.OWNER_MARKER).is_file()


# ---------------------------------------------------------------- one line, never a traceback

@pytest.fixture
def small(tmp_path):
    return S.write_result_set(tmp_path / "set", S.seed000_points([32768, 131072]), launches=2, reps=4)


def one_line(capsys):
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_damaged_inputs_give_one_line_and_exit_2(small, tmp_path, capsys, monkeypatch):
    out = str(tmp_path / "out")
    meta = small / "meta-L1.json"
    good = meta.read_text()
    meta.write_text("[" * 200000 + "]" * 200000)              # nesting deep enough for the stack
    assert cli.main(["report", str(small), "-o", out]) == 2
    assert "meta-L1.json: JSON nested too deeply" in one_line(capsys)
    meta.write_bytes(b"\xff\xfe{}")
    assert cli.main(["aggregate", str(small)]) == 2
    assert "meta-L1.json: not UTF-8 text" in one_line(capsys)
    meta.write_text(good)
    monkeypatch.setattr(schema, "MAX_META_BYTES", 100)
    assert cli.main(["report", str(small), "-o", out]) == 2
    assert "is over the 100 bytes limit for a result metadata file" in one_line(capsys)
    monkeypatch.setattr(schema, "MAX_CSV_BYTES", 100)
    monkeypatch.setattr(schema, "MAX_META_BYTES", 1 << 20)
    assert cli.main(["aggregate", str(small)]) == 2
    assert "raw-L0.csv: " in (line := one_line(capsys)) and "limit for a raw CSV" in line
    monkeypatch.undo()
    (small / "raw-L0.csv").write_bytes(os.urandom(3000))
    assert cli.main(["report", str(small), "-o", out]) == 2
    assert "raw-L0.csv" in one_line(capsys)
    assert not (tmp_path / "out").exists()


def test_unwritable_outputs_give_one_line(small, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    # -o under a file: the system refuses (exit 5), with its reason.
    assert cli.main(["report", str(small), "-o", str(blocker / "out")]) == 5
    assert one_line(capsys).startswith(f"analyze: error: cannot create {blocker}: ")
    assert cli.main(["aggregate", str(small), "-o", str(blocker / "agg.csv")]) == 5
    assert one_line(capsys).startswith(f"analyze: error: cannot write {blocker / 'agg.csv'}: ")
    # -o that is a file, or a directory analyze did not write: refused before anything is read.
    assert cli.main(["report", str(small), "-o", str(blocker)]) == 2
    assert "exists and is not a directory" in one_line(capsys)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    for command in (["report", str(small)], ["figure", "seed000", str(small)], ["overlay", str(small)]):
        assert cli.main(command + ["-o", str(mine)]) == 2
        assert "was not written by analyze" in one_line(capsys)
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    assert blocker.read_text() == "not a directory"
    if os.geteuid() != 0:                        # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o555)
        assert cli.main(["report", str(small), "-o", str(locked / "out")]) == 5
        assert "Permission denied" in one_line(capsys)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_figure_and_overlay_share_a_directory_each_replacing_only_its_files(small, tmp_path, capsys):
    out = tmp_path / "figures"
    assert cli.main(["figure", "seed000", str(small), "-o", str(out)]) == 0
    assert cli.main(["overlay", str(small), "-o", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == [".collrepro-output", "efficiency.csv", "fit.csv", "overlay.pdf", "overlay.png",
                     "seed000-fig4-improvement.pdf", "seed000-fig4-improvement.png", "seed000-fig4.pdf",
                     "seed000-fig4.png"]
    fit = (out / "fit.csv").read_bytes()
    assert cli.main(["figure", "seed000", str(small), "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == names and (out / "fit.csv").read_bytes() == fit
    assert not temporaries(out)


def test_aggregate_files_are_whole_and_usage_errors_one_line(small, tmp_path, capsys):
    agg = tmp_path / "agg.csv"
    assert cli.main(["aggregate", str(small), "-o", str(agg), "--speedups", str(tmp_path / "sp.csv")]) == 0
    capsys.readouterr()
    assert agg.read_text().startswith("experiment,") and (tmp_path / "sp.csv").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agg.csv", "set", "sp.csv"]
    assert cli.main(["report", str(small)]) == 2
    assert one_line(capsys) == ("analyze: error: the following arguments are required: -o/--outdir; "
                                "see `analyze report --help`")


def test_committed_generated_directories_carry_the_marker():
    """Regenerating a committed report (e.g. `analyze report DIR -o DIR/report`) replaces it; a
    directory without the marker would be refused."""
    generated = [p.parent for p in (REPO / "results").rglob("report.md") if p.parent.name == "report"
                 and (p.parent / "aggregate.csv").exists()]
    generated += [p.parent for p in (REPO / "results").rglob("trend.md")]
    generated += [p.parent for p in (REPO / "results").rglob("guidelines.md")]
    generated += [p.parent for p in (REPO / "results").rglob("compare.csv")]
    generated += [p for p in (REPO / "results").glob("**/figures") if p.is_dir() and p.parent.name != "report"]
    assert len(generated) > 20
    unmarked = [str(d.relative_to(REPO)) for d in generated if not (d / safeio.OWNER_MARKER).is_file()]
    assert not unmarked


def test_migrate_replaces_each_file_whole_and_removes_stale_temporaries(tmp_path, capsys):
    d = S.write_result_set(tmp_path / "v1", S.seed000_points([32768])[:3], launches=1, reps=3, version=1)
    gone = subprocess.Popen(["true"])
    gone.wait()
    stale = d / f".raw-L0.csv{safeio.TMP_TAG}{gone.pid}"
    stale.write_text("half a file")
    assert cli.main(["migrate", str(d)]) == 0
    assert sorted(p.name for p in d.iterdir()) == ["meta-L0.json", "raw-L0.csv", "summary-L0.csv"]
    assert "contract_version" in (d / "meta-L0.json").read_text()
    capsys.readouterr()
