"""collmpi: the MPI installations collrepro knows (list, show, add, remove), source builds of
other releases (build), and collbench built for each (collbench)."""

import argparse
import json
import shlex
import sys

from .. import paths, safeio
from ..cliargs import ArgumentParser
from . import build as builder
from . import collbench, derived, probe, registry
from .recipes import RecipeError, buildable, parse_spec

EPILOG = """\
examples:
  bench/collmpi list
  bench/collmpi build openmpi@5.0.7 mpich@3.4.1     # or: bench/collmpi build --missing
  bench/collmpi add openmpi-4.1.6 --prefix /opt/openmpi/4.1.6
  bench/collmpi collbench openmpi-5.0.7             # build/openmpi-5.0.7/bench/collbench
  bench/collmpi collbench --all
  bench/collmpi derive openmpi-4.1.4+slow10 --from openmpi-4.1.4 --delay 'allgather:>=64KiB:+10%'
  bench/collmpi derive openmpi-4.1.4+aa --from openmpi-4.1.4    # an A/A copy
Exit codes (one line on stderr for every failure): 0 done; 2 bad input (a name, a spec, a prefix,
a damaged registry file); 5 a build step, probe or download failed (the line names its log);
130/143 interrupted (an unfinished build is never used)."""


def _cmd_list(args):
    rows = []
    for inst in registry.all_installations():
        try:
            ident = registry.identity(derived.base_of(inst), refresh=args.refresh).splitlines()[0]
        except probe.ProbeError as e:
            ident = f"(probe failed: {e})"
        built = "yes" if collbench.executable(inst) else "no"
        rows.append((inst.name, inst.kind, inst.version, inst.origin, built, inst.prefix, ident))
    head = ("name", "kind", "version", "origin", "collbench", "prefix", "identity (MPI_Get_library_version)")
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(6)]
    for r in [head] + rows:
        print("  ".join(c.ljust(w) for c, w in zip(r[:6], widths)) + "  " + r[6])
    return 0


def _cmd_show(args):
    inst = registry.resolve(args.name)
    data = inst.to_json()
    data["collbench"] = collbench.executable(inst) or ""
    print(json.dumps(data, indent=2, sort_keys=True))
    return 0


def _cmd_env(args):
    inst = registry.resolve(args.name)
    for key, value in inst.env.items():
        if key in ("PATH", "LD_LIBRARY_PATH"):
            print(f"export {key}={shlex.quote(value)}${{{key}:+:${key}}}")
        else:
            print(f"export {key}={shlex.quote(value)}")
    return 0


def _cmd_add(args):
    inst = registry.add(args.name, args.prefix, kind=args.kind)
    print(f"{inst.name}: {inst.kind} {inst.version} at {inst.prefix} (registered in {registry.registry_file()})")
    return 0


def _cmd_remove(args):
    registry.remove(args.name)
    print(f"{args.name}: removed from {registry.registry_file()}")
    return 0


def _cmd_build(args):
    if args.missing == bool(args.specs):
        raise RecipeError("build: give KIND@VERSION... or --missing (every buildable release not yet built)")
    recipes = buildable() if args.missing else [parse_spec(s) for s in args.specs]
    for recipe in recipes:
        inst, seconds = builder.build(recipe, jobs=args.jobs)
        what = f"built in {seconds:.0f} s" if seconds else "already built"
        print(f"{inst.name}: {what}, prefix {inst.prefix}")
    return 0


def _cmd_collbench(args):
    paths.checkout_only("collmpi collbench")
    if args.all == bool(args.names):
        raise registry.RegistryError("collbench: give NAME... or --all")
    insts = registry.all_installations() if args.all else [registry.resolve(n) for n in args.names]
    builds = {}  # base name -> [installation, with the PMPI library?, the names it serves]
    for inst in insts:
        base = derived.base_of(inst)
        entry = builds.setdefault(base.name, [base, False, []])
        entry[1] = entry[1] or args.pmpi or bool(derived.preloaded_library(inst))
        entry[2].append(inst.name)
    for base, pmpi, names in builds.values():
        exe = collbench.build(base, builder.build_env(base), jobs=args.jobs, pmpi=pmpi)
        for name in names:
            print(f"{name}: {exe} (libmpi: {collbench.linked_library(exe, builder.build_env(base))})"
                  + (f", preloads {derived.pmpi_library(base)}" if name != base.name and pmpi else "")
                  + (f", PMPI library {derived.pmpi_library(base)}" if name == base.name and pmpi else ""))
    return 0


