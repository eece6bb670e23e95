"""The writers of the fault matrix: for each, how its inputs are made, its command, and which
paths are its output. Two inputs per writer, A and B, give two different outputs: the matrix
puts A's output in place ("the previous output"), runs the writer on B with a fault, and then
requires A's output untouched or B's whole.

Inputs are small and synthetic (tests/python/synthetic.py), or committed results
(results/timing/), or fake MPI prefixes and a fake sbatch; nothing needs a network, a cluster or
SimGrid. collbench is in run_matrix.py (a resumed sweep, not an A/B swap)."""

import json
import shutil
import sys
from pathlib import Path

from faultlib import REPO, Command

sys.path.insert(0, str(REPO / "tests" / "python"))
sys.path.insert(0, str(REPO / "python"))

ANALYZE = REPO / "analysis" / "analyze"
ANALYSIS_MODULES = ["numpy", "pandas", "scipy.stats", "matplotlib", "matplotlib.pyplot", "yaml",
                    "collrepro.safeio", "collrepro.analysis.cli", "collrepro.analysis.loading.loader",
                    "collrepro.analysis.frames.aggregate", "collrepro.analysis.figures.figures",
                    "collrepro.analysis.figures.overlay", "collrepro.analysis.report",
                    "collrepro.analysis.loading.inventory", "collrepro.analysis.verdicts.trend",
                    "collrepro.analysis.verdicts.guidelines", "collrepro.analysis.verdicts.stats"]


class Writer:
    """One row of the table. units: the output paths under the writer's root directory, each of
    which must be wholly A's or wholly B's after a fault. expect: the exit codes a complete run
    may end with (4: complete, but some verdict refused or some point short; trend and
    guidelines exit 1 on a finding); the cells then want the reference run's own code."""

    name = ""
    prog = ""
    units = ("out",)
    preload = ()
    tmpfs_mib = 48
    expect = (0, 4)

    def available(self, setup):
        """None, or why this writer is skipped here."""
        return None

    def prepare(self, inputs, setup):
        """Make the inputs under `inputs`; returns a context for command()."""
        raise NotImplementedError

    def command(self, ctx, variant, root):
        raise NotImplementedError

    def make_previous(self, ctx, root, run):
        """Put A's output under root (run: runs a Command; returns its Outcome)."""
        return run(self.command(ctx, "A", root))


def _analyze(sub, inputs, root, *extra):
    return Command(program=[ANALYZE], args=[sub, *inputs, "-o", root / "out", *extra], prog="analyze",
                   fork=("verb", "analyze"))


# ------------------------------------------------------------------ analysis

class Report(Writer):
    name = "analyze report"
    prog = "analyze"
    preload = ANALYSIS_MODULES

    def prepare(self, inputs, setup):
        import synthetic as S
        small = [S.point(a, p=4, q=4, ka=m, kb=0, msg_bytes=m) for a in ("halfduplex-fc", "root-gathering")
                 for m in (1024, 4096)]
        more = [S.point(a, p=4, q=4, ka=m, kb=0, msg_bytes=m) for a in ("halfduplex-fc", "root-gathering", "native")
                for m in (1024, 4096, 16384)]
        return {"A": S.write_result_set(inputs / "A", small, launches=4, reps=6, experiment="faultsA"),
                "B": S.write_result_set(inputs / "B", more, launches=4, reps=6, experiment="faultsB")}

    def command(self, ctx, variant, root):
        return _analyze("report", [ctx[variant]], root)


def _installation_trees(setup):
    """Results trees of 2 (A) and 3 (B) installations, the third slower at one point; made once
    for trend, guidelines and dashboard. The inter-group Allgather only (one trend figure, one
    guideline: native against root gathering): few points, short runs."""
    shared = setup.work / "installation-trees"
    if not (shared / "B").is_dir():
        import synthetic as S
        pts = [S.point(a, **S.inter_shape("allgather", 4, 4, m))
               for m in (1024, 65536) for a in ("native", "root-gathering", "fullduplex-allgather")]
        S.write_installations(shared / "A", [("openmpi", "4.1.4", {}, None), ("openmpi", "4.1.5", {}, None)], pts,
                              launches=4, reps=6)
        S.write_installations(shared / "B", [("openmpi", "4.1.4", {}, None), ("openmpi", "4.1.5", {}, None),
                                             ("openmpi", "4.1.6", {("native", "allgather", 1024): 1.5}, None)],
                              pts, launches=4, reps=6)
    return {"A": shared / "A", "B": shared / "B"}


def shared_inputs(setup):
    """Inputs several writers share, made once before they run."""
    _installation_trees(setup)


