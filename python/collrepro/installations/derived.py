"""Derived installations: another installation plus an environment, for calibrating the verdicts.

`openmpi-4.1.4+slow10` is openmpi-4.1.4 launched with the PMPI library of that installation's
build preloaded (`build/<base>/interpose/libcollrepro_pmpi.so`, or the preset's
`build/<kind>/` for a Debian library, the directory holding the collbench it runs) and
COLLREPRO_PMPI_DELAY set: a synthetic release, slower by a known fraction at known points
(installations/delay.py says which). `openmpi-4.1.4+aa` (no delay) is the same installation
launched separately: an A/A copy. `--preload` without `--delay` preloads the library with every
call passed on (a placebo: the library's pass-through cost without a delay). A preloaded library
always runs with COLLREPRO_PMPI_DISABLE=1: it never replaces a call by an algorithm, and the
delay still applies.

A derived installation runs through exactly the same path as a real one: collrun
--installations, versions, Slurm, trend. It has its base's kind, version, prefix, wrappers and
launcher; its metadata record (`mpi_installation`) adds `origin: derived`, `base` and `delay`,
and its results directory is `<experiment>/<name>/`. The trend orders installations by
(impl, version, name): a derived one follows its base (`openmpi-4.1.4` < `openmpi-4.1.4+aa` <
`openmpi-4.1.4+slow10`), within the base's library.

The declarations live in the registry file (registry.py) under "derived":
    {"name": "openmpi-4.1.4+slow10", "base": "openmpi-4.1.4", "delay": "allgather:>=64KiB:+10%",
     "preload": true}
"""

import os
import re
from dataclasses import replace

from ..safeio import UserError
from . import collbench
from . import delay as delays
from .model import Installation

TAG_RE = re.compile(r"[a-z0-9][a-z0-9.-]{0,31}")
LIBRARY = os.path.join("interpose", "libcollrepro_pmpi.so")


class DerivedError(UserError, RuntimeError):
    """One line naming the derived installation and the fix."""


def check_declaration(entry, where):
    """A registry entry {name, base, delay, preload} checked; DerivedError (one line) when not."""
    if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("name", "base")):
        raise DerivedError(f"{where}: not a derived installation (want name, base, and optionally delay, preload)")
    name, base = entry["name"], entry["base"]
    tag = name[len(base) + 1:] if name.startswith(base + "+") else ""
    if not TAG_RE.fullmatch(tag):
        raise DerivedError(f"{where}: the name '{name[:60]}' is not <base>+<tag> with base '{base[:60]}' and a tag "
                           "of lower-case letters, digits, '.' and '-' (e.g. openmpi-4.1.4+slow10)")
    rule = entry.get("delay", "")
    if not isinstance(rule, str):
        raise DerivedError(f"{where}: delay is not a string of COLLREPRO_PMPI_DELAY rules")
    try:
        delays.parse(rule)
    except delays.DelayError as e:
        raise DerivedError(f"{where}: {e}") from None
    if not isinstance(entry.get("preload", bool(rule)), bool):
        raise DerivedError(f"{where}: preload is not true or false")
    return {"name": name, "base": base, "delay": rule, "preload": bool(entry.get("preload", bool(rule)))}


def pmpi_library(base: Installation, repo=collbench.REPO):
    """The PMPI library of `base` in this clone: beside the collbench that runs for it (build/<name>/,
    or build/<kind>/ for a Debian library), else where build/<name>/ would put it."""
    exe = collbench.executable(base, repo)
    build = os.path.dirname(os.path.dirname(exe)) if exe else collbench.build_dir(base, repo)
    return os.path.join(build, LIBRARY)


def derive(base: Installation, declaration, repo=collbench.REPO):
    """The Installation a checked declaration describes, on top of `base`."""
    env = dict(base.env)
    if declaration["delay"]:
        env["COLLREPRO_PMPI_DELAY"] = declaration["delay"]
    if declaration["preload"]:
        env["LD_PRELOAD"] = pmpi_library(base, repo)
        env["COLLREPRO_PMPI_DISABLE"] = "1"  # no algorithm replaces a call: a placebo stays one
    inst = replace(base, name=declaration["name"], env=env, origin="derived", base=base.name,
                   delay=declaration["delay"])
    inst.base_installation = base  # not a field: collbench, builds and probes use the base
    return inst


def base_of(inst: Installation):
    """The installation `inst` is derived from, or `inst` itself."""
    return getattr(inst, "base_installation", None) or inst


def preloaded_library(inst: Installation):
    """The library a derived installation preloads ('' when none)."""
    return inst.env.get("LD_PRELOAD", "") if inst.origin == "derived" else ""


def check_ready(inst: Installation):
    """Before a launch: the preloaded library must exist, or a synthetic release would run
    undelayed. CollbenchError (exit 5) names the command that builds it."""
    lib = preloaded_library(inst)
    if lib and not os.path.isfile(lib):
        raise collbench.CollbenchError(f"{inst.name}: {lib} is missing (the PMPI library of {inst.base}): "
                                       f"collrepro mpi collbench {inst.name}")
