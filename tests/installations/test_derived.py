"""Derived installations and the randomised launch order, end to end (issue 25): Open MPI 4.1.4,
its A/A copy and a synthetic release (+100 % on the inter-group native Allgather at 1 MiB) through
`bench/collrun --installations --order-seed`, 2 rounds on 2 processes. Each launch's metadata
records its round's order and its installation (a derived one: base, delay, the preloaded
library). How much the delay slows which points is tested in tests/interpose (interpose.openmpi.delay,
3 interleaved launches a side); two launches here are too few to time (an A/A pair differed 1.56x
at 1 MiB on the loaded 2-core VM).

Run by tests/run-all with tests/installations/ (it needs build/openmpi: collbench and the PMPI
library of the openmpi preset)."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from collrepro import mpienv  # noqa: E402
from collrepro.launch import collrun  # noqa: E402
from collrepro.installations import collbench, registry  # noqa: E402

SLOW = "allgather:1MiB:+100%"


@pytest.fixture
def derived(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLREPRO_CONFIG_DIR", str(tmp_path / "config"))
    base = next(i for i in registry.debian_installations() if i.kind == "openmpi")
    exe = collbench.executable(base)
    lib = Path(exe).parents[1] / "interpose" / "libcollrepro_pmpi.so" if exe else None
    if not exe or not lib.is_file():
        pytest.fail(f"build/openmpi needs collbench and the PMPI library (cmake --build --preset openmpi): {exe}")
    registry.derive(f"{base.name}+slow100", base.name, delay=SLOW)
    registry.derive(f"{base.name}+aa", base.name)
    return [base.name, f"{base.name}+aa", f"{base.name}+slow100"]


def test_synthetic_release_and_aa_copy_in_a_seeded_order(derived, tmp_path):
    out = tmp_path / "results"
    cmd = [str(REPO / "bench" / "collrun"), "--installations", ",".join(derived), "--np", "2", "--launches", "2",
           "--order-seed", "11", "--out", str(out), str(REPO / "configs" / "quick.yaml"), "--", "--quiet",
           "--set", "algorithms=[native]", "--set", "sizes=[64KiB, 1MiB]", "--set", "blocks=[1:1]",
           "--set", "groups.ratios=[1/1]", "--set", "timing.reps=10", "--set", "validation=false"]
    env = dict(os.environ, **mpienv.ci_environment())
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout
    assert "seed 11" in r.stdout
    for name in derived:
        for launch_index in range(2):
            meta = json.loads((out / name / f"meta-L{launch_index}.json").read_text())
            order = meta["launch_order"]
            assert order["seed"] == 11 and order["round"] == launch_index and order["of"] == 3
            assert order["order"] == collrun.round_order(derived, 11, launch_index)
            assert order["order"][order["slot"]] == name
            record = meta["mpi_installation"]
            assert record["name"] == name
            if name.endswith("+slow100"):
                assert record["origin"] == "derived" and record["delay"] == SLOW
                assert record["preload"].endswith("libcollrepro_pmpi.so")
            elif name.endswith("+aa"):
                assert record["origin"] == "derived" and record["delay"] == "" and record["preload"] == ""
        with open(out / name / "summary-L1.csv", newline="") as f:
            assert {row["algorithm"] for row in csv.DictReader(f)} == {"native"}