class Trend(Writer):
    name = "analyze trend"
    prog = "analyze"
    preload = ANALYSIS_MODULES + ["collrepro.analysis.verdicts.comparability"]
    expect = (0, 1, 4)

    def prepare(self, inputs, setup):
        return _installation_trees(setup)

    def command(self, ctx, variant, root):
        return _analyze("trend", [ctx[variant]], root)


class Guidelines(Trend):
    name = "analyze guidelines"

    def command(self, ctx, variant, root):
        return _analyze("guidelines", [ctx[variant]], root)


class Dashboard(Trend):
    name = "analyze dashboard"
    preload = Trend.preload + ["plotly", "plotly.offline", "collrepro.analysis.dashboard.page",
                               "collrepro.analysis.dashboard.html", "collrepro.analysis.dashboard.figures"]
    tmpfs_mib = 160   # about 8 MiB a site (plotly.min.js), several of them during the cells
    expect = (0, 4)

    def available(self, setup):
        import importlib.util
        return None if importlib.util.find_spec("plotly") else "plotly is not installed (python3-plotly)"

    def command(self, ctx, variant, root):
        return _analyze("dashboard", [ctx[variant]], root)


# ------------------------------------------------------------------ colltune

class Colltune(Writer):
    name = "interpose/colltune"
    prog = "colltune"
    units = ("rules.json",)
    preload = ANALYSIS_MODULES + ["collrepro.analysis.tune"]

    def prepare(self, inputs, setup):
        import synthetic as S
        sizes = [32768, 131072]
        return {"A": S.write_result_set(inputs / "A", S.seed000_points(sizes), launches=4, reps=6, experiment="tuneA"),
                "B": S.write_result_set(inputs / "B", S.seed001_points(sizes), launches=4, reps=6, experiment="tuneB")}

    def command(self, ctx, variant, root):
        return Command(program=[REPO / "interpose" / "colltune"], args=[ctx[variant], "-o", root / "rules.json"],
                       prog="colltune", fork=("verb", "tune"))


# ------------------------------------------------------------------ installations registry

def _script(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + text)
    path.chmod(0o755)


def fake_openmpi_prefix(root, version):
    """A prefix whose ompi_info answers like Open MPI's; wrappers and launcher exist."""
    _script(root / "bin" / "ompi_info", f'echo "ompi:version:full:{version}"\necho "config:cli: \'--prefix={root}\'"\n')
    for name in ("mpicc", "mpicxx", "mpirun"):
        _script(root / "bin" / name, "exit 1\n")
    (root / "lib").mkdir(exist_ok=True)
    (root / "include").mkdir(exist_ok=True)
    return root


class Registry(Writer):
    """`bench/collmpi add NAME --prefix P` rewrites installations.json in the configuration
    directory (COLLREPRO_CONFIG_DIR = the root). The previous registry holds 60 entries, so that
    the file spans several pages and a full disk can stop it at different moments."""

    name = "collmpi add (registry)"
    prog = "collmpi"
    units = ("installations.json",)
    preload = ["yaml", "collrepro.safeio", "collrepro.installations.cli", "collrepro.installations.registry"]
    ENTRIES = 60

    def prepare(self, inputs, setup):
        return {"A": fake_openmpi_prefix(inputs / "ompi-a", "9.9.0"), "B": fake_openmpi_prefix(inputs / "ompi-b", "9.9.1"),
                "cache": inputs / "cache"}

    def command(self, ctx, variant, root):
        name = "openmpi-9.9.0" if variant == "A" else "openmpi-9.9.1"
        return Command(program=[REPO / "bench" / "collmpi"], args=["add", name, "--prefix", ctx[variant]], prog="collmpi",
                       fork=("verb", "mpi"),
                       env={"COLLREPRO_CONFIG_DIR": str(root), "COLLREPRO_CACHE": str(ctx["cache"])})

    def make_previous(self, ctx, root, run):
        outcome = run(self.command(ctx, "A", root))
        path = root / "installations.json"
        if outcome.rc == 0 and path.is_file():
            data = json.loads(path.read_text())
            first = data["installations"][0]
            for n in range(1, self.ENTRIES):
                entry = dict(first, name=f"openmpi-9.8.{n}", version=f"9.8.{n}")
                data["installations"].append(entry)
            path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
        return outcome


# ------------------------------------------------------------------ Slurm state

SLURM_CONFIG = """\
experiment: faults-slurm
collective: allgather
algorithms: [native, root-gathering, fullduplex-allgather]
groups: {ratios: ["1/1"]}
blocks: ["1:0", "1:1"]
sizes: [1KiB, 4KiB]
placements: [block]
timing: {sync: barrier, clock: monotonic, warmup: 1, reps: 3}
launches: 30
slurm:
  ntasks_per_node: 2
  slices: 4
  time: "00:10:00"
  overcommit: true
"""


