"""colltune refuses thin data: a sweep with fewer launches than the test on launches needs gives
no rules file (exit 2, one line naming what was found, what is needed and the fix); a sweep where
only some points are thin writes the rules, says so in one line and exits 4."""

import json
import os
import subprocess
from pathlib import Path

import synthetic as S
from collrepro.analysis import tune
from collrepro.analysis.verdicts import stats

REPO = Path(__file__).resolve().parents[2]
NEED = stats.min_launches(0.05)


def sweep(directory, sizes, launches):
    """An inter-group Allgather sweep: native, a proposed algorithm twice as fast, a baseline."""
    points = []
    for m in sizes:
        shape = S.inter_shape("allgather", 4, 4, m)
        points += [S.point(a, cost_beta_bytes=f * m, **shape)
                   for a, f in (("native", 4.0), ("fullduplex-allgather", 2.0), ("root-gathering", 5.0))]
    return S.write_result_set(directory, points, launches=launches, reps=6,
                              time_fn=S.slowdown({}))


def test_one_launch_sweep_is_refused_with_one_line(tmp_path):
    d = sweep(tmp_path / "one", [1024, 65536], launches=1)
    rules = tmp_path / "rules.json"
    r = subprocess.run([str(REPO / "interpose" / "colltune"), str(d), "-o", str(rules)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith("colltune: ") and "1 launch per algorithm" in lines[0]
    assert f"needs {NEED}" in lines[0] and f"--launches {NEED}" in lines[0]
    assert not rules.exists() and r.stdout == ""


def test_some_thin_points_give_rules_and_exit_4(tmp_path, capsys):
    full = sweep(tmp_path / "full", [1024], launches=NEED)
    thin = sweep(tmp_path / "thin", [65536], launches=2)
    rules = tmp_path / "rules.json"
    assert tune.main([str(full), str(thin), "-o", str(rules)]) == 4
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"1 of 2 points have fewer than {NEED} launches (the fewest: 2)" in err[0]
    sizes = json.loads(rules.read_text())["collective=allgather"]["call=blocking"]["groups=4:4"]["duplex=full"]
    assert sizes["msg_size<=1024"] == {"algorithm=fullduplex-allgather": {}}   # measured: faster
    assert sizes["msg_size<=65536"] == {"algorithm=native": {}}                # thin: native
    assert sizes["any"] == {"algorithm=native": {}}


def test_enough_launches_exit_0_and_usage_errors_are_one_line(tmp_path, capsys):
    d = sweep(tmp_path / "ok", [1024], launches=NEED)
    assert tune.main([str(d), "-o", str(tmp_path / "rules.json")]) == 0
    assert "1 size ranges served by an algorithm" in capsys.readouterr().out
    assert tune.main([str(d), "-o", str(tmp_path / "r.json"), "--alpha", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("colltune: --alpha must be between 0 and 1")
    # An output that cannot be written (its parent is a file): exit 5, one line, nothing left.
    (tmp_path / "file").write_text("x")
    assert tune.main([str(d), "-o", str(tmp_path / "file" / "rules.json")]) == 5
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"colltune: cannot write {tmp_path / 'file' / 'rules.json'}")
    assert sorted(os.listdir(tmp_path)) == ["file", "ok", "rules.json"]
