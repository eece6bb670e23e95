"""The local runners: `collrepro-py run` (collrun: several launches of one experiment into one
results directory, resumable; with --installations, rounds over several MPI installations in a
fresh order each round) and `collrepro-py sweep` (one launch). How a launch is set up is runs.py;
the launcher and signal forwarding launcher.py; the environment mpienv.py.
"""

import argparse
import json
import os
import random
import re
import secrets
import sys

from collrepro import design, safeio
from collrepro.cliargs import ArgumentParser
from collrepro.launch.launcher import Forwarder
from collrepro.launch.runs import collrun_setup, config_value, say, positive_number
from collrepro.safeio import UserError

RUN_DESCRIPTION = """\
run a collbench experiment as L separate launches (separate mpirun invocations) on this
machine, into one results directory. Resumable: a re-run completes only what is missing
(collbench skips complete launches and finished points)."""
SWEEP_DESCRIPTION = """\
run collbench once (one launch) on N processes of an MPI library, with this machine's launch
environment; the exit code is collbench's."""
LAUNCH_EPILOG = """\
after --: passed to every collbench call (e.g. --set timing.reps=50 --quiet)
Extra launcher flags: COLLRUN_LAUNCHER_FLAGS="--bind-to core" collrepro run ...
Exit code: 0 when every launch completed, else the first failing launch's collbench code,
unchanged (2 config, 3 validation, 4 MPI failure / incomplete, 5 I/O or environment, 130/143
interrupted); the command's own errors are one line: 2 usage or configuration, 5 a launcher or
the collbench build missing."""


def _split_passthrough(argv):
    """argv -> (the command's own words, the words after the first `--`)."""
    argv = [str(a) for a in argv]
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    return argv, []


def _launch_parser(prog, description):
    """The options run and sweep share (one argument style for every verb: argparse, GNU long
    options, `--` before what is passed on)."""
    ap = ArgumentParser(prog=prog, description=description, epilog=LAUNCH_EPILOG,
                        usage="%(prog)s [options] CONFIG.yaml [-- collbench args...]",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mpi", default="openmpi",
                    help="openmpi or mpich (default openmpi): the launcher (mpirun.openmpi with --oversubscribe, "
                         "or mpiexec.mpich) and the build dir build/<mpi> (installed: the installed collbench); "
                         "or an installation name (collrepro mpi list): its launcher, environment and build/<name>")
    ap.add_argument("--np", default="8",
                    help="processes per launch (default 8); auto: one per core, the config's groups.ratios cut to "
                         "those that fit, said in one line (job_size.py)")
    ap.add_argument("--out", default="",
                    help="result directory (default: collbench's results/<experiment>/<impl>-<version>)")
    ap.add_argument("--build-dir", default="", help="the CMake build directory holding bench/collbench")
    ap.add_argument("config", nargs="?", metavar="CONFIG.yaml")
    return ap


def _collrun_options(argv):
    """collrun's command line -> dict of options; raises UserError (exit 2)."""
    own, passthrough = _split_passthrough(argv)
    ap = _launch_parser("collrun", RUN_DESCRIPTION)
    ap.add_argument("--launches", default="",
                    help="number of launches (default: the config's `launches`, after --set overrides; with "
                         f"--installations at least {design.ROUNDS}, the calibrated rounds of a verdict)")
    ap.add_argument("--installations", default="", metavar="NAME[,NAME...]",
                    help="run the experiment against each installation, into <out>/<name>/ (default out: "
                         "results/<experiment>); collbench must be built for each (collrepro mpi collbench NAME). "
                         "Launch l of every installation runs in round l, in an order drawn afresh for each round")
    ap.add_argument("--order-seed", default="", metavar="N",
                    help="with --installations: the seed of the rounds' orders (default: a fresh one, printed); "
                         "each launch's metadata records it (launch_order)")
    opts = vars(ap.parse_args(own))
    opts["config"] = opts["config"] or ""
    opts["passthrough"] = passthrough
    return opts


def round_order(names, seed, round_index):
    """The order of `names` in round `round_index`: a permutation drawn from (seed, round) alone,
    so a re-run with the same seed repeats it, whatever rounds it runs."""
    return random.Random(f"collrepro-launch-order:{seed}:{round_index}").sample(list(names), len(names))


def _order_seed(opts):
    """--order-seed, or a fresh seed (printed, so that the orders can be repeated)."""
    if opts.get("order_seed"):
        if not re.fullmatch(r"[0-9]{1,18}", opts["order_seed"]):
            raise UserError(f"--order-seed {opts['order_seed'][:60]} is not a whole number (0 to 10^18 - 1)")
        return int(opts["order_seed"])
    return secrets.randbelow(1 << 31)


