"""The front door (`python3 -m collrepro VERB`, ./collrepro-py) and the MPI launch environment
defined once (python/collrepro/mpienv.py):

- every verb answers --help with exit 0 and its usage; an unknown verb, no verb, or a module a
  verb needs that is missing is one line `collrepro-py: ...` and the table's code;
- every command of the checkout that runs a Python tool is the one-line wrapper of one verb;
- `collrepro-py env` and `env --cmake` give exactly the mpienv module's settings,
  and no other source file restates them. About 5 s.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from collrepro import frontdoor, mpienv

REPO = Path(__file__).resolve().parents[2]
FRONT = REPO / "collrepro-py"
WRAPPER = re.compile(r'exec "\$\(dirname "\$\{BASH_SOURCE\[0\]\}"\)/((?:\.\./)+)collrepro-py" ([\w-]+(?: [\w-]+)?) "\$@"')


def one_line(text):
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, text
    return lines[0]


@pytest.mark.parametrize("verb", list(frontdoor.VERBS))
def test_every_verb_has_help(verb, capsys):
    assert frontdoor.main([*verb.split(), "--help"]) == 0
    out, err = capsys.readouterr()
    assert out.strip() and "Traceback" not in err
    prog = frontdoor.VERBS[verb].prog
    if verb not in ("sim run",):  # simrun's --help is its module text
        assert "usage:" in out and (prog is None or prog.split(":")[0] in out), out[:300]


def test_the_front_door_lists_the_verbs_and_the_exit_codes():
    proc = subprocess.run([FRONT, "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    for verb in frontdoor.VERBS:
        assert re.search(rf"^  {re.escape(verb)} ", proc.stdout, re.M), verb
    for code in (0, 1, 2, 3, 4, 5, 70, 130, 143):
        assert re.search(rf"^ +{code}  \w", proc.stdout, re.M), code


def test_a_group_lists_its_verbs():
    proc = subprocess.run([FRONT, "sim", "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    listed = re.findall(r"^  (sim [\w-]+) ", proc.stdout, re.M)
    assert listed == [v for v in frontdoor.VERBS if v.startswith("sim ")] and len(listed) > 1


def test_no_module_has_an_entry_point_of_its_own():
    """Every command is a verb of the front door: no `if __name__ == "__main__"` and no __main__.py
    in the package but the front door's own."""
    package = REPO / "python" / "collrepro"
    own = sorted(str(p.relative_to(package)) for p in package.rglob("*.py")
                 if p.name == "__main__.py" or 'if __name__ == "__main__"' in p.read_text())
    assert own == ["__main__.py"], own


@pytest.mark.parametrize("argv, code, needle", [
    (["no-such-verb"], 2, "collrepro-py: unknown verb 'no-such-verb'"),
    ([], 2, "usage: collrepro-py VERB"),
    (["sim"], 2, "collrepro-py: sim needs a verb: use one of run, paper"),
    (["sim", "nope"], 2, "collrepro-py: unknown sim verb 'nope'"),
    (["run", "--np", "0", str(REPO / "configs" / "quick.yaml")], 2, "collrun: --np 0 is not a positive number"),
    (["run", "--bogus"], 2, "collrun: unrecognized arguments: --bogus"),
])
def test_bad_usage_is_2(argv, code, needle):
    proc = subprocess.run([FRONT, *argv], capture_output=True, text=True, timeout=60)
    assert proc.returncode == code, proc.stderr
    assert needle in proc.stderr and "Traceback" not in proc.stderr
    if argv:
        one_line(proc.stderr)


def test_a_missing_module_is_one_line_and_5(monkeypatch, capsys):
    verb = frontdoor.Verb("collrepro.analysis.tune", "main", None, "x", needs=("collrepro_no_such_module",))
    monkeypatch.setitem(frontdoor.VERBS, "tune", verb)
    assert frontdoor.main(["tune", "--help"]) == 5
    line = one_line(capsys.readouterr().err)
    assert line.startswith("collrepro-py: tune: ") and "collrepro_no_such_module" in line and "COLLREPRO_PYTHON" in line


