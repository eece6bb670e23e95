"""How one collrun launches collbench: the library (a Debian MPI or an installation of the
registry), its launcher, executable and environment; the checks before the first launch; the
process count (--np auto: job_size.py). Used by collrun, the timing study and the versions runs.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

from collrepro.installations import collbench as installed_collbench
from collrepro.installations import derived, registry
from collrepro.launch import job_size
from collrepro.launch.launcher import Launcher, exit_code
from collrepro.mpienv import MPIS, PROGRAMS, mpi_environment
from collrepro.paths import default_collbench, install_record
from collrepro.safeio import EnvironmentProblem, UserError


def installation_environment(inst, oversubscribed=False, base=None):
    """mpi_environment for an installation (collrepro.installations): its own variables (PATH,
    LD_LIBRARY_PATH of a non-system prefix), its kind's settings, and COLLREPRO_MPI_INSTALLATION,
    the record collbench copies into the metadata (`mpi_installation`; a derived installation
    adds base, delay and the preloaded library; another that preloads a library adds the library
    and its variables, `env`)."""
    env = mpi_environment(inst.kind, oversubscribed, inst.environment(base))
    record = {k: getattr(inst, k) for k in ("name", "kind", "version", "prefix", "origin", "configure")}
    if inst.origin == "derived":
        record.update(base=inst.base, delay=inst.delay, preload=derived.preloaded_library(inst))
    elif inst.env.get("LD_PRELOAD"):  # e.g. a slowdown library (installations/slowlib.py): what it ran with
        record.update(preload=inst.env["LD_PRELOAD"], env=dict(inst.env))
    env["COLLREPRO_MPI_INSTALLATION"] = json.dumps(record)
    return env


def positive_number(text, option):
    if not re.fullmatch(r"[1-9][0-9]*", text):
        raise UserError(f"{option} {text} is not a positive number")
    return int(text)


def _set_overrides(passthrough):
    """Only the --set overrides of the pass-through arguments (all that matters for --get)."""
    sets = []
    for i, arg in enumerate(passthrough):
        if arg == "--set":
            sets += ["--set", passthrough[i + 1] if i + 1 < len(passthrough) else ""]
        elif arg.startswith("--set="):
            sets.append(arg)
    return sets


@dataclass
class Run:
    """One installation's part of a collrun: how to launch collbench, and where it writes."""

    label: str
    launcher: Launcher
    exe: str
    env: dict
    out: str


def _debian_run(mpi, opts, np):
    """--mpi openmpi|mpich: the Debian library through its launcher on PATH and build/<mpi>."""
    launcher = Launcher(mpi, oversubscribe=True, flags=os.environ.get("COLLRUN_LAUNCHER_FLAGS", "").split())
    if shutil.which(PROGRAMS[mpi]) is None:
        raise EnvironmentProblem(f"{PROGRAMS[mpi]} not found (install the {mpi} launcher: ./collrepro deps)")
    record = install_record()
    if record is not None and not opts["build_dir"] and record.get("mpi") != mpi:
        raise EnvironmentProblem(f"this installed tree's collbench is built with {record.get('mpi')}, not {mpi}: "
                                 f"use --mpi {record.get('mpi')}, or give --build-dir of a {mpi} build")
    exe = default_collbench(mpi, opts["build_dir"])
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        raise EnvironmentProblem(f"{exe} not found: build first (cmake --preset {mpi} && cmake --build --preset {mpi})")
    oversubscribed = np > len(os.sched_getaffinity(0))
    env = mpi_environment(mpi, oversubscribed=oversubscribed)
    try:
        env = installation_environment(registry.resolve(mpi), oversubscribed)
    except (registry.RegistryError, OSError):
        pass  # the run works without the record; its metadata then lacks the installation's name
    return Run(mpi, launcher, exe, env, opts["out"])


