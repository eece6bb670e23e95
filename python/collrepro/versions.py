"""collrepro versions: one experiment on every known MPI installation, interleaved launch by
launch, then its trend, guideline and dashboard pages (`./collrepro versions` builds first).

Steps: the missing source builds (collrepro mpi build --missing), collbench for each
installation (collrepro mpi collbench --all), launch 1..L of CONFIG on every installation in
turn (collrepro run --installations ...), then analyze trend, guidelines and dashboard into
<out>-reports/. A re-run resumes: finished launches and points are kept.
"""

import contextlib
import io
import os
import shutil
import subprocess
import sys

from collrepro import launch, safeio
from collrepro.cliargs import ArgumentParser
from collrepro.installations import cli as installations_cli
from collrepro.installations import registry

PROG = "versions"
DEFAULT_CONFIG = os.path.join("configs", "versions", "seed001.yaml")


def _say(message):
    print(f"[{PROG}] {message}", file=sys.stderr, flush=True)


def _parser():
    ap = ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("config", nargs="?", metavar="CONFIG.yaml",
                    help=f"the experiment (default {DEFAULT_CONFIG})")
    ap.add_argument("--np", default=os.environ.get("COLLREPRO_NP", "4"),
                    help="processes per launch (default $COLLREPRO_NP, else 4)")
    ap.add_argument("--launches", default=os.environ.get("COLLREPRO_LAUNCHES", "5"),
                    help="launches per installation (default $COLLREPRO_LAUNCHES, else 5; 4 or more for verdicts)")
    ap.add_argument("--out", default="", help="results directory (default results/local/versions/<experiment>)")
    return ap


def _analyze(argv):
    """analyze ARGV with its report lines on stdout left out; its exit code."""
    from collrepro.analysis import cli as analysis_cli
    with contextlib.redirect_stdout(io.StringIO()):
        return analysis_cli.main(argv)


def _findings(step, rc, where):
    """Say what a trend or guideline report found; False when the step failed."""
    if rc == safeio.EXIT_FINDING:
        _say(f"{step}: significant findings, see {where}/{step}.md")
    elif rc == safeio.EXIT_INCOMPLETE:
        _say(f"{step}: too few launches for some verdicts (4 per installation are needed), see {where}/{step}.md")
    return rc in (safeio.EXIT_OK, safeio.EXIT_FINDING, safeio.EXIT_INCOMPLETE)


def main(argv=None):
    """The exit code of `collrepro versions ARGV`: the first failing step's code, else 0 (a
    trend or guideline finding is reported, not returned)."""
    a = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    config = a.config or os.path.join(launch.REPO, DEFAULT_CONFIG)
    if not os.path.isfile(config):
        raise safeio.UserError(f"config not found: {config} (give a YAML experiment, e.g. {DEFAULT_CONFIG})")
    launches = launch.positive_number(a.launches, "--launches")
    np = launch.positive_number(a.np, "--np")
    for step in (["build", "--missing"], ["collbench", "--all"]):
        rc = safeio.run_cli("collmpi", installations_cli.main, step)
        if rc:
            return rc
    names = ",".join(i.name for i in registry.all_installations())
    name = os.path.splitext(os.path.basename(config))[0]
    out = a.out or os.path.join(launch.REPO, "results", "local", "versions", name)
    _say(f"running {config} on {names} into {out} ({launches} launches each, interleaved)")
    for last in range(1, launches + 1):
        rc = safeio.run_cli("collrun", launch.collrun, [
            "--installations", names, "--np", str(np), "--launches", str(last), "--out", out, config,
            "--", "--quiet", "--set", f"launches={launches}"])
        if rc:
            return rc
    reports = out.rstrip(os.sep) + "-reports"
    for step in ("trend", "guidelines"):
        rc = _analyze([step, out, "-o", os.path.join(reports, step)])
        if not _findings(step, rc, os.path.join(reports, step)):
            _say(f"analyze {step} failed (exit {rc}, the README's exit codes)")
            return rc
    rc = _analyze(["dashboard", out, "-o", os.path.join(reports, "dashboard")])
    if rc:
        return rc
    page = os.path.join(os.path.abspath(reports), "dashboard", "index.html")
    _say(f"done: dashboard at file://{page}")
    if os.environ.get("DISPLAY") and shutil.which("xdg-open"):
        subprocess.call(["xdg-open", page])
    return 0
