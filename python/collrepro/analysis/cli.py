"""Command line: analyze <subcommand> ... (see analysis/README.md)."""

import argparse
import contextlib
import os
import shutil
import sys
from pathlib import Path

from .. import safeio
from collrepro.analysis.loading.errors import InputError

# The subcommands import pandas/matplotlib lazily, so that --help is instant.

PROG = "analyze: error"   # run_cli's prefix: every error is one line `analyze: error: ...`
EXIT_REGRESSION = safeio.EXIT_FINDING      # compare and trend: a significant slowdown;
                                           # guidelines: a violation
EXIT_BAD_INPUT = safeio.EXIT_BAD_INPUT     # usage, or unreadable or damaged input: one line
EXIT_INCOMPLETE = safeio.EXIT_INCOMPLETE   # some point has fewer repetitions or launches than
                                           # its metadata promises, or a verdict was refused
                                           # for too few launches


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line (exit 2 through safeio.run_cli), not the usage
    text followed by the error."""

    def error(self, message):
        raise InputError(f"{message}; see `{self.prog} --help`")


# ---------------------------------------------------------------- output, whole or not at all

def check_target(path):
    """Refuse, before anything is loaded, an output directory that analyze may not replace."""
    safeio.check_output_dir(path, "analyze")


@contextlib.contextmanager
def writing(path):
    """Turn a failed write (no space, permission) under `path` into one line, exit 5."""
    try:
        yield
    except OSError as err:
        raise safeio.EnvironmentProblem(safeio.os_error_line(err, "write", path)) from None


def _link_or_copy(source, target):
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError:
        shutil.copy2(source, target, follow_symlinks=False)


def carry_over(previous, staging):
    """Give the staging directory the previous directory's entries it did not write itself
    (hard links where possible), so that commands sharing one directory keep each other's files."""
    if not previous.is_dir():
        return
    for entry in sorted(previous.iterdir()):
        target = staging / entry.name
        if entry.name == safeio.OWNER_MARKER or target.exists() or target.is_symlink():
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, target, symlinks=True, copy_function=_link_or_copy)
        else:
            _link_or_copy(entry, target)


@contextlib.contextmanager
def output_dir(path, owner, keep_others=False):
    """Build the output directory `path` aside and swap it in whole (safeio.atomic_dir): a fault
    or a SIGTERM before the swap leaves the previous directory as it was, and temporaries of a
    killed run are removed by the next one. keep_others: the new directory also keeps the
    previous one's files that this run did not write (figure sets and overlays can share one)."""
    path = Path(path)
    with writing(path), safeio.atomic_dir(path, owner) as staging:
        yield staging
        if keep_others:
            carry_over(path, staging)


def write_csv(path, frame):
    """One CSV file, whole or not at all."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: is a directory; give a file name")
    with writing(path):
        safeio.write_csv(path, frame)


def _moved(paths, staging, outdir):
    """The paths of files written into the staging directory, as they are after the swap."""
    return [Path(outdir) / Path(p).relative_to(staging) for p in paths]


def _dirs(parser, name="dirs", help_text="result directories (raw-*.csv, summary-*.csv, meta-*.json)"):
    parser.add_argument(name, nargs="+", type=Path, metavar="DIR", help=help_text)


def _outdir(parser):
    parser.add_argument("-o", "--outdir", type=Path, required=True, metavar="OUTDIR",
                        help="output directory (created if missing)")


def _test_options(parser):
    parser.add_argument("--threshold", type=float, default=0.05,
                        help="least relative change that counts; a point's noise floor can raise it (default 0.05 = 5%%)")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="false-discovery rate of the Benjamini-Hochberg correction (default 0.05)")
    parser.add_argument("--min-launches", type=int, default=None, metavar="N",
                        help="launches needed per side for a verdict (default: the least that can "
                             "reach p < alpha, 4 for alpha=0.05)")


def gate(verdicts, failing):
    """The exit code of a gating command from its verdicts: EXIT_REGRESSION when any is in
    `failing`, else EXIT_INCOMPLETE when any was refused ('insufficient'), else 0."""
    verdicts = set(verdicts)
    if verdicts & set(failing):
        return EXIT_REGRESSION
    return EXIT_INCOMPLETE if "insufficient" in verdicts else 0


def _need(args):
    from collrepro.analysis.verdicts import stats
    return stats.min_launches(args.alpha) if args.min_launches is None else args.min_launches


def _refused_line(table, need, what="points"):
    """One line per kind of verdict refused for too few launches (`inconclusive` with the reason
    `too few launches` in the written files, stats.gate_labels calls them 'insufficient'; never
    findings): fewer than `need` a side, or too few for an interval at the family's level."""
    from collrepro.analysis.verdicts import stats
    refused = stats.gate_labels(table) == "insufficient"
    reasons = table["reason"].astype(str)
    short = int((refused & reasons.str.startswith(f"{stats.REFUSED}:")).sum())
    level = int(refused.sum()) - short
    if short:
        print(f"analyze: warning: {short} of {len(table)} {what} have fewer than {need} launches "
              f"on a side: no verdict ('inconclusive: too few launches'; exit {EXIT_INCOMPLETE} unless there is a "
              f"finding); re-run them with --launches {need} or more", file=sys.stderr)
    if level:
        print(f"analyze: warning: {level} of {len(table)} {what} have too few launches for an interval at "
              f"their family's level (unpaired, exact Hodges-Lehmann; the reason says how many reach it): "
              f"no verdict (exit {EXIT_INCOMPLETE} unless there is a finding); re-run them with that many "
              f"launches, or run the sides in the same rounds (paired)", file=sys.stderr)


