"""The installation registry (bench/collmpi): add, list, bad and wrong-kind prefixes, and
interrupted builds that must never be used. Fake prefixes are made in tmp dirs (tiny scripts
that answer like ompi_info / mpichversion); the Debian libraries are the real ones. Each test
has its own configuration and cache directories."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from collrepro.installations import debian as debian_source
from collrepro.installations import build as builder
from collrepro.installations import recipes, registry, sourcetree

REPO = Path(__file__).resolve().parents[2]
COLLMPI = REPO / "bench" / "collmpi"
REAL_CACHE = Path(debian_source.cache_root())  # before any test points COLLREPRO_CACHE elsewhere


@pytest.fixture
def dirs(tmp_path, monkeypatch):
    config, cache = tmp_path / "config", tmp_path / "cache"
    monkeypatch.setenv("COLLREPRO_CONFIG_DIR", str(config))
    monkeypatch.setenv("COLLREPRO_CACHE", str(cache))
    return tmp_path


def collmpi(*args, timeout=120):
    return subprocess.run([str(COLLMPI), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout)


def _script(path, text):
    path.write_text("#!/bin/sh\n" + text)
    path.chmod(0o755)


def fake_prefix(root, kind, version):
    """A prefix whose version tool answers like the real one; wrappers and launcher exist."""
    bindir = root / "bin"
    bindir.mkdir(parents=True)
    if kind == "openmpi":
        _script(bindir / "ompi_info", f'echo "ompi:version:full:{version}"\necho "config:cli: \'--prefix={root}\'"\n')
        launcher = "mpirun"
    else:
        _script(bindir / "mpichversion",
                f'case "$1" in -c) echo "MPICH configure: --prefix={root}";; *) echo "MPICH Version:  {version}";; esac\n')
        launcher = "mpiexec"
    for name in ("mpicc", "mpicxx", launcher):
        _script(bindir / name, "exit 1\n")
    (root / "lib").mkdir()
    return root


def test_add_then_list_and_show(dirs):
    prefix = fake_prefix(dirs / "ompi", "openmpi", "4.1.6")
    r = collmpi("add", "openmpi-4.1.6", "--prefix", str(prefix))
    assert r.returncode == 0, r.stderr
    saved = json.loads((dirs / "config" / "installations.json").read_text())
    [entry] = saved["installations"]
    assert (entry["kind"], entry["version"], entry["prefix"]) == ("openmpi", "4.1.6", str(prefix))
    assert entry["launcher"] == str(prefix / "bin" / "mpirun")
    assert entry["configure"] == f"'--prefix={prefix}'"
    assert not [p for p in os.listdir(dirs / "config") if ".tmp" in p]  # written atomically, nothing left over
    listing = collmpi("list")
    assert listing.returncode == 0, listing.stderr
    row = [l for l in listing.stdout.splitlines() if l.startswith("openmpi-4.1.6 ")]
    assert row and "added" in row[0] and "probe failed" in row[0]  # its wrapper is a stub: said, not hidden
    shown = json.loads(collmpi("show", "openmpi-4.1.6").stdout)
    assert shown["origin"] == "added" and shown["collbench"] == ""
    assert collmpi("remove", "openmpi-4.1.6").returncode == 0
    assert "openmpi-4.1.6" not in collmpi("list").stdout


def test_debian_libraries_are_known_out_of_the_box(dirs):
    known = {i.name: i for i in registry.debian_installations()}
    ompi = subprocess.run(["/usr/bin/ompi_info", "--parsable"], stdout=subprocess.PIPE, text=True).stdout
    ompi_version = [l.split(":")[-1] for l in ompi.splitlines() if l.startswith("ompi:version:full:")][0]
    assert known[f"openmpi-{ompi_version}"].launcher == "/usr/bin/mpirun.openmpi"
    mpich = [i for i in known.values() if i.kind == "mpich"][0]
    assert mpich.mpicxx == "/usr/bin/mpicxx.mpich"
    listing = collmpi("list", timeout=300)
    assert listing.returncode == 0, listing.stderr
    line = [l for l in listing.stdout.splitlines() if l.startswith(f"openmpi-{ompi_version} ")][0]
    assert f"Open MPI v{ompi_version}" in line  # the identity string, from the compiled probe
    line = [l for l in listing.stdout.splitlines() if l.startswith(f"{mpich.name} ")][0]
    assert f"MPICH Version:\t{mpich.version}" in line or f"MPICH Version: {mpich.version}" in " ".join(line.split())


@pytest.mark.parametrize("make, needle", [
    (lambda d: d / "nowhere", "is not a directory"),
    (lambda d: (d / "empty").mkdir() or d / "empty", "has no bin/"),
    (lambda d: (d / "nompi" / "bin").mkdir(parents=True) or d / "nompi", "neither ompi_info"),
])
def test_bad_prefix_is_one_line(dirs, make, needle):
    r = collmpi("add", "openmpi-9.9", "--prefix", str(make(dirs)))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and needle in r.stderr, r.stderr
    assert not (dirs / "config" / "installations.json").exists()


def test_prefix_of_the_wrong_kind(dirs):
    prefix = fake_prefix(dirs / "mpich", "mpich", "4.2.0")
    r = collmpi("add", "openmpi-4.2.0", "--prefix", str(prefix))
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "holds mpich 4.2.0, not openmpi" in r.stderr
    r = collmpi("add", "mine-1", "--prefix", str(prefix), "--kind", "openmpi")
    assert r.returncode == 2 and "not openmpi" in r.stderr
    assert collmpi("add", "mpich-4.2.0", "--prefix", str(prefix)).returncode == 0


def test_bad_names_and_specs(dirs):
    prefix = fake_prefix(dirs / "ompi", "openmpi", "4.1.6")
    r = collmpi("add", "Open MPI", "--prefix", str(prefix))
    assert r.returncode == 2 and "a name is <kind>-<version>" in r.stderr
    r = collmpi("add", "openmpi-4.1.4", "--prefix", str(prefix))  # the Debian library's name
    assert r.returncode == 2 and "taken" in r.stderr
    for spec, needle in (("openmpi", "KIND@VERSION"), ("lam@7.1", "not one of"), ("mpich@9.9", "no Debian suite")):
        r = collmpi("build", spec)
        assert r.returncode == 2 and needle in r.stderr, r.stderr


def test_a_prefix_without_its_stamp_is_never_listed(dirs):
    """A build interrupted after its install was renamed into place but before the stamp."""
    half = fake_prefix(dirs / "cache" / "mpi" / "openmpi-5.0.7", "openmpi", "5.0.7")
    (dirs / "cache" / "mpi" / ".build-mpich-3.4.1" / "src").mkdir(parents=True)
    assert "openmpi-5.0.7" not in [i.name for i in registry.built_installations()]
    with pytest.raises(registry.RegistryError):
        registry.resolve("openmpi-5.0.7")
    (half / builder.STAMP).write_text("{not json")  # a damaged stamp does not count either
    assert registry.built_installations() == []
    assert "openmpi-5.0.7" not in collmpi("list").stdout


def test_recipes_are_minimal():
    ompi = recipes.parse_spec("openmpi@5.0.7").configure_options("/p")
    assert "--disable-mpi-fortran" in ompi and "--with-hwloc=external" in ompi and "--with-libevent=external" in ompi
    mpich = recipes.parse_spec("mpich@3.4.1").configure_options("/p")
    assert "--disable-fortran" in mpich and "--with-hwloc-prefix=/usr" in mpich and mpich[0] == "--prefix=/p"


def _seed_sources(cache):
    """Share the real cache's fetched sources and apt state, so the test does not download."""
    real = REAL_CACHE
    if not list(real.glob("src/mpich-3.4.1-*/.complete")) or not (real / "apt").is_dir():
        pytest.skip(f"MPICH 3.4.1's Debian source is not fetched in {real} yet (bench/collmpi build mpich@3.4.1)")
    cache.mkdir(parents=True)
    for part in ("src", "apt"):
        (cache / part).symlink_to(real / part)


