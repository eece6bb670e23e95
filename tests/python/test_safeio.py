"""safeio, the shared I/O rules: cases a review found outside the fault matrix's reach."""

import os
import subprocess

import pytest

from collrepro import safeio


def test_integers_too_long_to_convert_are_bad_input_not_a_bug():
    """Python refuses to convert integers of more than 4300 digits (ValueError): one line."""
    with pytest.raises(safeio.UserError, match="meta.json: not valid JSON"):
        safeio.parse_json('{"a": ' + "1" * 5000 + "}", "meta.json")
    with pytest.raises(safeio.UserError, match="config.yaml: not valid YAML"):
        safeio.parse_yaml("a: " + "1" * 5000, "config.yaml")


def test_a_bug_raised_while_handling_an_ordinary_error_stays_a_bug(capsys):
    def main(_argv):
        try:
            raise FileNotFoundError(2, "No such file or directory", "input.csv")
        except FileNotFoundError:
            return {}["missing"]

    assert safeio.run_cli("tool", main) == safeio.EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "internal error: KeyError" in err and "No such file" not in err


def test_a_full_disk_hidden_by_a_failing_cleanup_is_still_reported(capsys):
    def main(_argv):
        try:
            raise OSError(28, "No space left on device", "out/report.pdf")
        except OSError:
            raise AttributeError("'Stream' object has no attribute 'pos'")

    assert safeio.run_cli("tool", main) == safeio.EXIT_ENVIRONMENT
    assert "No space left on device" in capsys.readouterr().err


def test_a_swap_killed_between_its_two_renames_is_put_back(tmp_path):
    """Without an exchange the swap is two renames; a SIGKILL between them leaves the previous
    output under a dead writer's old-name. The next writer restores it before anything else, so
    a failure of that writer still leaves the previous output in place."""
    out = tmp_path / "report"
    with safeio.atomic_dir(out, "test") as staging:
        (staging / "report.md").write_text("previous\n")
    gone = subprocess.Popen(["true"])
    gone.wait()
    out.rename(tmp_path / f".report{safeio.OLD_TAG}{gone.pid}")
    with pytest.raises(RuntimeError):
        with safeio.atomic_dir(out, "test"):
            raise RuntimeError("the next writer fails too")
    assert sorted(os.listdir(tmp_path)) == ["report"]
    assert (out / "report.md").read_text() == "previous\n"


def test_the_size_cap_holds_for_a_pipe(tmp_path):
    """A FIFO reports size 0 to stat: the cap must hold while reading, not after."""
    fifo = tmp_path / "rules.fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"head -c 3000000 /dev/zero > {fifo}"], stderr=subprocess.DEVNULL)
    try:
        with pytest.raises(safeio.UserError, match="over the 1000 bytes limit"):
            safeio.read_bounded(fifo, 1000, "a test input", binary=True)
        # had it read everything, the writer would have written its 3 MB and exited 0; it was cut
        # off at the cap (a broken pipe)
        assert writer.wait(timeout=30) != 0
    finally:
        writer.kill()
        writer.wait()
