"""The main job sized to the machine (job_size.py, `collrepro run --np auto`): one process per
core, never more while some ratio fits; the ratios that do not fit are left out and named."""

import pytest

from collrepro.launch import job_size

QUICK = ["1/1", "5/3"]  # configs/quick.yaml's groups.ratios


def test_two_cores_run_the_quick_job_one_process_per_core():
    f = job_size.fit(QUICK, 2)
    assert (f.np, f.ratios, f.left_out, f.oversubscribed) == (2, ["1/1"], {"5/3": 8}, False)
    assert f.line() == ("2 processes, one per core of 2; groups.ratios [1/1] "
                        "(left out: 5/3 needs a multiple of 8; set COLLREPRO_NP or --np to choose)")


@pytest.mark.parametrize("cores, np_, kept", [(8, 8, QUICK), (16, 16, QUICK), (12, 12, ["1/1"]), (3, 2, ["1/1"]),
                                              (7, 6, ["1/1"]), (4, 4, ["1/1"])])
def test_the_largest_count_up_to_the_cores_that_fits_a_ratio(cores, np_, kept):
    f = job_size.fit(QUICK, cores)
    assert (f.np, f.ratios, f.oversubscribed) == (np_, kept, False)
    assert set(f.left_out) == set(QUICK) - set(kept)


def test_never_oversubscribed_while_a_count_fits():
    for cores in range(2, 65):
        f = job_size.fit(QUICK + ["3/1", "25/7"], cores)
        assert f.np <= cores and f.ratios, cores
        assert all(f.np % job_size.ratio_parts(r) == 0 for r in f.ratios), cores
        assert all(f.np % n for n in f.left_out.values()), cores


def test_fewer_processes_than_cores_say_why():
    assert job_size.fit(QUICK, 7).line().startswith("6 processes, one per core on 6 of 7 cores (no ratio fits more); "
                                                    "groups.ratios [1/1]")


def test_one_core_oversubscribes_and_says_so():
    f = job_size.fit(QUICK, 1)
    assert (f.np, f.ratios, f.oversubscribed) == (2, ["1/1"], True)
    assert "oversubscribed" in f.line()


def test_an_experiment_without_ratios_takes_every_core():
    f = job_size.fit([], 6)
    assert (f.np, f.ratios, f.left_out) == (6, [], {})
    assert f.line() == "6 processes, one per core of 6"


def test_a_malformed_ratio_is_left_to_collbench():
    f = job_size.fit(["1/1", "x/2"], 4)
    assert (f.np, f.ratios, f.left_out) == (4, ["1/1", "x/2"], {})


# ------------------------------------------------------------------ collrun --np auto

def _fake_collbench(build_dir, ratios):
    """A collbench that answers `--get groups.ratios` as the real one does (JSON, or empty)."""
    exe = build_dir / "bench" / "collbench"
    exe.parent.mkdir(parents=True)
    exe.write_text(f"#!/bin/sh\n[ \"$3\" = groups.ratios ] && echo '{ratios}'\nexit 0\n")
    exe.chmod(0o755)


@pytest.mark.parametrize("n_cores, ratios, np_, sets", [
    (2, '["1/1","5/3"]', 2, ["--set", "groups.ratios=[1/1]"]),
    (8, '["1/1","5/3"]', 8, []),
    (3, "", 3, []),  # no ratios: every core
])
def test_collrun_np_auto_sizes_the_launch_and_says_so(tmp_path, monkeypatch, capsys, n_cores, ratios, np_, sets):
    from collrepro.launch import runs as launch_runs
    _fake_collbench(tmp_path, ratios)
    monkeypatch.setattr(job_size, "cores", lambda: n_cores)
    opts = {"config": "quick.yaml", "np": "auto", "mpi": "openmpi", "build_dir": str(tmp_path), "out": "",
            "passthrough": ["--set", "timing.reps=3"]}
    runs, got = launch_runs.auto_sized(dict(opts))
    assert got == np_ and len(runs) == 1
    (line,) = [ln for ln in capsys.readouterr().err.splitlines() if "--np auto" in ln]
    assert line.startswith(f"collrun: --np auto: {np_} processes, one per core of {n_cores}"), line
    passed = dict(opts)
    launch_runs.auto_sized(passed)
    assert passed["passthrough"] == ["--set", "timing.reps=3"] + sets


def test_collrun_np_auto_goes_with_mpi_only(tmp_path):
    from collrepro.launch import runs as launch_runs
    (tmp_path / "c.yaml").write_text("experiment: c\n")
    with pytest.raises(launch_runs.UserError, match="--np auto goes with --mpi"):
        launch_runs.collrun_setup({"config": str(tmp_path / "c.yaml"), "np": "auto", "installations": "a,b",
                               "mpi": "openmpi", "build_dir": "", "out": "", "passthrough": []})


def test_the_report_names_what_the_command_line_changed_over_the_description():
    # `--np auto` keeps some ratios through `--set`: the report's experiment line must not read
    # as if the YAML's description (e.g. "p=q and p/q=5/3") had run unchanged.
    from collrepro.analysis import report
    cmd = "collbench configs/quick.yaml --launch {} --out o --set groups.ratios=[1/1]"
    metas = [{"command": cmd.format(i)} for i in range(3)]
    assert report.command_overrides(metas) == ["groups.ratios=[1/1]"]
    assert report.command_overrides([{"command": "collbench q.yaml --launch 0"}]) == []
    mixed = metas + [{"command": "collbench configs/quick.yaml --launch 3"}]
    assert report.command_overrides(mixed) == []
