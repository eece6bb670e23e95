"""The differential fuzzer's pure parts (python/collrepro/fuzz/): drawing cases, their line
form, the minimiser's steps, the reproducer's text and the run directory's resume. No MPI run;
the reproducer is compiled with Debian's mpicc where it is installed."""

import gzip
import json
import os
import shutil
import subprocess

import pytest

from collrepro.fuzz import cases, minimise, reproducer, run
from collrepro.fuzz.store import Store
from collrepro.safeio import UserError


def test_draws_are_seeded_valid_and_round_trip():
    drawn = [cases.draw(7, i) for i in range(400)]
    assert drawn == [cases.draw(7, i) for i in range(400)]
    assert drawn != [cases.draw(8, i) for i in range(400)]
    for case in drawn:
        cases.check(case)
        assert cases.from_line(cases.to_line(case), case["np"]) == case
    # Every axis the issue names is reached in 400 cases.
    assert {c["coll"] for c in drawn} == set(cases.COLLECTIVES)
    assert {c["form"] for c in drawn} == set(cases.FORMS)
    assert {c["make"] for c in drawn} == set(cases.MAKES)
    assert {(c["stype"], c["rtype"]) for c in drawn} == set(cases.TYPE_PAIRS)
    assert any(c["p"] == 1 for c in drawn) and any(c["p"] == c["np"] - 1 for c in drawn)
    assert any(cases.half_duplex(c) for c in drawn)
    assert any(c["coll"] == "allgatherv" and 0 in c["counts"][0] + c["counts"][1] and not cases.half_duplex(c)
               for c in drawn)
    assert any(c["form"] == "persistent" and c["calls"] > 1 for c in drawn)
    assert any(c["skew"][0] >= 0 for c in drawn)


@pytest.mark.parametrize("line, np, field", [
    ("coll=allgather form=blocking calls=1 make=split layout=block p=3 counts=1,1,1/1 disp=contig stype=byte "
     "rtype=byte skew=-1:0 seed=1", 3, "p 3"),
    ("coll=allgather form=blocking calls=1 make=split layout=block p=1 counts=1/1,2 disp=contig stype=byte "
     "rtype=byte skew=-1:0 seed=1", 3, "one count per side"),
    ("coll=allgather form=blocking calls=1 make=split layout=block p=1 counts=1/1 disp=contig stype=int "
     "rtype=vector skew=-1:0 seed=1", 2, "whole rtype elements"),
    ("coll=allgather form=blocking calls=9 make=split layout=block p=1 counts=1/1 disp=contig stype=byte "
     "rtype=byte skew=-1:0 seed=1", 2, "calls 9"),
    ("coll=allgather form=sometimes", 2, "missing"),
    ("colour=blue", 2, "unknown word"),
])
def test_bad_lines_name_the_field(line, np, field):
    with pytest.raises(ValueError, match=field):
        cases.from_line(line, np)


def test_smaller_steps_are_valid_and_simpler():
    for i in range(200):
        case = cases.draw(3, i)
        for s in cases.smaller(case):
            cases.check(s)
            assert s != case
            assert (s["np"], s["calls"], sum(map(sum, s["counts"]))) <= (
                case["np"], case["calls"], sum(map(sum, case["counts"])) * cases.TYPE_BYTES[case["stype"]])


def test_minimise_keeps_the_failure_and_shrinks():
    # A made-up fault: fails whenever the case is nonblocking with 3 or more calls at 4+ processes.
    case = {**cases.draw(1, 0, max_np=6), "np": 6, "p": 3, "form": "nonblocking", "calls": 6,
            "counts": [[5, 5, 5], [2, 2, 2]], "coll": "allgather", "stype": "int", "rtype": "int", "skew": (2, 2000)}
    cases.check(case)
    def fails(c):
        return c["form"] == "nonblocking" and c["calls"] >= 3 and c["np"] >= 4
    small, launches = minimise.minimise(case, fails, max_launches=200)
    assert fails(small)
    assert small["calls"] == 3 and small["np"] == 4 and small["skew"] == (-1, 0)
    assert small["make"] == "split" and small["stype"] == "byte"
    assert 0 < launches <= 200
    # The budget holds.
    _, launches = minimise.minimise(case, fails, max_launches=2)
    assert launches == 2