def _cmd_derive(args):
    inst = registry.derive(args.name, args.base, delay=args.delay, preload=True if args.preload else None)
    what = (f"COLLREPRO_PMPI_DELAY={args.delay}" if args.delay else
            "the PMPI library preloaded, no delay" if args.preload else "no change: an A/A copy")
    print(f"{inst.name}: {inst.base} with {what} (declared in {registry.registry_file()}; "
          f"build it with `bench/collmpi collbench {inst.name}`)")
    return 0


def parser():
    p = ArgumentParser(prog="collmpi", description=__doc__, epilog=EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("list", help="name, kind, version, origin, collbench built?, prefix, identity")
    c.add_argument("--refresh", action="store_true", help="probe the identity strings again")
    c.set_defaults(func=_cmd_list)
    c = sub.add_parser("show", help="one installation as JSON")
    c.add_argument("name")
    c.set_defaults(func=_cmd_show)
    c = sub.add_parser("env", help="shell lines that load an installation's environment")
    c.add_argument("name")
    c.set_defaults(func=_cmd_env)
    c = sub.add_parser("add", help="register an existing installation (a module, a Spack prefix)")
    c.add_argument("name", help="<kind>-<version>, e.g. openmpi-4.1.6")
    c.add_argument("--prefix", required=True, help="the directory holding bin/, include/ and lib/")
    c.add_argument("--kind", choices=("openmpi", "mpich"), help="the kind the prefix must hold")
    c.set_defaults(func=_cmd_add)
    c = sub.add_parser("derive", help="declare an installation as another one plus an environment "
                                      "(a synthetic release: the PMPI library's delay mode; an A/A copy)")
    c.add_argument("name", help="<base>+<tag>, e.g. openmpi-4.1.4+slow10")
    c.add_argument("--from", dest="base", required=True, metavar="BASE", help="the installation it is derived from")
    c.add_argument("--delay", default="", metavar="RULES",
                   help="COLLREPRO_PMPI_DELAY rules, e.g. 'allgather:>=64KiB:+10%%' (interpose/README.md); "
                        "none: an A/A copy")
    c.add_argument("--preload", action="store_true",
                   help="preload the PMPI library without --delay too (a placebo: its pass-through cost)")
    c.set_defaults(func=_cmd_derive)
    c = sub.add_parser("remove", help="forget an added or derived installation (its files stay)")
    c.add_argument("name")
    c.set_defaults(func=_cmd_remove)
    c = sub.add_parser("build", help="build MPI releases from their Debian source packages")
    c.add_argument("specs", nargs="*", metavar="KIND@VERSION")
    c.add_argument("--missing", action="store_true",
                   help="every release build knows (" + ", ".join(f"{r.kind}@{r.version}" for r in buildable()) + ")")
    c.add_argument("--jobs", type=int, default=2)
    c.set_defaults(func=_cmd_build)
    c = sub.add_parser("collbench", help="configure and build collbench in build/<name>/")
    c.add_argument("names", nargs="*", metavar="NAME")
    c.add_argument("--all", action="store_true", help="for every known installation")
    c.add_argument("--jobs", type=int, default=2)
    c.add_argument("--pmpi", action="store_true",
                   help="the PMPI library too (build/<name>/interpose/libcollrepro_pmpi.so: collrepro-py fuzz "
                        "runs the project's algorithms through it)")
    c.set_defaults(func=_cmd_collbench)
    return p


def main(argv=None):
    """collmpi's command line; raises UserError (exit 2) or EnvironmentProblem (exit 5): run it
    through safeio.run_cli (SIGTERM then raises safeio.Terminated, which stops a build's steps)."""
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("collmpi: interrupted (SIGINT); an unfinished build is never used, run the command again",
              file=sys.stderr)
        return safeio.EXIT_SIGINT
    except safeio.Terminated:
        print("collmpi: terminated (SIGTERM); an unfinished build is never used, run the command again",
              file=sys.stderr)
        return safeio.EXIT_SIGTERM
