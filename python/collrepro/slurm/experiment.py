"""One experiment for one MPI library, as plan and submit see it: the config, the merged Slurm
settings, the collbench build, and collbench's own list of points at the chosen process count.
"""

import csv
import os
import re
import subprocess
import tempfile
from pathlib import Path

import yaml

from collrepro import design, safeio
from collrepro.installations import collbench as installed_collbench
from collrepro.installations import registry
from collrepro.launch.runs import installation_environment
from collrepro.mpienv import SRUN_MPI, installed_program, mpi_environment
from collrepro.paths import default_collbench
from collrepro.slurm.plan import LIBRARIES, Fail, array_spec, mapping, resolve_slurm, split_sets, build_dir_for

REPO = Path(__file__).resolve().parents[3]


CONFIG_LIMIT = 16 * safeio.MIB  # an experiment config is a few KiB


def load_config(path):
    """The YAML config as a dict; Fail with one line on a missing, oversized or malformed file."""
    p = Path(path)
    if not p.is_file():
        raise Fail(f"config {path}: no such file")
    try:
        doc = safeio.load_yaml_file(p, CONFIG_LIMIT, "an experiment config")
    except safeio.UserError as err:
        raise Fail(f"config {err}") from None
    if doc is None:
        doc = {}
    if not isinstance(doc, dict):
        raise Fail(f"config {path}: the top level must be a map of keys")
    return doc


def cmake_cache(build_dir):
    """The NAME:TYPE=VALUE entries of a build's CMakeCache.txt as {NAME: VALUE} ({} without one)."""
    cache = {}
    f = Path(build_dir) / "CMakeCache.txt"
    if f.is_file():
        for line in f.read_text(errors="replace").splitlines():
            m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*):[A-Z]+=(.*)$", line)
            if m:
                cache[m.group(1)] = m.group(2)
    return cache


def _cli_settings(args, mpi_override):
    """The slurm settings given as plan/submit options (None where not given)."""
    return {
        "nodes": args.nodes, "ntasks_per_node": args.ntasks_per_node, "time": args.time,
        "partition": args.partition, "account": args.account, "qos": args.qos,
        "throttle": args.throttle, "sbatch_extra": args.sbatch_extra, "launcher": args.launcher,
        "srun_mpi": args.srun_mpi, "slices": args.slices, "launches": args.launches,
        "overcommit": True if args.overcommit else None, "mpi": mpi_override,
        "job_name": args.job_name,
    }