def _failed(run, launch, rc):
    then = ("fix what collbench says above, then re-run: finished launches are kept"
            if rc in (safeio.EXIT_BAD_INPUT, safeio.EXIT_VALIDATION) else "re-run to resume")
    say(f"[{run.label}] launch {launch} failed with exit code {rc}; {then}")
    return rc


def _run_one(run, np, opts, launch, launches, fwd, env=None):
    """One launch of one installation; returns its exit code (128 + N after signal N)."""
    if fwd.received is not None:
        say(f"interrupted before launch {launch}; finished points are kept, re-run to complete")
        return fwd.interrupt_code()
    out = ["--out", run.out] if run.out else []
    cmd = run.launcher.command(np, [run.exe, opts["config"], "--launch", launch] + out + opts["passthrough"])
    say(f"[{run.label}] launch {launch} of {launches}: {' '.join(cmd)}")
    rc = fwd.run(cmd, env or run.env)
    if fwd.received is not None:
        say(f"interrupted during launch {launch}; finished points are kept, re-run to complete")
        return fwd.interrupt_code()
    return _failed(run, launch, rc) if rc != 0 else 0


def _run_launches(run, np, opts, launches, fwd):
    """The launch loop of one installation; returns its exit code."""
    for launch in range(launches):
        rc = _run_one(run, np, opts, launch, launches, fwd)
        if rc != 0:
            return rc
    say(f"[{run.label}] {launches} launch(es) complete" + (f" in {run.out}" if run.out else ""))
    return 0


def _run_rounds(runs, np, opts, launches, fwd):
    """--installations: round l runs launch l of every installation, in round_order; each launch's
    environment carries COLLREPRO_LAUNCH_ORDER, which collbench records (launch_order)."""
    seed = _order_seed(opts)
    by_label = {run.label: run for run in runs}
    labels = [run.label for run in runs]
    say(f"launch order: seed {seed}, a fresh permutation each round (--order-seed {seed} repeats it)")
    for launch in range(launches):
        order = round_order(labels, seed, launch)
        say(f"round {launch}: {' '.join(order)}")
        for slot, label in enumerate(order):
            run = by_label[label]
            env = dict(run.env)
            env["COLLREPRO_LAUNCH_ORDER"] = json.dumps(
                {"seed": seed, "round": launch, "slot": slot, "of": len(order), "order": order})
            rc = _run_one(run, np, opts, launch, launches, fwd, env)
            if rc != 0:
                return rc
    say(f"{launches} round(s) of {len(runs)} installation(s) complete"
         + (f" in {os.path.dirname(runs[0].out)}" if runs[0].out else ""))
    return 0


def collrun(argv=None):
    """collrepro run (bench/collrun): parse its command line, run the launches; returns the exit
    code (the first failing launch's collbench code, unchanged). Its own errors are raised as
    UserError (exit 2) or EnvironmentProblem (exit 5), before any launch: run it through
    safeio.run_cli (run_main)."""
    opts = _collrun_options(sys.argv[1:] if argv is None else argv)
    if opts["order_seed"] and not opts["installations"]:
        raise UserError("--order-seed goes with --installations (the order of installations in each round)")
    runs, np = collrun_setup(opts)
    launches = positive_number(opts["launches"] or config_value(runs[0], opts, "launches"), "--launches")
    if opts["installations"] and not opts["launches"] and launches < design.ROUNDS:
        say(f"--installations: {design.ROUNDS} rounds, the calibrated rounds of a verdict (docs/verdicts.md), "
            f"not the config's {launches}; --launches N to choose")
        launches = design.ROUNDS
    with Forwarder() as fwd:
        if opts["installations"]:
            return _run_rounds(runs, np, opts, launches, fwd)
        return _run_launches(runs[0], np, opts, launches, fwd)


def sweep(argv=None):
    """collrepro sweep: one collbench launch; returns collbench's exit code."""
    own, passthrough = _split_passthrough(sys.argv[1:] if argv is None else argv)
    opts = vars(_launch_parser("sweep", SWEEP_DESCRIPTION).parse_args(own))
    opts["config"] = opts["config"] or ""
    opts["passthrough"] = passthrough
    (run,), np = collrun_setup(opts)
    out = ["--out", run.out] if run.out else []
    cmd = run.launcher.command(np, [run.exe, opts["config"]] + out + passthrough)
    print(f"[sweep] {' '.join(cmd)}", file=sys.stderr, flush=True)
    with Forwarder() as fwd:
        rc = fwd.run(cmd, run.env)
        return fwd.interrupt_code() if fwd.received is not None else rc


def run_main(argv=None):
    """collrepro run: collrun through safeio.run_cli."""
    return safeio.run_cli("collrun", collrun, argv)


def sweep_main(argv=None):
    """collrepro sweep: sweep through safeio.run_cli."""
    return safeio.run_cli("sweep", sweep, argv)