# Scripts that are not tools: the overhead measurement takes only its launch environment from Python.
NOT_TOOLS = {"interpose/overhead"}


def _wrappers():
    """Every tracked executable that starts a Python tool: (path, text)."""
    names = subprocess.run(["git", "ls-files", "-s"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    for row in names.splitlines():
        mode, _, _, path = row.split(None, 3)
        if (mode != "100755" or path.startswith(("tests/", "results/")) or path in NOT_TOOLS
                or path in ("collrepro", "collrepro-py")):
            continue
        text = (REPO / path).read_text(errors="replace")
        if "python" in text or "collrepro-py" in text:
            yield path, text


def test_the_tool_commands_are_one_line_wrappers_of_a_verb():
    found = {}
    for path, text in _wrappers():
        code = [line for line in text.splitlines()[1:] if line.strip() and not line.startswith("#")]
        assert len(code) == 1, f"{path}: {len(code)} lines of code; a wrapper is one exec line"
        m = WRAPPER.fullmatch(code[0])
        assert m, f"{path}: not the wrapper shape: {code[0]}"
        assert (REPO / path).parent.joinpath(m.group(1), "collrepro-py").resolve() == FRONT, path
        assert m.group(2) in frontdoor.VERBS, f"{path}: unknown verb {m.group(2)}"
        found[path] = m.group(2)
    named = {v.wrapper: name for name, v in frontdoor.VERBS.items() if v.wrapper}
    assert found == named


def test_shell_exports_give_the_launch_environment_and_keep_the_callers_values():
    script = ('export OMPI_MCA_topo=keep; unset MPIR_CVAR_POLLS_BEFORE_YIELD; '
              f'eval "$(PYTHONPATH={REPO}/python {sys.executable} -m collrepro env)"; env')
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True, timeout=60).stdout
    env = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    for key, value in mpienv.ci_environment().items():
        assert env.get(key) == ("keep" if key == "OMPI_MCA_topo" else value), key
    assert mpienv.RUN_AS_ROOT.items() <= mpienv.ci_environment().items()


def test_the_cmake_file_holds_the_same_settings(tmp_path):
    out = tmp_path / "mpi_launch.cmake"
    subprocess.run([sys.executable, "-m", "collrepro", "env", "--cmake", out, "--mpi", "openmpi"],
                   cwd=REPO / "python", check=True, timeout=60)
    sets = dict(re.findall(r'^set\((\w+) "([^"]*)"\)$', out.read_text(), re.M))
    assert sets["COLLREPRO_MPI_TEST_ENV"].split(";") == [f"{k}={v}" for k, v in sorted(mpienv.ci_environment().items())]
    assert sets["COLLREPRO_MPI_LAUNCH_FLAGS"].split(";") == mpienv.TEST_LAUNCH_FLAGS["openmpi"]


# Spellings of the MPI launch settings; outside mpienv.py only prose (Markdown, comments) and
# committed results may carry them.
SETTINGS = re.compile(r"ALLOW_RUN_AS_ROOT|rmaps_base_oversubscribe|yield_when_idle|POLLS_BEFORE_YIELD|\^treematch"
                      r"|[\"']--oversubscribe[\"']")


def test_the_launch_settings_are_written_in_one_source_file():
    listed = subprocess.run(["git", "grep", "-n", "-I", "-E", SETTINGS.pattern, "--", ".", ":!*.md", ":!results"],
                            cwd=REPO, capture_output=True, text=True, timeout=60).stdout
    code = [row for row in listed.splitlines()
            if not row.startswith(("python/collrepro/mpienv.py:", "tests/python/test_front_door.py:"))
            and not row.split(":", 2)[2].lstrip().startswith(("#", "//", "*"))]
    assert not code, "launch settings restated outside python/collrepro/mpienv.py:\n" + "\n".join(code)