def _processes_working_in(root):
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{pid}/cwd").startswith(str(root)):
                found.append(pid)
        except OSError:
            pass
    return found


def test_an_interrupted_build_is_not_used(dirs):
    """SIGTERM during the first build step: exit 143, nothing listed, no step left running."""
    _seed_sources(dirs / "cache")
    env = dict(os.environ)
    proc = subprocess.Popen([str(COLLMPI), "build", "mpich@3.4.1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    log = dirs / "cache" / "mpi" / "logs" / "mpich-3.4.1.log"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not (log.exists() and "\n$ " in log.read_text(errors="replace")):
        time.sleep(0.2)
    time.sleep(1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    assert "never used" in err.splitlines()[-1] and "Traceback" not in err
    time.sleep(1)
    assert not _processes_working_in(dirs / "cache"), "a build step survived the interrupt"
    assert not (dirs / "cache" / "mpi" / "mpich-3.4.1").exists()
    assert registry.built_installations() == []
    r = collmpi("list")
    assert r.returncode == 0 and "mpich-3.4.1" not in r.stdout
    assert (dirs / "cache" / "mpi" / ".build-mpich-3.4.1").exists()  # left for the next build to remove


def test_only_a_finished_make_with_the_same_options_is_reused(tmp_path):
    work, src = tmp_path / "work", tmp_path / "work" / "src" / "mpich-3.4.1"
    src.mkdir(parents=True)
    options = recipes.parse_spec("mpich@3.4.1").configure_options("/p")
    assert builder._compiled_tree(str(work), options) is None  # no record: make did not finish
    builder.write_json_atomically(str(work / builder.MAKE_DONE), {"options": options, "src": str(src)})
    assert builder._compiled_tree(str(work), options) == str(src)
    assert builder._compiled_tree(str(work), options + ["--enable-debug"]) is None
    (work / builder.MAKE_DONE).write_text("{trunc")
    assert builder._compiled_tree(str(work), options) is None


def test_copied_macros_are_dated_as_old_as_their_neighbours(tmp_path):
    top, sub = tmp_path / "confdb", tmp_path / "sub" / "confdb"
    top.mkdir()
    sub.mkdir(parents=True)
    (top / "a.m4").write_text("new")
    (top / "b.m4").write_text("top's b")
    (sub / "b.m4").write_text("sub's own b")
    os.utime(sub / "b.m4", (1000, 1000))
    sourcetree.fill_missing(str(top), str(sub))
    assert (sub / "a.m4").read_text() == "new" and os.path.getmtime(sub / "a.m4") == 1000
    assert (sub / "b.m4").read_text() == "sub's own b"  # never overwritten


def test_a_build_with_other_options_than_the_recipe_is_not_current(dirs):
    recipe = recipes.parse_spec("mpich@3.4.1")
    prefix = fake_prefix(dirs / "cache" / "mpi" / recipe.name, "mpich", "3.4.1")
    record = registry.Installation(name=recipe.name, kind="mpich", version="3.4.1", prefix=str(prefix),
                                   mpicc="", mpicxx="", launcher="", origin="built").to_json()
    builder.write_json_atomically(str(prefix / builder.STAMP),
                                  dict(record, recipe_options=recipe.configure_options(str(prefix))))
    assert builder._current(recipe, str(prefix)).name == recipe.name
    builder.write_json_atomically(str(prefix / builder.STAMP), dict(record, recipe_options=["--old"]))
    assert builder._current(recipe, str(prefix)) is None  # `build` makes it again
    assert [i.name for i in registry.built_installations()] == [recipe.name]  # still usable meanwhile


@pytest.mark.parametrize("args, needle", [
    (["--installations", "openmpi-9.9"], "no MPI installation named 'openmpi-9.9'"),
    (["--installations", "openmpi-4.1.4,openmpi-4.1.4"], "give distinct names"),
    (["--installations", "openmpi-4.1.4", "--build-dir", "build/x"], "--build-dir goes with --mpi only"),
    (["--mpi", "mpich-9.9"], "no MPI installation named 'mpich-9.9'"),
])
def test_collrun_refuses_bad_installations_in_one_line(dirs, args, needle):
    r = subprocess.run([str(REPO / "bench" / "collrun"), *args, str(REPO / "configs" / "quick.yaml")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and needle in r.stderr, r.stderr


# ------------------------------------------------------------------ derived installations (issue 25)

from collrepro.launch import collrun, launcher  # noqa: E402
from collrepro.launch import runs as launch_runs  # noqa: E402
from collrepro.installations import delay  # noqa: E402


def test_derive_declares_a_synthetic_release_and_an_aa_copy(dirs, monkeypatch):
    r = collmpi("derive", "openmpi-4.1.4+slow10", "--from", "openmpi", "--delay", "allgather:>=64KiB:+10%")
    assert r.returncode == 0, r.stderr
    debian = registry.debian_installations()
    monkeypatch.setattr(registry, "debian_installations", lambda: debian)  # probed once: ompi_info is slow
    registry.derive("openmpi-4.1.4+aa", "openmpi-4.1.4")
    known = {i.name: i for i in registry.all_installations()}
    names = list(known)
    assert names.index("openmpi-4.1.4") < names.index("openmpi-4.1.4+slow10") < names.index("openmpi-4.1.4+aa")
    slow, aa, base = known["openmpi-4.1.4+slow10"], known["openmpi-4.1.4+aa"], known["openmpi-4.1.4"]
    assert (slow.origin, slow.base, slow.delay) == ("derived", "openmpi-4.1.4", "allgather:>=64KiB:+10%")
    assert (slow.kind, slow.version, slow.launcher, slow.prefix) == (base.kind, base.version, base.launcher,
                                                                     base.prefix)
    assert slow.env["COLLREPRO_PMPI_DELAY"] == "allgather:>=64KiB:+10%"
    assert slow.env["LD_PRELOAD"].endswith("/interpose/libcollrepro_pmpi.so")
    assert slow.env["COLLREPRO_PMPI_DISABLE"] == "1"  # the library never replaces a call by an algorithm
    assert "LD_PRELOAD" not in aa.env and "COLLREPRO_PMPI_DELAY" not in aa.env and aa.origin == "derived"
    record = json.loads(launch_runs.installation_environment(slow)["COLLREPRO_MPI_INSTALLATION"])
    assert record["name"] == "openmpi-4.1.4+slow10" and record["base"] == "openmpi-4.1.4"
    assert record["delay"] == "allgather:>=64KiB:+10%" and record["preload"] == slow.env["LD_PRELOAD"]
    # builds and probes use the base: never compile with the library preloaded
    assert "LD_PRELOAD" not in builder.build_env(slow)
    # an added prefix and the declarations live in one file: writing one keeps the other
    monkeypatch.setattr(registry.probe, "configure_options", lambda kind, tool: "")
    registry.add("openmpi-4.1.6", str(fake_prefix(dirs / "p", "openmpi", "4.1.6")))
    assert {i.name for i in registry.all_installations()} >= {"openmpi-4.1.6", "openmpi-4.1.4+aa"}
    registry.remove("openmpi-4.1.4+aa")
    names = {i.name for i in registry.all_installations()}
    assert "openmpi-4.1.4+aa" not in names and {"openmpi-4.1.6", "openmpi-4.1.4+slow10"} <= names


@pytest.mark.parametrize("args, needle", [
    (["openmpi-4.1.4+x", "--from", "openmpi-4.1.4", "--delay", "allgather:64kb:+5%"], "size '64kb'"),
    (["openmpi-4.1.4+x", "--from", "openmpi-4.1.4", "--delay", "bcast:*:+5%"], "unknown call 'bcast'"),
    (["openmpi-4.1.4+x", "--from", "openmpi-4.1.4", "--delay", "allgather:*:5%"], "write +N%"),
    (["openmpi-4.1.3+x", "--from", "openmpi-4.1.4"], "is not <base>+<tag>"),
    (["openmpi-4.1.4+X", "--from", "openmpi-4.1.4"], "is not <base>+<tag>"),
    (["openmpi-9.9+x", "--from", "openmpi-9.9"], "no MPI installation named 'openmpi-9.9'"),
])
def test_derive_refuses_bad_declarations_in_one_line(dirs, args, needle):
    r = collmpi("derive", *args)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and needle in r.stderr, r.stderr
    assert not (dirs / "config" / "installations.json").exists()  # nothing was written


def test_a_damaged_declaration_is_named(dirs):
    (dirs / "config").mkdir()
    (dirs / "config" / "installations.json").write_text(json.dumps(
        {"version": 1, "installations": [], "derived": [{"name": "openmpi-4.1.4+s", "base": "openmpi-4.1.4",
                                                         "delay": "allgather:*:+1001%"}]}))
    r = collmpi("list")
    assert r.returncode == 2 and "derived entry 0" in r.stderr and "+1001%" in r.stderr, r.stderr


def test_a_missing_library_stops_a_synthetic_release_before_any_launch(dirs, tmp_path):
    slow = registry.derive("openmpi-4.1.4+slow5", "openmpi-4.1.4", delay="allgather:*:+5%")
    slow.env["LD_PRELOAD"] = str(tmp_path / "missing.so")
    with pytest.raises(Exception, match="missing.so is missing .*collrepro mpi collbench openmpi-4.1.4\\+slow5"):
        launch_runs.derived.check_ready(slow)


POINT = {"family": "inter-group", "collective": "allgather", "algorithm": "native", "msg_bytes": 65536,
         "ka": 65536, "kb": 0}


@pytest.mark.parametrize("rules, point, fraction", [
    ("allgather:>=64KiB:+10%", {}, 0.10),
    ("allgather:>=64KiB:+10%", {"ka": 1024, "msg_bytes": 1024}, 0.0),
    ("allgather:1KiB..64KiB:+25%", {}, 0.25),
    ("allgather:<=32KiB:+25%,allgather:*:+5%", {}, 0.05),             # the first rule that matches
    ("allgather:*:+50%", {"algorithm": "halfduplex-fc"}, 0.0),        # algorithms' calls are intracomm
    ("allgather:*:+50%", {"collective": "allgatherv"}, 0.0),
    ("allgatherv:*:+50%", {"collective": "allgatherv"}, 0.5),
    ("allgather:*:+50%", {"family": "intra", "collective": "intra-allgather"}, 0.0),
    ("allgather:65536:+5%", {"ka": 0, "kb": 65536, "msg_bytes": 0}, 0.05),  # the largest block, either side
    ("neighbor_alltoall:*:+5%", {"family": "isomorphic", "collective": "neighbor-alltoall",
                                 "algorithm": "mpi-neighbor"}, 0.05),
    ("neighbor_alltoall:*:+5%;neighbor_alltoallv:*:+5%",
     {"family": "isomorphic", "collective": "neighbor-alltoall", "algorithm": "mpi-neighbor-remapped"}, 0.05),
    ("neighbor_alltoall:*:+5%", {"family": "isomorphic", "collective": "neighbor-alltoall",
                                 "algorithm": "torus"}, 0.0),
])
def test_delay_affected_points(rules, point, fraction):
    assert delay.slowdown(rules, {**POINT, **point}) == pytest.approx(fraction)
    assert delay.affected(rules, {**POINT, **point}) == (fraction > 0)


def test_delay_refuses_to_guess_and_bad_rules():
    remapped = {"family": "isomorphic", "collective": "neighbor-alltoall", "algorithm": "mpi-neighbor-remapped",
                "msg_bytes": 64}
    with pytest.raises(delay.DelayError, match="give both calls the same rule"):
        delay.affected("neighbor_alltoall:*:+5%", remapped)
    for bad in ("allgather", "allgather:*:+5%;", "allgather:*:+1001%", "allgather:2..1:+5%", "x" * 5000,
                "allgather:999999999999999999GiB:+5%"):
        with pytest.raises(delay.DelayError):
            delay.parse(bad)
    assert delay.parse(" ") == []
    assert delay.parse("allgather:1MiB:+50%")[0] == delay.DelayRule("allgather", 1 << 20, 1 << 20, 0.5)


def test_delay_fixed_times():
    """`+Nus` / `+Nms`: a fixed time more (interpose/delay.hpp parses the same forms)."""
    assert delay.parse("allgather:>=128KiB:+5ms")[0] == delay.DelayRule("allgather", 128 << 10, delay.UNBOUNDED,
                                                                        0.0, 0.005)
    assert delay.parse("allgatherv:*:+250us")[0].seconds == pytest.approx(250e-6)
    assert delay.parse("allgather:*:+1000ms")[0].seconds == pytest.approx(1.0)
    assert delay.affected("allgather:>=64KiB:+5ms", POINT)
    assert delay.slowdown("allgather:>=64KiB:+5ms", POINT) == 0.0     # no fraction: a fixed time
    assert not delay.affected("allgather:>=128KiB:+5ms", POINT)
    for bad, why in (("allgather:*:+0ms", "above 0 and at most 1 s"), ("allgather:*:+1001ms", "at most 1 s"),
                     ("allgather:*:+5s", r"\+Nus or \+Nms"), ("allgather:*:+ms", r"\+Nus or \+Nms"),
                     ("allgather:*:5ms", r"\+Nus or \+Nms")):
        with pytest.raises(delay.DelayError, match=why):
            delay.parse(bad)


# ------------------------------------------------------------------ randomised launch order (issue 25)

NAMES = ["openmpi-4.1.4", "mpich-4.0.2", "mpich-3.4.1", "openmpi-5.0.7"]


def test_round_orders_are_seeded_permutations():
    orders = lambda seed: [collrun.round_order(NAMES, seed, r) for r in range(8)]  # noqa: E731
    assert orders(1) == orders(1)  # one seed: the same orders again
    assert orders(1) != orders(2)  # two seeds: different orders
    assert all(sorted(o) == sorted(NAMES) for o in orders(3))
    assert len({tuple(o) for o in orders(3)}) > 1  # the order changes from round to round
    assert collrun.round_order(NAMES, 5, 3) == orders(5)[3]  # a round's order does not depend on the others
    first = {collrun.round_order(NAMES, seed, 0)[0] for seed in range(40)}
    assert first == set(NAMES)  # no installation always runs first


class _Recorder:
    """A Forwarder that records each launch's command and environment instead of starting it."""
    received = None

    def __init__(self):
        self.launches = []

    def run(self, cmd, env):
        self.launches.append((cmd, env))
        return 0


def test_collrun_rounds_record_the_order_in_each_launch(tmp_path, capsys):
    runs = [launch_runs.Run(n, launcher.Launcher("openmpi"), "/bin/true", {"X": n}, str(tmp_path / n)) for n in NAMES]
    opts = {"config": "c.yaml", "passthrough": [], "order_seed": "42"}
    fwd = _Recorder()
    assert collrun._run_rounds(runs, 2, opts, 3, fwd) == 0
    assert "seed 42" in capsys.readouterr().err
    records = [json.loads(env["COLLREPRO_LAUNCH_ORDER"]) for _, env in fwd.launches]
    assert len(records) == 12
    for i, ((cmd, env), rec) in enumerate(zip(fwd.launches, records)):
        assert rec["seed"] == 42 and rec["round"] == i // 4 and rec["slot"] == i % 4 and rec["of"] == 4
        assert rec["order"] == collrun.round_order(NAMES, 42, rec["round"])
        assert env["X"] == rec["order"][rec["slot"]]  # the launch runs with that installation's environment
        assert cmd[cmd.index("--launch") + 1] == str(rec["round"])
    fresh = _Recorder()
    collrun._run_rounds(runs, 2, {**opts, "order_seed": ""}, 1, fresh)
    assert "--order-seed" in capsys.readouterr().err  # a fresh seed is printed, to repeat it
    with pytest.raises(collrun.UserError, match="--order-seed x"):
        collrun._run_rounds(runs, 2, {**opts, "order_seed": "x"}, 1, _Recorder())
