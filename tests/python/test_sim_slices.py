"""simrun --jobs/--slices and bench/sim/paper's slices: how the points are cut, and the
Forwarder that runs the simulations side by side (real child processes)."""

import os
import signal
import sys
import threading
import time

import pytest

from collrepro.sim.running import paper as sim_paper
from collrepro.sim.running import run as sim
from collrepro.launch.launcher import Forwarder
from collrepro.safeio import UserError


def test_slices_cut_the_launch():
    assert sim.parse_slices(None, 1) == [None]
    assert sim.parse_slices(None, 3) == ["0/3", "1/3", "2/3"]
    assert sim.parse_slices("0-1/8", 2) == ["0/8", "1/8"]
    assert sim.parse_slices("5/8", 1) == ["5/8"]


@pytest.mark.parametrize("text", ["1-0/8", "0-8/8", "x/2", "0-1", "-1/4"])
def test_bad_slices_get_one_line(text):
    with pytest.raises(UserError, match="--slices"):
        sim.parse_slices(text, 2)


def test_collbench_slice_and_simrun_jobs_refused(tmp_path):
    with pytest.raises(UserError, match="give the slices to simrun"):
        sim.main(["--platform", "x.xml", "--np", "4", "--jobs", "2", str(tmp_path / "c.yaml"), "--", "--slice", "0/2"])


def _py(code):
    return [sys.executable, "-c", code]


def test_run_all_runs_side_by_side_and_reports_each_code():
    ended = []
    t0 = time.time()
    with Forwarder() as fwd:
        codes = fwd.run_all([_py("import time; time.sleep(1)"), _py("import time; time.sleep(1); raise SystemExit(3)")],
                            jobs=2, on_exit=lambda i, c: ended.append((i, c)))
    assert codes == [0, 3]
    assert sorted(ended) == [(0, 0), (1, 3)]
    assert time.time() - t0 < 1.9  # both slept at once


def test_run_all_starts_nothing_after_a_failure():
    with Forwarder() as fwd:
        codes = fwd.run_all([_py("raise SystemExit(2)"), _py("pass")], jobs=1)
    assert codes == [2, None]


def test_a_signal_reaches_every_running_child_and_stops_the_rest():
    wait = _py("import signal, sys, time\n"
               "signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))\n"
               "time.sleep(30)")
    with Forwarder() as fwd:
        signal.setitimer(signal.ITIMER_REAL, 0.7)
        previous = signal.signal(signal.SIGALRM, lambda *a: fwd._on_signal(signal.SIGTERM, None))
        try:
            t0 = time.time()
            codes = fwd.run_all([wait, wait, wait], jobs=2)
        finally:
            signal.signal(signal.SIGALRM, previous)
    assert codes == [143, 143, None]
    assert time.time() - t0 < 10
    assert fwd.interrupt_code() == 143


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie waiting for its parent counts as ended
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.parametrize("groups", [False, True])
def test_a_wrapper_that_does_not_wait_leaves_no_program_behind_with_groups(tmp_path, groups):
    """Like smpirun: the wrapper passes SIGTERM on to its program and exits at once; the program
    (a simulation inside one long collective) has not looked at the signal yet."""
    pidfile = tmp_path / "pid"
    program = ("import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
               f"open({str(pidfile)!r}, 'w').write(str(__import__('os').getpid())); time.sleep(60)")
    wrapper = ["bash", "-c", f"{sys.executable} -c \"{program}\" & pid=$!; "
               "trap 'kill -TERM $pid; exit 143' TERM; wait $pid"]
    def signal_once_started(fwd):  # not on a timer: under load the program may start late
        deadline = time.time() + 60
        while not pidfile.exists() and time.time() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)  # the wrapper's trap is set before it waits
        fwd._on_signal(signal.SIGTERM, None)

    with Forwarder(groups=groups, grace=0.5) as fwd:
        sender = threading.Thread(target=signal_once_started, args=(fwd,))
        sender.start()
        codes = fwd.run_all([wrapper])
        sender.join()
    program_pid = int(pidfile.read_text())
    try:
        assert codes == [143]
        assert _alive(program_pid) is not groups  # without groups the program runs on, orphaned
    finally:
        if _alive(program_pid):
            os.kill(program_pid, signal.SIGKILL)


def test_paper_passes_a_runs_slices_to_simrun():
    runs = sim_paper.load_runs()
    sliced = {name: run for name, run in runs.items() if "slices" in run}
    assert sliced, "sim-runs.yaml cuts at least one run into slices"
    name, run = next(iter(sliced.items()))
    argv, out = sim_paper.simrun_argv(name, run, "flat-crossbar", "build/smpi", jobs=2)
    assert argv[argv.index("--slices") + 1] == str(run["slices"])
    assert argv[argv.index("--jobs") + 1] == "2"
    assert "--slice" not in argv
    assert out.endswith(f"{name}-flat-crossbar")


