"""Study: the other duplex choice. The platforms model Open MPI's cores with sends and receives
sharing one link and MPICH's with the two side by side (validate.DUPLEX); the same simulations
with the other choice, in sims-alternative/ with their platforms."""

from collrepro.sim.validation import validate as V
from collrepro.sim.validation.study import Study

NAME = "alternative"


def folder(out):
    return out / "sims-alternative"


def run(ctx, _value):
    other = {mpi: V.OTHER[d] for mpi, d in V.DUPLEX.items()}
    V.variant_platforms(ctx.real, folder(ctx.out), [], duplex=other)
    return V.simulate(ctx.real, ctx.only, folder(ctx.out), platforms=folder(ctx.out), build_dir=ctx.build_dir)


def load(real, out):
    return V.build(real, folder(out))[0] if V.has_sims(folder(out)) else None


def section(points, summary, alternative):
    cols = ["experiment", "library", "median_abs_error_pct", "ranking_preserved_pct"]
    both = summary[cols].merge(V.summarize(alternative)[cols], on=["experiment", "library"],
                               suffixes=(" (chosen)", " (other duplex)"))
    both.insert(2, "chosen duplex", [V.DUPLEX.get(m, "?") for m in both["library"]])
    return ["## How a core's sends and receives share it (`sims-alternative/`)", "",
            "The platforms model Open MPI's cores with sends and receives sharing one link and MPICH's with "
            "the two side by side; the same simulations with the other choice:", "", V._md(both), ""]


STUDY = Study(name=NAME, order=10, flag="--alternative",
              option=dict(action="store_true", help="run: simulate with the other duplex choice into "
                          "sims-alternative/ (the README compares)"),
              command="collrepro-py sim validate run --alternative     # sims-alternative/: the other duplex choice",
              run=run, load=load, section=section, in_all=True)
