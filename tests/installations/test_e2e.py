"""End to end across three MPI installations: the two Debian libraries and a source build
(default mpich-3.4.1, the one CI builds; COLLREPRO_E2E_BUILT names another). One small
experiment (4 launches) runs against each through `bench/collrun --installations` into one results tree;
each run's metadata names the installation it was launched for and the library it loaded, and
`analyze trend` and `analyze guidelines` over the tree order the installations, give a verdict
for every point and a guideline row for every installation.

Run by tests/run-all after the source build (it needs collbench built for each installation:
the Debian ones use build/openmpi and build/mpich when present).
"""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

from collrepro.analysis.verdicts import stats  # noqa: E402
from collrepro.analysis.verdicts import verdicts as V  # noqa: E402
from collrepro.installations import build as builder  # noqa: E402
from collrepro.installations import collbench, registry  # noqa: E402
from collrepro.mpienv import ci_environment  # noqa: E402

BUILT = os.environ.get("COLLREPRO_E2E_BUILT", "mpich-3.4.1")


@pytest.fixture(scope="module")
def installations():
    debian = {i.kind: i for i in registry.debian_installations()}
    assert set(debian) == {"openmpi", "mpich"}, "both Debian MPI libraries must be installed"
    built = registry.resolve(BUILT)
    assert built.origin == "built", f"{BUILT} must be a source build (bench/collmpi build)"
    insts = [debian["openmpi"], debian["mpich"], built]
    for inst in insts:
        if collbench.executable(inst) is None or inst.origin != "debian":
            r = subprocess.run([str(REPO / "bench" / "collmpi"), "collbench", inst.name], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            assert r.returncode == 0, r.stdout
    return insts


def test_collbench_loads_the_installations_own_library(installations):
    _, debian_mpich, built = installations
    exe = collbench.executable(built)
    lib = collbench.linked_library(exe, builder.build_env(built))
    assert lib.startswith(os.path.realpath(built.prefix) + "/"), lib
    other = collbench.linked_library(collbench.executable(debian_mpich))
    assert other and not other.startswith(os.path.realpath(built.prefix) + "/")


def test_one_experiment_across_three_installations(installations, tmp_path):
    out = tmp_path / "results"
    names = [i.name for i in installations]
    cmd = [str(REPO / "bench" / "collrun"), "--installations", ",".join(names), "--np", "2", "--launches", "4",
           "--out", str(out), str(REPO / "configs" / "quick.yaml"), "--", "--quiet",
           "--set", "algorithms=[native, root-gathering]", "--set", "sizes=[1KiB, 16KiB]",
           "--set", "blocks=[1:1]", "--set", "groups.ratios=[1/1]", "--set", "timing.reps=5"]
    env = dict(os.environ, **ci_environment())
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stdout
    assert sorted(os.listdir(out)) == sorted(names)  # one tree, one directory per installation
    rows = {}
    for inst in installations:
        meta = json.loads((out / inst.name / "meta-L0.json").read_text())
        record = meta["mpi_installation"]
        assert record["name"] == inst.name and record["kind"] == inst.kind and record["prefix"] == inst.prefix
        assert meta["mpi_impl"] == inst.kind and meta["mpi_version"] == inst.version
        assert meta["complete"] is True
        library = record["library_file"]
        if inst.origin == "built":
            assert library.startswith(os.path.realpath(inst.prefix) + "/"), library
        else:
            assert not library.startswith(os.path.realpath(builder.installs_root())), library
        if inst.kind == "openmpi":
            assert f"Open MPI v{inst.version}" in meta["mpi_library"]
        else:
            assert f"{inst.version}" in meta["mpi_library"].split("\n")[0]
        with open(out / inst.name / "summary-L0.csv", newline="") as f:
            rows[inst.name] = [(row["algorithm"], row["msg_bytes"]) for row in csv.DictReader(f)]
    counts = {name: len(r) for name, r in rows.items()}
    assert len(set(map(tuple, rows.values()))) == 1 and min(counts.values()) == 4, counts

    # The analysis over the tree: installations in version order per library, a verdict for
    # every point (4 launches a side is the least docs/verdicts.md decides on: no row is refused
    # for too few launches, and every label is one of verdicts.LABELS), and a guideline row
    # (native against root-gathering) for every installation and point.
    analyze = str(REPO / "analysis" / "analyze")
    r = subprocess.run([analyze, "trend", str(out), "-o", str(tmp_path / "trend")], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    assert r.returncode in (0, 1), r.stdout  # 1: a significant slowdown somewhere, still a verdict
    order = [line.split(":")[1].split("(")[0].strip() for line in (tmp_path / "trend" / "trend.md").read_text().splitlines()
             if line.startswith("- mpich:") or line.startswith("- openmpi:")]
    mpichs = [n for n in order if n.startswith("mpich-")]
    assert mpichs == sorted(mpichs, key=lambda n: [int(x) for x in n.split("-")[1].split(".")]), order
    assert set(order) == set(names), order
    with open(tmp_path / "trend" / "regressions.csv", newline="") as f:
        compared = list(csv.DictReader(f))
    assert compared and {row["verdict"] for row in compared} <= set(V.LABELS), compared
    refused = [row for row in compared if row["reason"].startswith(stats.REFUSED)]
    assert not refused, refused
    r = subprocess.run([analyze, "guidelines", str(out), "-o", str(tmp_path / "guidelines")], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    assert r.returncode in (0, 1), r.stdout
    with open(tmp_path / "guidelines" / "guidelines.csv", newline="") as f:
        checked = list(csv.DictReader(f))
    assert {row["installation"] for row in checked} == set(names), checked
    assert {row["verdict"] for row in checked} <= set(V.LABELS), checked
    assert not [row for row in checked if row["reason"].startswith(stats.REFUSED)], checked
    assert len(checked) == 2 * len(names), checked  # two sizes, native against root-gathering


def test_slurm_batch_script_loads_the_installation(installations, tmp_path):
    """collslurm submit --dry-run with installation names: one array per installation, each
    script exporting that installation's environment and record."""
    _, debian_mpich, built = installations
    out = tmp_path / "runs"
    cmd = [str(REPO / "slurm" / "collslurm"), "submit", str(REPO / "configs" / "quick.yaml"), "--out", str(out),
           "--mpi", f"{debian_mpich.name},{built.name}", "--np", "2", "--dry-run",
           "--set", "algorithms=[native]", "--set", "sizes=[1KiB]", "--set", "blocks=[1:1]",
           "--set", "groups.ratios=[1/1]"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert r.returncode == 0, r.stdout
    script = (out / built.name / "collslurm.sbatch").read_text()
    assert f"MPI={built.kind} " in script and f"MPIEXEC={built.launcher}" in script
    assert f"export PATH={built.prefix}/bin${{PATH:+:$PATH}}" in script
    assert "export COLLREPRO_MPI_INSTALLATION=" in script and f'"name": "{built.name}"' in script
    assert f"COLLBENCH={collbench.executable(built)}" in script
    debian = (out / debian_mpich.name / "collslurm.sbatch").read_text()
    assert f'"name": "{debian_mpich.name}"' in debian and "export PATH=" not in debian


def test_add_probes_a_real_prefix(installations, tmp_path):
    """`add` on the source build's real prefix: the right kind registers with the probed version;
    the other kind is refused in one line."""
    built = installations[2]
    other = "mpich" if built.kind == "openmpi" else "openmpi"
    env = dict(os.environ, COLLREPRO_CONFIG_DIR=str(tmp_path / "config"))
    collmpi = str(REPO / "bench" / "collmpi")
    r = subprocess.run([collmpi, "add", f"{other}-{built.version}", "--prefix", built.prefix], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert r.returncode == 2 and f"holds {built.kind} {built.version}, not {other}" in r.stderr, r.stderr
    r = subprocess.run([collmpi, "add", f"{built.name}-again", "--prefix", built.prefix], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert r.returncode == 0, r.stderr
    shown = json.loads(subprocess.run([collmpi, "show", f"{built.name}-again"], env=env, stdout=subprocess.PIPE,
                                      text=True).stdout)
    assert (shown["kind"], shown["version"], shown["origin"]) == (built.kind, built.version, "added")
    assert shown["configure"]  # the library reports its configure options