def _counts_line(verdicts):
    counts = verdicts.value_counts().to_dict()
    print("# " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())), file=sys.stderr)


def _order(parser):
    parser.add_argument("--order", choices=["version", "date"], default="version",
                        help="installations of one library in natural version order (default) or "
                             "by their earliest meta start_utc (nightly builds)")


SHARED_OWNER = "analyze figure/overlay"   # figure sets and overlays may share one directory


def _print_paths(paths):
    for path in paths:
        print(path)


# ---------------------------------------------------------------- subcommands

def cmd_aggregate(args):
    from collrepro.analysis.loading import loader
    from collrepro.analysis.frames.aggregate import aggregate, per_launch, speedups
    rs = loader.load(args.dirs)
    agg = aggregate(rs)
    if args.per_launch:
        write_csv(args.per_launch, per_launch(rs))
    if args.speedups:
        write_csv(args.speedups, speedups(agg))
    if args.output:
        write_csv(args.output, agg)
        _print_paths([p for p in (args.output, args.per_launch, args.speedups) if p])
    else:
        agg.to_csv(sys.stdout, index=False)
    return 0


def cmd_figure(args):
    from collrepro.analysis.loading import loader
    from collrepro.analysis.figures import figures
    from collrepro.analysis.frames.aggregate import aggregate
    check_target(args.outdir)
    rs = loader.load(args.dirs)
    options = {"baseline": args.baseline} if args.set == "seed001" and args.baseline else {}
    with output_dir(args.outdir, SHARED_OWNER, keep_others=True) as staging:
        figs = figures.build_and_save(args.set, aggregate(rs), rs.metas, staging, **options)
        if not figs:
            raise InputError(f"no data for any {args.set} figure")
        paths = _moved([p for fo in figs for p in fo.paths], staging, args.outdir)
    _print_paths(paths)
    return 0


def cmd_overlay(args):
    from collrepro.analysis.figures import overlay
    from collrepro.analysis.loading import loader
    from collrepro.analysis.frames.aggregate import aggregate
    check_target(args.outdir)
    rs = loader.load(args.dirs)
    with output_dir(args.outdir, SHARED_OWNER, keep_others=True) as staging:
        paths, _, fits, _ = overlay.run(aggregate(rs), rs.metas, staging, args.source, args.weight)
        paths = _moved(paths, staging, args.outdir)
    for fit in fits.itertuples():
        print(f"# {fit.mpi_impl} {fit.mpi_version} nprocs={fit.nprocs}: alpha={fit.alpha_s:.4g} s "
              f"beta={fit.beta_s_per_byte:.4g} s/B (rms rel. residual {fit.rms_rel_residual:.3g})",
              file=sys.stderr)
    _print_paths(paths)
    return 0


def cmd_compare(args):
    from collrepro.analysis.verdicts import compare
    from collrepro.analysis.verdicts import stats
    from collrepro.analysis.loading import loader
    from collrepro.analysis.verdicts import verdicts
    check_target(args.outdir)
    rs_a, rs_b = loader.load([args.a]), loader.load([args.b])
    with output_dir(args.outdir, "analyze compare") as staging:
        _, paths, _, table = compare.run(rs_a, rs_b, staging, args.alpha, args.threshold, args.min_launches)
        paths = _moved(paths, staging, args.outdir)
    _counts_line(table["verdict"])
    _refused_line(table, _need(args))
    _print_paths(paths)
    return gate(stats.gate_labels(table), [verdicts.REGRESSION])


def cmd_trend(args):
    from collrepro.analysis.verdicts import trend
    from collrepro.analysis.verdicts import stats
    from collrepro.analysis.loading import inventory
    from collrepro.analysis.verdicts import verdicts
    check_target(args.outdir)
    entries = inventory.load_tree(args.dirs)
    with output_dir(args.outdir, "analyze trend") as staging:
        paths, _, table = trend.run(entries, staging, args.order, args.alpha, args.threshold,
                                    args.min_launches, args.pool)
        paths = _moved(paths, staging, args.outdir)
    _counts_line(table["verdict"])
    _refused_line(table, _need(args))
    _print_paths(paths)
    return gate(stats.gate_labels(table), [verdicts.REGRESSION])