def test_reproducer_is_standalone_c():
    case = cases.draw(5, 2)
    finding = {"id": "x-1", "outcome": "mismatch", "installation": "mpich-4.0.2", "version": "4.0.2",
               "target": "root-gathering", "detail": "intercase: MISMATCH */ 3 wrong bytes"}
    with open(run.SOURCE, encoding="utf-8") as f:
        text = reproducer.reproducer(f.read(), case, finding)
    assert f'#define FUZZ_CASE "{cases.to_line(case)}"' in text
    assert "COLLREPRO_PMPI_FORCE=root-gathering" in text
    head = text.split("#define FUZZ_CASE")[0]
    assert head.count("*/") == 1  # the detail's own "*/" cannot end the comment early
    mpicc = shutil.which("mpicc.openmpi") or shutil.which("mpicc.mpich")
    if mpicc:
        src = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"repro-{os.getpid()}.c")
        with open(src, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            p = subprocess.run([mpicc, "-fsyntax-only", "-Wall", src], capture_output=True, text=True)
        finally:
            os.remove(src)
        assert p.returncode == 0, p.stderr


def test_store_resumes_and_drops_a_torn_line(tmp_path):
    settings = {"seed": 4, "max_np": 5, "host": "h", "command": "c"}
    store = Store(str(tmp_path), settings)
    record = {"type": "case", "index": 0, "case": "x", "np": 2, "coll": "allgather", "form": "blocking",
              "installation": "i", "version": "1", "target": "native", "outcome": "ok", "seconds": 0.1,
              "batch": "b", "detail": "ok"}
    store.add(record)
    store.add({**record, "target": "defaults"})
    store.add({"type": "batch", "batch": "b", "installation": "i", "target": "defaults", "np": 2, "cases": 1,
               "launches": 1, "seconds": 0.5, "served": {"allgather": {"root-gathering": 3}}})
    with open(tmp_path / "runs.jsonl", "a", encoding="utf-8") as f:
        f.write('{"index": 1, "case": ')  # killed mid-write
    again = Store(str(tmp_path), settings)
    assert again.done() == {(0, "i", "native"), (0, "i", "defaults")}
    assert all(json.loads(ln) for ln in (tmp_path / "runs.jsonl").read_text().splitlines())
    with pytest.raises(UserError, match="seed 4, not 5"):
        Store(str(tmp_path), {**settings, "seed": 5})
    again.summary(settings, stopped="--minutes 1 reached")
    summary = (tmp_path / "summary.md").read_text()
    assert "| i | blocking | native | 1 | 1 | 1 | 0 |" in summary
    assert "| i | blocking | project | 1 | 1 | 1 | 0 |" in summary
    assert "Stopped early" in summary and "Findings (0)" in summary
    assert gzip.decompress((tmp_path / "failures.csv.gz").read_bytes()).decode().startswith(
        "index,installation,version,target")


def _preload(argv):
    """The LD_PRELOAD a launch command gives its ranks (-x K=V or -genv K V), or None."""
    for i, word in enumerate(argv):
        if word == "-x" and argv[i + 1].startswith("LD_PRELOAD="):
            return argv[i + 1].split("=", 1)[1]
        if word == "-genv" and argv[i + 1] == "LD_PRELOAD":
            return argv[i + 2]
    return None


def test_mpich_launches_preload_the_idle_yield_library_and_others_do_not():
    class Inst:
        def __init__(self, kind):
            self.kind, self.launcher, self.name = kind, f"/x/{kind}/mpiexec", kind

        def environment(self):
            return {}

    mpich = run.Library(Inst("mpich"), "/p/intercase", "/l/pmpi.so", "/l/yield.so")
    assert _preload(run.command(3, mpich, run.NATIVE, [])[0]) == "/l/yield.so"
    assert _preload(run.command(3, mpich, run.DEFAULTS, [])[0]) == "/l/pmpi.so:/l/yield.so"
    assert _preload(run.command(3, mpich, "halfduplex-fc", [])[0]) == "/l/pmpi.so:/l/yield.so"
    ompi = run.Library(Inst("openmpi"), "/p/intercase", "/l/pmpi.so")
    assert _preload(run.command(3, ompi, run.NATIVE, [])[0]) is None
    assert _preload(run.command(3, ompi, run.DEFAULTS, [])[0]) == "/l/pmpi.so"