def _meta(directory, name, slices=None):
    import json
    (directory / name).write_text(json.dumps({"slices": slices}))


def test_a_directory_keeps_the_cut_it_was_written_with(tmp_path):
    sim.check_layout(str(tmp_path), 0, ["0/2", "1/2"])  # empty: anything goes
    _meta(tmp_path, "meta-L0.json")
    sim.check_layout(str(tmp_path), 0, [None])  # resuming a whole launch
    with pytest.raises(UserError, match="holds launch 0 cut as whole.*in 2 slices"):
        sim.check_layout(str(tmp_path), 0, ["0/2", "1/2"])
    sim.check_layout(str(tmp_path), 1, ["0/2", "1/2"])  # another launch


def test_slices_resume_only_with_the_same_count(tmp_path):
    _meta(tmp_path, "meta-L0-S0.json", 8)
    sim.check_layout(str(tmp_path), 0, ["1/8"])
    with pytest.raises(UserError, match="cut as 8 slices.*in 2 slices"):
        sim.check_layout(str(tmp_path), 0, ["0/2", "1/2"])
    with pytest.raises(UserError, match="in one simulation"):
        sim.check_layout(str(tmp_path), 0, [None])


def test_an_interrupted_run_counts_too(tmp_path):
    _meta(tmp_path, "meta-L0-S1.json.tmp", 8)
    with pytest.raises(UserError, match="cut as 8 slices"):
        sim.check_layout(str(tmp_path), 0, [None])


def test_compacted_slices_keep_their_count(tmp_path):
    """`collrepro-py compact` gzips finished slices: their count must still be read, so that the
    last slice resumes beside them."""
    import gzip
    import json
    with gzip.open(tmp_path / "meta-L0-S0.json.gz", "wt") as f:
        json.dump({"slices": 16}, f)
    _meta(tmp_path, "meta-L0-S3.json.tmp", 16)
    sim.check_layout(str(tmp_path), 0, ["3/16"])
    with pytest.raises(UserError, match="cut as 16 slices.*in 2 slices"):
        sim.check_layout(str(tmp_path), 0, ["0/2", "1/2"])


# Huge pages shared between simulations on one machine (run.HugepageClaim): a fake /proc.
def _fake_proc(monkeypatch, free, rsvd=0, maps=1 << 22):
    files = {"/proc/mounts": "none /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0\n",
             "/proc/meminfo": f"HugePages_Total: 16\nHugePages_Free: {free}\nHugePages_Rsvd: {rsvd}\n",
             "/proc/sys/vm/max_map_count": f"{maps}\n"}
    monkeypatch.setattr(sim, "_read", lambda path, default="": files.get(path, default))


def test_hugepages_count_one_per_simulation_and_the_reserved_ones(monkeypatch, tmp_path):
    _fake_proc(monkeypatch, free=3, rsvd=1)
    with sim.HugepageClaim("auto", 2, folder=str(tmp_path)) as (folding, note):
        assert sim.BLOCK_HUGE_PAGES in folding and "2 claimed" in note
    with sim.HugepageClaim("auto", 3, folder=str(tmp_path)) as (folding, note):
        assert folding == [sim.BLOCK_4K_PAGES]
        assert "2 free huge page(s)" in note and "3 needed" in note
    with pytest.raises(UserError, match="--hugepages yes: 2 free"):
        with sim.HugepageClaim("yes", 3, folder=str(tmp_path)):
            pass


def test_a_live_claim_keeps_its_pages_from_another_run(monkeypatch, tmp_path):
    _fake_proc(monkeypatch, free=3)
    with sim.HugepageClaim("auto", 2, folder=str(tmp_path)) as (first, _):
        assert sim.BLOCK_HUGE_PAGES in first
        with sim.HugepageClaim("auto", 2, folder=str(tmp_path)) as (second, note):
            assert second == [sim.BLOCK_4K_PAGES]
            assert "2 claimed by other simulations" in note
        with sim.HugepageClaim("auto", 1, folder=str(tmp_path)) as (third, _):
            assert sim.BLOCK_HUGE_PAGES in third
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".claim")]  # released at exit


def test_a_dead_claimers_file_is_not_counted(monkeypatch, tmp_path):
    _fake_proc(monkeypatch, free=2)
    (tmp_path / "999999.claim").write_text("2")  # nobody holds its lock: its simrun is gone
    with sim.HugepageClaim("auto", 2, folder=str(tmp_path)) as (folding, _):
        assert sim.BLOCK_HUGE_PAGES in folding
    assert not (tmp_path / "999999.claim").exists()