def cmd_guidelines(args):
    from collrepro.analysis.verdicts import guidelines
    from collrepro.analysis.verdicts import stats
    from collrepro.analysis.loading import inventory
    from collrepro.analysis.verdicts import verdicts
    check_target(args.outdir)
    entries = inventory.load_tree(args.dirs)
    with output_dir(args.outdir, "analyze guidelines") as staging:
        paths, table = guidelines.run(entries, staging, args.alpha, args.threshold, args.min_launches)
        paths = _moved(paths, staging, args.outdir)
    _counts_line(table["status"])
    _refused_line(table, _need(args), "checks")
    _print_paths(paths)
    return gate(stats.gate_labels(table), [verdicts.REGRESSION])


def cmd_dashboard(args):
    import importlib.util
    if importlib.util.find_spec("plotly") is None:
        raise safeio.EnvironmentProblem("the dashboard needs plotly (Debian's python3-plotly): "
                                        "apt-get install python3-plotly, or run ./collrepro deps")
    from collrepro.analysis.loading import inventory
    from collrepro.analysis.dashboard import page as dashboard
    dashboard.check_target(args.outdir)            # before loading anything
    entries = inventory.load_tree(args.dirs)
    with writing(args.outdir):
        index = dashboard.build(entries, args.outdir, args.order, args.alpha, args.threshold,
                                args.min_launches)
    _print_paths([index])
    return 0


def cmd_migrate(args):
    from collrepro.analysis.loading import migrate
    for directory in args.dirs:
        with writing(directory):
            paths, warnings = migrate.migrate_dir(directory)
        for line in warnings:
            print(line, file=sys.stderr)
        if not paths:
            print(f"# {directory}: already in the current contract version", file=sys.stderr)
        _print_paths(paths)
    return 0


def cmd_report(args):
    from collrepro.analysis import report
    from collrepro.analysis.loading import loader
    check_target(args.outdir)
    rs = loader.load(args.dirs)
    with output_dir(args.outdir, "analyze report") as staging:
        path = report.run(rs, staging, args.format)
    _print_paths(_moved([path], staging, args.outdir))
    return 0


# ---------------------------------------------------------------- parser

def _tree_command(sub, name, func, help_text, description, order=True):
    """A subcommand over result directories or results trees, with the test options."""
    p = sub.add_parser(name, help=help_text, description=description)
    _dirs(p, help_text="result directories or results trees (<experiment>/<installation>/)")
    if order:
        _order(p)
    _outdir(p)
    _test_options(p)
    p.set_defaults(func=func)
    return p