class Setup:
    """Everything plan and submit need for one MPI library."""

    def __init__(self, args, mpi_override=None, single=True):
        self.config_path = Path(args.config).resolve()
        doc = load_config(args.config)
        slurm_sets, self.sets = split_sets(args.set)
        section = doc.pop("slurm", None)
        if slurm_sets and (section is None or isinstance(section, dict)):
            section = {**(section or {}), **slurm_sets}
        self.doc = doc  # the config without its slurm: section: what collbench reads
        self.s = resolve_slurm(section, _cli_settings(args, mpi_override))
        self.mpi = self.s["mpi"]  # the label: the results go to --out/<mpi>
        self._installation()
        cli_build = build_dir_for(args.build_dir, self.mpi, single)
        if cli_build:
            self.s["build_dir"] = cli_build
        self._processes(args.np)
        self._build(args.collbench, single)
        self.job_name = self.s["job_name"] or f"collrepro-{doc.get('experiment', 'experiment')}-{self.mpi}"
        if re.search(r"[\s%'\"\\$`]", self.job_name):
            raise Fail(f"job name {self.job_name!r} holds a space, %, quote, $ or backslash: choose a plain --job-name")
        self.experiment = str(doc.get("experiment", ""))
        self.single = single
        self._plan(args.config)

    def _processes(self, np):
        """Processes per launch: --np (split over the nodes) or the settings' ntasks_per_node."""
        s = self.s
        if np is not None:
            if np < 1:
                raise Fail(f"--np {np}: want a positive number of processes")
            if np % s["nodes"]:
                raise Fail(f"--np {np} is not a multiple of {s['nodes']} nodes: choose --np as nodes x tasks per "
                           f"node, or set --nodes")
            s["ntasks_per_node"] = np // s["nodes"]
        if s["ntasks_per_node"] is None:
            raise Fail("the number of processes is not set: add slurm: {ntasks_per_node: N} to the config or pass --np N")
        self.np = s["nodes"] * s["ntasks_per_node"]
        if s["srun_mpi"] is None:
            s["srun_mpi"] = SRUN_MPI[self.kind]

    def _installation(self):
        """--mpi openmpi|mpich: the library of that kind on PATH; an installation name: its kind, and
        its environment (exported by the batch script and given to collbench here)."""
        self.installation = None
        self.kind = self.mpi
        if self.mpi not in LIBRARIES:
            try:
                self.installation = registry.resolve(self.mpi)
            except registry.RegistryError as err:
                raise Fail(str(err)) from None
            self.kind = self.installation.kind

    def environment(self):
        """The environment collbench runs in for this setup (dry runs here, the tasks' launches)."""
        if self.installation is None:
            return mpi_environment(self.kind)
        return installation_environment(self.installation)

    def exported_environment(self):
        """What the batch script exports so that the tasks find the installation: {} for openmpi/mpich."""
        if self.installation is None:
            return {}
        env = installation_environment(self.installation, base={})
        return {k: v for k, v in env.items() if k in self.installation.env or k == "COLLREPRO_MPI_INSTALLATION"}

    def _build(self, collbench, single):
        """The build directory, collbench in it, and the build's own mpiexec."""
        if collbench and not single:
            raise Fail("--collbench names one build: submit each library separately (one --mpi per call)")
        build = Path(self.s["build_dir"]) if self.s["build_dir"] else REPO / "build" / self.mpi
        if single and not collbench and not self.s["build_dir"] and self.installation is None:
            collbench = default_collbench(self.mpi)  # build/<mpi>, or an installed tree's own
        built = installed_collbench.executable(self.installation) if self.installation else None
        if built and not self.s["build_dir"]:
            build = Path(built).parent.parent  # build/<name>, or a Debian library's preset build
        if not build.is_absolute():
            build = Path.cwd() / build
        self.build_dir = build.resolve()
        self.collbench = Path(collbench).resolve() if collbench else self.build_dir / "bench" / "collbench"
        if not (self.collbench.is_file() and os.access(self.collbench, os.X_OK)):
            how = (f"bench/collmpi collbench {self.mpi}" if self.installation is not None
                   else f"cmake --preset {self.mpi} && cmake --build --preset {self.mpi}")
            raise Fail(f"collbench not found at {self.collbench}: build it ({how}) or pass --build-dir / --collbench",
                       safeio.EXIT_ENVIRONMENT)
        cache = cmake_cache(self.build_dir)
        flavor = cache.get("COLLREPRO_MPI_FLAVOR")
        if flavor and flavor != self.kind:
            raise Fail(f"{self.build_dir} is a {flavor} build but --mpi is {self.mpi}: pass --build-dir of a {self.kind} "
                       f"build (e.g. build/{self.mpi})")
        if self.installation is not None:
            self.mpiexec = self.installation.launcher
        else:
            self.mpiexec = cache.get("MPIEXEC_EXECUTABLE") or installed_program(self.mpi)

    def _plan(self, config):
        """collbench's own point list at np processes, the launches, slices and task mapping."""
        self.points, self.skipped = self.dry_run()
        if not self.points:
            raise Fail(f"config {config} has no points at {self.np} processes: check groups/sizes/algorithms "
                       f"(collbench {config} --dry-run --nprocs {self.np})")
        ids = [p["point"] for p in self.points]
        if ids != list(range(len(ids))):
            raise Fail("collbench --dry-run --format csv returned point ids that are not 0..N-1 in order "
                       "(driver/collslurm contract mismatch: a bug)", safeio.EXIT_INTERNAL)
        self.launches = self.s["launches"] or self.config_launches()
        self.launches_note = ""
        if not self.single and not self.s["launches"] and self.launches < design.ROUNDS:
            # several installations are compared: the calibrated launches of a verdict (docs/verdicts.md)
            self.launches_note = (f"{design.ROUNDS} launches, the calibrated rounds of a verdict between "
                                  f"installations, not the config's {self.launches}; --launches N to choose")
            self.launches = design.ROUNDS
        self.slices = self.s["slices"]
        if self.slices > len(self.points):
            raise Fail(f"--slices {self.slices} is more than the {len(self.points)} points at {self.np} processes: "
                       f"use --slices {len(self.points)} or fewer")
        self.tasks = self.launches * self.slices
        self.mapping = mapping(len(self.points), self.launches, self.slices)

    def stripped_yaml(self):
        """The config without its slurm: section, as the array tasks' collbench reads it."""
        header = (f"# {self.config_path} without its slurm: section, written by slurm/collslurm;\n"
                  f"# the array tasks run collbench on this file.\n")
        return header + yaml.safe_dump(self.doc, sort_keys=False, default_flow_style=None, allow_unicode=True)

    def run_bench(self, extra):
        """collbench's stdout for the stripped config plus `extra` and the --set overrides."""
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", prefix="collslurm-", delete=False) as f:
            f.write(self.stripped_yaml())
            tmp = f.name
        try:
            proc = subprocess.run([str(self.collbench), tmp] + extra + [a for s in self.sets for a in ("--set", s)],
                                  capture_output=True, text=True, env=self.environment(), timeout=300)
        finally:
            os.unlink(tmp)
        err = proc.stderr.replace(tmp, str(self.config_path)).strip()
        if proc.returncode != 0:
            last = err.splitlines()[-1] if err else f"exit code {proc.returncode}"
            raise Fail(f"collbench rejected the config at {self.np} processes: {last}")
        return proc.stdout

    def dry_run(self):
        """(supported points as dicts with an int 'point', number of skipped combinations)."""
        out = self.run_bench(["--dry-run", "--format", "csv", "--nprocs", str(self.np)])
        points, skipped = [], 0
        for row in csv.DictReader(out.splitlines()):
            if row.get("point", "") == "":
                skipped += 1
                continue
            row["point"] = int(row["point"])
            points.append(row)
        return points, skipped

    def config_launches(self):
        """The config's `launches` (after --set), 1 when collbench gives no positive number."""
        out = self.run_bench(["--get", "launches"]).strip()
        return int(out) if out.isdigit() and int(out) > 0 else 1

    def plan_json(self):
        """The plan as a JSON-ready dict (plan --format json, and the submission record)."""
        s = self.s
        return {
            "experiment": self.experiment, "config": str(self.config_path), "mpi": self.mpi,
            "collbench": str(self.collbench), "build_dir": str(self.build_dir), "sets": self.sets,
            "np": self.np, "nodes": s["nodes"], "ntasks_per_node": s["ntasks_per_node"], "time": s["time"],
            "partition": s["partition"], "account": s["account"], "qos": s["qos"], "throttle": s["throttle"],
            "sbatch_extra": s["sbatch_extra"], "launcher": s["launcher"], "srun_mpi": s["srun_mpi"],
            "mpiexec": self.mpiexec, "launcher_flags": s["launcher_flags"], "overcommit": s["overcommit"],
            "env": s["env"], "job_name": self.job_name,
            "points": len(self.points), "skipped": self.skipped, "launches": self.launches, "slices": self.slices,
            "tasks": self.tasks, "array": array_spec(range(self.tasks), s["throttle"]),
            "task_id": "task = launch * slices + slice; launch = task // slices, slice = task % slices",
            "mapping": self.mapping,
            "point_list": [{k: v for k, v in p.items() if k not in ("supported", "reason")} for p in self.points],
        }