def _installation_run(name, opts, np, out):
    """An installation from the registry: its launcher, environment and build/<name>."""
    inst = registry.resolve(name)  # RegistryError (exit 2): names the installations known
    exe = (os.path.join(opts["build_dir"], "bench", "collbench") if opts["build_dir"]
           else installed_collbench.executable(inst))
    if not exe or not os.access(exe, os.X_OK):
        raise EnvironmentProblem(f"collbench is not built for {name}" + (f" ({exe} is missing)" if exe else "")
                                 + f": collrepro mpi collbench {name}")
    derived.check_ready(inst)  # a synthetic release whose library is missing would run undelayed
    for lib in inst.env.get("LD_PRELOAD", "").replace(":", " ").split():
        if not os.path.isfile(lib):  # the loader would skip it with a warning and run every call untouched
            raise EnvironmentProblem(f"{name}: the library it preloads, {lib}, is missing: build it first")
    launcher = Launcher(inst.kind, program=inst.launcher, oversubscribe=True,
                        flags=os.environ.get("COLLRUN_LAUNCHER_FLAGS", "").split())
    env = installation_environment(inst, oversubscribed=np > len(os.sched_getaffinity(0)))
    return Run(inst.name, launcher, exe, env, out)


def collrun_setup(opts):
    """Check the options; returns (the runs, one per installation, and the process count)."""
    if not opts["config"]:
        raise UserError("a CONFIG.yaml is required (see collrun --help)")
    if not os.path.isfile(opts["config"]):
        raise UserError(f"{opts['config']}: no such file")
    if opts["np"] == "auto":
        if opts.get("installations"):
            raise UserError("--np auto goes with --mpi; give --np N with --installations")
        return auto_sized(opts)
    np = positive_number(opts["np"], "--np")
    if opts.get("installations"):
        names = [n for n in opts["installations"].split(",") if n]
        if not names or len(set(names)) != len(names):
            raise UserError(f"--installations {opts['installations']}: give distinct names, comma-separated")
        if opts["build_dir"]:
            raise UserError("--build-dir goes with --mpi only (--installations uses build/<name> of each)")
        runs = [_installation_run(n, opts, np, "") for n in names]
        root = opts["out"] or os.path.join("results", config_value(runs[0], opts, "experiment"))
        for run in runs:
            run.out = os.path.join(root, run.label)
        return runs, np
    return [collbench_run(opts["mpi"], np, opts["build_dir"], opts["out"])], np


def auto_sized(opts):
    """--np auto: one process per core, the config's groups.ratios cut to those that fit that
    count (job_size.py), said in one line; returns ([the run], the process count)."""
    n_cores = job_size.cores()
    run = collbench_run(opts["mpi"], n_cores, opts["build_dir"], opts["out"])
    listed = config_value(run, opts, "groups.ratios")
    try:
        ratios = [str(r) for r in json.loads(listed)] if listed else []
    except (ValueError, TypeError):
        ratios = []  # not a list of ratios: collbench names the field when it reads it
    chosen = job_size.fit(ratios, n_cores)
    if chosen.np != n_cores:
        run = collbench_run(opts["mpi"], chosen.np, opts["build_dir"], opts["out"])
    if chosen.left_out:
        opts["passthrough"] = opts["passthrough"] + ["--set", f"groups.ratios=[{', '.join(chosen.ratios)}]"]
    say(f"--np auto: {chosen.line()}")
    return [run], chosen.np


def collbench_run(mpi, np, build_dir="", out=""):
    """How to launch collbench on `np` processes of `mpi` (a Debian library or an installation
    name): its launcher, executable and environment. Raises UserError (exit 2) for an unknown
    installation (the line names those known), EnvironmentProblem (exit 5) when the launcher or
    the collbench build is missing."""
    opts = {"build_dir": build_dir, "out": out}
    if mpi in MPIS:
        return _debian_run(mpi, opts, np)
    return _installation_run(mpi, opts, np, out)


def config_value(run, opts, key):
    """One effective config value (after --set), as collbench reads it; exits with its code."""
    proc = subprocess.run([run.exe, opts["config"], "--get", key] + _set_overrides(opts["passthrough"]),
                          env=run.env, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:  # collbench said why, in one line; its exit code is collrun's
        raise SystemExit(exit_code(proc.returncode))
    return proc.stdout.strip()


def say(message):
    print(f"collrun: {message}", file=sys.stderr, flush=True)
