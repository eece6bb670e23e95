"""The preload slowdown library's Python side (collrepro.installations.slowlib): which collbench
points a rule slows, and the ordinary added installation that preloads it: registered as a user
would, launched through the same path as any other, its record naming what it preloads. The
library's own parser against this one: ctest slowlib.parse (tests/slowlib/check_parse.py)."""

import json
import os
import subprocess

import pytest

import synthetic as S
from collrepro.launch import runs as launch_runs
from collrepro.installations import collbench, registry, slowlib

RULE = "MPI_Allgather,inter,131072,+100ms"


def row(algorithm, nbytes, collective="allgather", kb=0):
    return S.point(algorithm, collective, p=1, q=1, ka=nbytes, kb=kb, msg_bytes=nbytes)


def test_the_rule_slows_the_native_intercommunicator_calls_of_its_sizes_only():
    assert slowlib.affected(RULE, row("native", 131072)) and slowlib.affected(RULE, row("native", 1 << 20))
    assert not slowlib.affected(RULE, row("native", 65536))
    assert slowlib.affected(RULE, row("native", 4096, kb=131072))       # the larger block, sent or received
    assert not slowlib.affected(RULE, row("root-gathering", 262144))    # MPI_Allgather on intracommunicators only
    assert not slowlib.affected(RULE, row("native", 262144, "allgatherv"))
    assert slowlib.affected("MPI_Allgatherv,inter,0,+5%", row("native", 1024, "allgatherv"))
    assert slowlib.affected("MPI_Allgatherv,inter,0,+5%;" + RULE, row("native", 131072))
    assert not slowlib.affected("none", row("native", 131072))
    assert not slowlib.affected(RULE, S.point("native", "intra-allgather", msg_bytes=1 << 20))  # an intracommunicator


@pytest.mark.parametrize("rule", ["MPI_Allgather,intra,0,+5%", "MPI_Allgather,any,0,+5%"])
def test_a_rule_for_intracommunicators_has_no_known_subset(rule):
    with pytest.raises(slowlib.SlowlibError, match="give COMM inter"):
        slowlib.affected(rule, row("native", 131072))


def test_rules_are_read_strictly():
    assert slowlib.parse(RULE) == [slowlib.Rule("MPI_Allgather", "inter", 131072, ms=100)]
    assert slowlib.parse("MPI_Allgatherv,any,0,+25%") == [slowlib.Rule("MPI_Allgatherv", "any", 0, percent=25)]
    with pytest.raises(slowlib.SlowlibError, match="'MPI_Allgather,inter,128KiB,\\+5%': MINBYTES"):
        slowlib.parse("MPI_Allgather,inter,128KiB,+5%")
    assert slowlib.calibration_rule(15) == "MPI_Allgather,inter,16384,+15%"


@pytest.fixture
def private(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLREPRO_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("COLLREPRO_CACHE", str(tmp_path / "cache"))
    return tmp_path


def test_an_added_installation_preloads_the_library(private, monkeypatch):
    debian = registry.debian_installations()
    monkeypatch.setattr(registry, "debian_installations", lambda: debian)  # probed once: ompi_info is slow
    base = registry.resolve("openmpi")
    inst = registry.add_entry(slowlib.installation(f"{base.name}+preload25", base, "MPI_Allgather,inter,0,+25%",
                                                   "/lib/slow.so"))
    data = json.loads((private / "config" / "installations.json").read_text())
    entry = data["installations"][0]  # what a user would have written by hand
    assert entry["name"] == f"{base.name}+preload25" and entry["origin"] == "added"
    assert entry["env"] == {"LD_PRELOAD": "/lib/slow.so", "COLLREPRO_SLOWLIB": "MPI_Allgather,inter,0,+25%"}
    assert (entry["mpicxx"], entry["launcher"], entry["prefix"]) == (base.mpicxx, base.launcher, base.prefix)
    again = registry.resolve(inst.name)
    assert again.origin == "added" and slowlib.rules_of(again) == "MPI_Allgather,inter,0,+25%"
    record = json.loads(launch_runs.installation_environment(again)["COLLREPRO_MPI_INSTALLATION"])
    assert record["preload"] == "/lib/slow.so" and record["env"]["COLLREPRO_SLOWLIB"] == "MPI_Allgather,inter,0,+25%"
    assert "env" not in json.loads(launch_runs.installation_environment(base)["COLLREPRO_MPI_INSTALLATION"])
    with pytest.raises(registry.RegistryError, match="the name is taken"):
        registry.add_entry(slowlib.installation(base.name, base, "none", "/lib/slow.so"))
    with pytest.raises(registry.RegistryError, match="a name is <kind>-<version>"):
        registry.add_entry(slowlib.installation("Slow", base, "none", "/lib/slow.so"))
    with pytest.raises(slowlib.SlowlibError, match="CALL is not"):
        slowlib.installation(f"{base.name}+x", base, "MPI_Bcast,inter,0,+5%", "/lib/slow.so")


def test_it_runs_the_collbench_of_the_library_whose_wrapper_it_has(private, monkeypatch):
    debian = registry.debian_installations()
    base = next(i for i in debian if i.kind == "openmpi")
    exe = private / "repo" / "build" / "openmpi" / "bench" / "collbench"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    added = slowlib.installation(f"{base.name}+preload5", base, "none", "/lib/slow.so")
    assert collbench.executable(added, str(private / "repo")) == str(exe)
    assert slowlib.library(base, str(private / "repo")) == str(private / "repo" / "build" / "openmpi" / slowlib.LIBRARY)
    other = slowlib.installation("openmpi-9.9", base, "none", "/lib/slow.so")
    other.mpicxx = "/opt/openmpi-9.9/bin/mpicxx"
    assert collbench.executable(other, str(private / "repo")) is None   # another wrapper: its own build


def test_collrun_refuses_a_missing_preloaded_library_in_one_line(private):
    if collbench.executable(registry.resolve("openmpi")) is None:
        pytest.skip("collbench of build/openmpi is not built")
    base = registry.resolve("openmpi")
    registry.add_entry(slowlib.installation(f"{base.name}+preload5", base, "none", "/nonexistent/slow.so"))
    r = subprocess.run([os.path.join(collbench.REPO, "bench", "collrun"), "--installations", f"{base.name}+preload5",
                        "--np", "2", os.path.join(collbench.REPO, "configs", "quick.yaml")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    assert r.returncode == 5 and r.stderr.count("\n") == 1, r.stderr
    assert "/nonexistent/slow.so, is missing" in r.stderr


def test_the_calibration_adds_its_missing_preload_installations(monkeypatch, capsys):
    from collrepro.versions import run as versions
    base = type("I", (), {"name": "openmpi-4.1.4", "env": {}, "kind": "openmpi"})()
    known = {"openmpi-4.1.4": base}
    added = []
    monkeypatch.setattr(registry, "resolve", lambda name: known[name] if name in known else (
        _ for _ in ()).throw(registry.RegistryError(f"no MPI installation named '{name}'")))
    monkeypatch.setattr(registry, "add_entry", lambda inst: added.append(inst))
    monkeypatch.setattr(slowlib, "installation", lambda name, b, rule: (name, b.name, rule))
    names = ["openmpi-4.1.4", "openmpi-4.1.4+preload5"]
    versions._declare(names, dry_run=True)
    assert added == [] and "would add openmpi-4.1.4+preload5" in capsys.readouterr().err
    versions._declare(names, dry_run=False)
    assert added == [("openmpi-4.1.4+preload5", "openmpi-4.1.4", "MPI_Allgather,inter,16384,+5%")]