class SlurmState(Writer):
    """`slurm/collslurm resubmit DIR --tasks 0-3` (a fake sbatch on PATH, no cluster: squeue
    fails fast) rewrites the submission record DIR/openmpi/slurm-submission.json and the index
    DIR/slurm-submission.json. The previous state comes from `collslurm submit` (120 tasks).
    Each of the two files is a unit: whole old or whole new."""

    name = "collslurm resubmit (state)"
    prog = "collslurm"
    units = ("sub/slurm-submission.json", "sub/openmpi/slurm-submission.json")
    preload = ["yaml", "collrepro.safeio", "collrepro.slurm.cli", "collrepro.slurm.state", "collrepro.slurm.submit"]

    def available(self, setup):
        return None if setup.collbench else "no collbench build (needed by collslurm submit's dry run)"

    def prepare(self, inputs, setup):
        inputs.mkdir(parents=True, exist_ok=True)
        config = inputs / "experiment.yaml"
        config.write_text(SLURM_CONFIG)
        _script(inputs / "bin" / "sbatch", 'echo "4242"\n')
        for query in ("squeue", "sacct", "scontrol", "sinfo"):  # no cluster: fail at once
            _script(inputs / "bin" / query, f'echo "{query}: error: no cluster (fault matrix)" >&2\nexit 1\n')
        (inputs / "slurm.conf").write_text("")
        return {"config": config, "bin": inputs / "bin", "collbench": setup.collbench, "conf": inputs / "slurm.conf"}

    def _env(self, ctx):
        import os
        from collrepro.mpienv import ci_environment
        return {"PATH": f"{ctx['bin']}:{os.environ.get('PATH', '/usr/bin:/bin')}", "SLURM_CONF": str(ctx["conf"]),
                **ci_environment()}

    def command(self, ctx, variant, root):
        tool = REPO / "slurm" / "collslurm"
        if variant == "A":
            collbench = Path(ctx["collbench"])
            args = ["submit", ctx["config"], "--out", root / "sub", "--np", "2", "--mpi", "openmpi",
                    "--build-dir", collbench.parents[1], "--collbench", collbench]
        else:
            args = ["resubmit", root / "sub", "--tasks", "0-3"]
        return Command(program=[tool], args=args, prog="collslurm", fork=("verb", "slurm"),
                       env=self._env(ctx))


# ------------------------------------------------------------------ timing study

class TimingStudy(Writer):
    """`bench/timing-study report DIR -o OUT` on the committed study (results/timing/sync-methods,
    its report left out): A holds two methods and no simulation records, B all of it."""

    name = "timing-study report"
    prog = "timing-study"
    preload = ["numpy", "pandas", "matplotlib", "matplotlib.pyplot", "collrepro.safeio", "collrepro.studies.timing"]
    SOURCE = REPO / "results" / "timing" / "sync-methods"

    def available(self, setup):
        return None if self.SOURCE.is_dir() else f"{self.SOURCE} is missing"

    def prepare(self, inputs, setup):
        """B: three methods at 2 and 4 processes, the residual checks and the simulation
        records; A: two methods, no simulation records (a study directory holds 320 launches:
        this keeps each run short)."""
        full, part = inputs / "B", inputs / "A"
        for target, methods, extra in ((full, ("barrier", "window-linear", "round-time"), ("residual", "sim")),
                                       (part, ("barrier", "window-linear"), ("residual",))):
            for method in methods:
                for np_ in ("np2", "np4"):
                    shutil.copytree(self.SOURCE / method / np_, target / method / np_)
            for sub in extra:
                shutil.copytree(self.SOURCE / sub, target / sub)
        return {"A": part, "B": full}

    def command(self, ctx, variant, root):
        return Command(program=[REPO / "bench" / "timing-study"], args=["report", ctx[variant], "-o", root / "out"],
                       prog="timing-study", fork=("verb", "study timing"))


# ------------------------------------------------------------------ simulation (no SimGrid run)

class CoriPlatform(Writer):
    """The simulation's platform writer (python/collrepro/sim/platforms/cori.py): a SimGrid platform
    XML of 3 groups (A), then of 7 (B). The simulation runs themselves need SimGrid and are left
    out; their results are collbench's files (the collbench row)."""

    name = "sim cori"
    prog = "sim cori"
    units = ("platform.xml",)
    preload = ["collrepro.safeio", "collrepro.sim.platforms.cori"]

    def prepare(self, inputs, setup):
        return {"A": "3", "B": "7"}

    def command(self, ctx, variant, root):
        return Command(program=[REPO / "collrepro-py", "sim", "cori"],
                       args=["--groups", ctx[variant], "-o", root / "platform.xml"],
                       prog="sim cori", fork=("verb", "sim cori"))


WRITERS = [Report(), Dashboard(), Trend(), Guidelines(), Colltune(), Registry(), SlurmState(), TimingStudy(),
           CoriPlatform()]
