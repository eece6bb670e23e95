"""`collrepro-py sim validate`: the simulation checked point by point against a real node
(results/sim/validation).

    collrepro-py sim validate platforms [REAL]            # configs/platforms/node16-<mpi>.xml
    collrepro-py sim validate run [REAL] [--only EXP] [STUDY OPTIONS]
                                                          # the simulations, one per experiment and library
    collrepro-py sim validate report [REAL]               # points.csv, summary.csv, README.md, the figure
    collrepro-py sim validate all [REAL]                  # platforms, run, the studies run by `all`, report

`run` alone simulates every experiment on the libraries' platforms into sims/; with a study's
option (--alternative, --copy-bw GBPS, --overhead US, --typecosts DIR, --shared: one per file
study_*.py, each registered there) it runs those studies only, into their sims-*/ folders. REAL,
the experiments and the comparison: validate.py; the README: report.py. Exit codes: 0 done,
2 bad input, 5 simrun's build missing, 4 a simulation failed (the others are kept).
"""

from pathlib import Path

from collrepro.cliargs import ArgumentParser
from collrepro.sim.validation import report, study
from collrepro.sim.validation import validate as V


def _parser(studies):
    ap = ArgumentParser(prog="sim validate", description=__doc__.split("\n")[0].strip("`"))
    ap.add_argument("action", choices=["platforms", "run", "report", "all"])
    ap.add_argument("real", nargs="?", default=str(V.DEFAULT_REAL),
                    help=f"directory of <experiment>/<mpi>/ real runs, or a {V.ARCHIVE} of them (or a directory "
                         f"holding one); default {V.DEFAULT_REAL.relative_to(V.REPO)}")
    ap.add_argument("--only", action="append", choices=sorted(V.EXPERIMENTS), help="run only this experiment")
    for s in studies:
        ap.add_argument(s.flag, **s.option)
    ap.add_argument("--out", default=str(V.OUT), help="where the report goes (default results/sim/validation)")
    ap.add_argument("--build-dir", default=str(V.BUILD_DIR), help="run: the smpi build simrun uses (default build/smpi)")
    return ap


def main(argv=None):
    studies = study.discover()
    a = _parser(studies).parse_args(argv)
    with V.real_runs(a.real) as real:
        a.real = str(real)
        return _act(a, studies)


def _act(a, studies):
    ctx = study.Context(real=a.real, out=Path(a.out), only=a.only, build_dir=Path(a.build_dir))
    asked = [(s, v) for s in studies for v in s.values(a)] if a.action == "run" else []
    if a.action == "all":
        asked = [(s, None) for s in studies if s.in_all]
    rc = 0
    if a.action in ("platforms", "all"):
        V.make_platforms(a.real)
    if a.action == "all" or (a.action == "run" and not asked):
        rc = V.simulate(a.real, a.only, ctx.out / "sims", build_dir=ctx.build_dir)
    for s, value in asked:
        rc = s.run(ctx, value) or rc
    if a.action in ("report", "all"):
        report.write_report(a.real, ctx.out)
    return rc