def build_parser():
    parser = Parser(
        prog="analyze", description="collrepro analysis: aggregate, figures, cost-model overlay, "
        "compare, trend, guidelines, dashboard and report over result directories "
        "(results/CONTRACT.md). Exit codes: 0 ok, 1 regression (compare, trend) or guideline "
        "violation (guidelines), 2 usage error or unreadable, damaged or oversized input, 4 a verdict "
        "refused for too few launches, or some point has fewer repetitions or launches than its "
        "metadata promises, 5 a write failed (no space, permission) or a dependency is missing, "
        "70 a bug, 130/143 interrupted (SIGINT/SIGTERM). Every output directory is replaced whole "
        "or not at all.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND")

    p = sub.add_parser("aggregate", help="per-point median of per-launch Tukey medians (CSV)",
                       description="Tukey-filtered per-launch medians, then median/min/max across "
                       "launches, one row per point.")
    _dirs(p)
    p.add_argument("-o", "--output", type=Path, help="aggregated CSV (default: stdout)")
    p.add_argument("--per-launch", type=Path, metavar="FILE", help="also write per-launch statistics")
    p.add_argument("--speedups", type=Path, metavar="FILE", help="also write baseline/proposed speedups")
    p.set_defaults(func=cmd_aggregate)

    p = sub.add_parser("figure", help="paper figure sets (PNG and PDF)",
                       description="Regenerate a paper's figure set from the data present.")
    sets = p.add_subparsers(dest="set", required=True, metavar="SET")
    helps = {"seed000": "seed 000 Fig 4: time vs size per (p/q, topology), and the improvement vs size with the paper's 4 MB values",
             "seed001": "seed 001 Figs 4-6: time vs size per setting, improvement with the Eq. 5 model limit and the paper's headline",
             "seed004": "seed 004 Figs 2-5: grouped bars per block size, a panel per neighborhood"}
    for name, text in helps.items():
        q = sets.add_parser(name, help=text, description=text)
        _dirs(q)
        _outdir(q)
        if name == "seed001":
            q.add_argument("--baseline", choices=["native", "root-gathering"],
                           help="T_old of Fig 6 (default: native when measured, else root-gathering)")
    p.set_defaults(func=cmd_figure)

    p = sub.add_parser("overlay", help="fit alpha/beta, draw model vs measurement, efficiency CSV",
                       description="Fit alpha and beta (non-negative least squares) and draw each "
                       "algorithm's cost-model prediction beside its measurement.")
    _dirs(p)
    _outdir(p)
    p.add_argument("--from", dest="source", choices=["model", "pingpong"], default="model",
                   help="fit from the measured medians and the summary's cost coefficients "
                        "(model, default) or from the meta pingpong series (pingpong)")
    p.add_argument("--weight", choices=["relative", "absolute"], default="relative",
                   help="least-squares weighting (default relative: residual / measured)")
    p.set_defaults(func=cmd_overlay)

    p = sub.add_parser("compare", help="A vs B per point: ratio, interval, q-value, verdict",
                       description="Compare two result sets (e.g. two MPI libraries or versions). "
                       "Exit 1 if any point is a comparable regression in B (docs/verdicts.md).")
    p.add_argument("a", type=Path, metavar="A", help="reference result directory")
    p.add_argument("b", type=Path, metavar="B", help="result directory compared against A")
    _outdir(p)
    _test_options(p)
    p.set_defaults(func=cmd_compare)

    trend_parser = _tree_command(
        sub, "trend", cmd_trend, "installations over versions or dates; verdict per consecutive pair",
        "Order installations by library and version (or start date) and compare every "
        "point between consecutive installations (docs/verdicts.md). Exit 1 if any point "
        "is a comparable regression, 4 if a verdict was refused for too few launches.")
    trend_parser.add_argument("--pool", action="store_true",
                              help="the directories of one installation are one sample: their launches "
                                   "pooled, points matched by their parameters and numbered as in the first "
                                   "directory given (a first pass and its re-measure)")
    _tree_command(sub, "guidelines", cmd_guidelines,
                  "native collectives against their mock-ups, per installation",
                  "Self-consistent performance guidelines: each native collective against the mock-ups "
                  "the algorithm catalogue names for it (docs/algorithms/README.md) at every point of every "
                  "installation. Exit 1 if any is violated (a comparable regression of the native), 4 if a verdict was refused for too few "
                  "launches.", order=False)
    _tree_command(sub, "dashboard", cmd_dashboard,
                  "static HTML site: experiments, installations, plots, trend",
                  "Build a static HTML dashboard (opens from the file system, no server): an index of "
                  "experiments and installations, one page per experiment with interactive "
                  "time-vs-size plots, the trend across versions, the guideline violations and the "
                  "provenance of every launch.")

    p = sub.add_parser("report", help="Markdown/HTML summary with tables and figures",
                       description="Summarise an experiment: medians of medians, speedups, figures.")
    _dirs(p)
    _outdir(p)
    p.add_argument("--format", choices=["md", "html"], default="md", help="report format (default md)")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("migrate", help="rewrite result directories of an older contract version",
                       description="Rewrite result directories written under contract version 1 "
                       "in the current version, once (the other subcommands read them anyway). "
                       "Each file is replaced atomically; directories with temporary files or "
                       "incomplete launches are refused; files already current are left alone.")
    _dirs(p)
    p.set_defaults(func=cmd_migrate)
    return parser


def _data_notes(code):
    """Notes on the data loaded (unverified directories), and EXIT_INCOMPLETE for points with
    fewer repetitions or launches than promised when nothing more important happened."""
    loader = sys.modules.get(f"{__package__}.loading.loader")
    if loader is None:
        return code
    for directory in loader.UNVERIFIED:
        print(f"note: {directory}: metadata without checksums (written before collbench recorded "
              "them): files not verified", file=sys.stderr)
    if loader.SHORTFALLS and code == 0:
        print(f"analyze: warning: {len(loader.SHORTFALLS)} point(s) have fewer repetitions or launches than "
              f"their metadata promises (listed above; exit {EXIT_INCOMPLETE})", file=sys.stderr)
        return EXIT_INCOMPLETE
    return code


def _main(argv):
    args = build_parser().parse_args(argv)
    loader = sys.modules.get(f"{__package__}.loading.loader")
    if loader is not None:  # a previous main() in this process
        loader.SHORTFALLS.clear()
        loader.UNVERIFIED.clear()
    return _data_notes(args.func(args))


def main(argv=None):
    """The exit code of `analyze ARGV`; every failure is one line on stderr (safeio.run_cli:
    bad input 2, a failed write 5, SIGTERM 143, a bug 70; no traceback)."""
    return safeio.run_cli(PROG, _main, argv)
