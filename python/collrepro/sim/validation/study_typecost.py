"""Study: the datatype engine's cost. The torus algorithms send combined messages of a struct
datatype, which a real library packs and unpacks and SMPI moves for free; the same simulations
with each library's cost per side of a non-contiguous message (fitted from collbench's metadata
`typecosts` of DIR/<mpi>/ runs) charged on every such send and receive (simrun --type-cost), in
sims-typecost/ with the fit in type_cost.json."""

import json
from pathlib import Path

import pandas as pd

from collrepro import safeio
from collrepro.safeio import UserError
from collrepro.sim.validation import validate as V
from collrepro.sim.validation.study import Study

# The datatype engine's cost per message (collbench's metadata `typecosts`): the node's runs predate
# it, so it was measured with the same libraries on the development VM, two ranks, one per core.
TYPECOST_RUN = ("bench/collrun --mpi MPI --np 2 --launches 3 --out results/sim/validation/typecosts-vm/MPI "
                "configs/quick.yaml -- --set sizes=[1KiB] --set groups.ratios=[1/1] --set blocks=[1:1] "
                "--set algorithms=[fullduplex-allgather]")


def folder(out):
    return Path(out) / "sims-typecost"


def type_costs(source):
    """{library: (A, B, UPTO)} fitted from the typecosts in the metadata of source/<mpi>/ runs
    (collbench measures them at every launch's start); libraries without them are left out."""
    from collrepro.sim.platforms import platform as sim_platform
    fits = {}
    for mpi in V.SELECTOR:
        d = Path(source) / mpi
        if d.is_dir():
            fit = sim_platform.type_cost(sim_platform.measurements([str(d)], mpi))
            if fit:
                fits[mpi] = fit
    if not fits:
        raise UserError(f"{source}: no <mpi>/ runs whose metadata hold typecosts with a positive extra "
                        f"(measure them: {TYPECOST_RUN})")
    return fits


def run(ctx, source):
    """The chosen platforms, every non-contiguous message charged the datatype engine's cost
    fitted from `source` (simrun --type-cost), into sims-typecost/ with the fit in type_cost.json."""
    fits = type_costs(source)
    sims = folder(ctx.out)
    sims.mkdir(parents=True, exist_ok=True)
    safeio.write_json(sims / "type_cost.json", {
        "source": str(Path(source).resolve().relative_to(V.REPO)) if Path(source).resolve().is_relative_to(V.REPO)
        else str(source),
        "per_side": {m: {"a_s": a, "b_s_per_byte": b, "upto_bytes": u} for m, (a, b, u) in sorted(fits.items())}})
    args = {m: ["--type-cost", f"{a:.6g},{b:.6g},{u:.0f}"] for m, (a, b, u) in fits.items()}
    return V.simulate(ctx.real, ctx.only, sims, simrun_args=args, build_dir=ctx.build_dir)


def load(real, out):
    fit = folder(out) / "type_cost.json"
    if not (V.has_sims(folder(out)) and fit.is_file()):
        return None
    return V.build(real, folder(out))[0], json.loads(fit.read_text())


def section(points, summary, typecost):
    """The datatype engine: each library's fitted cost per side of a non-contiguous message, and
    the goal's numbers and the isomorphic algorithms' median errors without and with it."""
    pts, fit = typecost
    base = summary.set_index(["experiment", "library"])
    withc = V.summarize(pts).set_index(["experiment", "library"])
    rows = []
    for (e, m), r in base.iterrows():
        if (e, m) not in withc.index:
            continue
        w = withc.loc[(e, m)]
        rows.append({"experiment": e, "library": m, "median abs. error %": r["median_abs_error_pct"],
                     "with the cost": w["median_abs_error_pct"], "ranking %": r["ranking_preserved_pct"],
                     "ranking with the cost": w["ranking_preserved_pct"],
                     "goal with the cost": V._verdict(w.to_dict())})
    per_side = fit.get("per_side", {})
    fits = "; ".join(f"{m}: {v['a_s'] * 1e6:.3f} us + {v['b_s_per_byte'] * 1e9:.3f} ns per byte up to "
                     f"{v['upto_bytes']:.0f} B" for m, v in sorted(per_side.items()))
    alg = []
    for label, frame in (("without", points), ("with", pts)):
        g = frame[frame["experiment"] == "seed004-np16"].groupby(["library", "algorithm"])["error_pct"].median()
        alg.append(g.round(1).rename(f"median error % {label}"))
    algs = pd.concat(alg, axis=1).reset_index() if len(alg[0]) else None
    out = ["## The datatype engine: a measured cost the simulation did not charge", "",
           "The torus algorithms send combined messages of a struct datatype over several blocks; a real "
           "library packs such a message on the sender and unpacks it on the receiver, which SMPI does "
           "without charging time. collbench measures it at every launch's start since this study (metadata "
           "`typecosts`: the one-way ping-pong of 4 blocks as one struct message against the same bytes "
           "contiguous). The node's runs predate it, so it was measured with the same libraries (Debian 12's "
           f"MPICH 4.0.2 and Open MPI 4.1.4) on the 2-core development VM, two ranks, one per core "
           f"(`{fit.get('source', '?')}`, made by `{TYPECOST_RUN}`), and fitted per side of a message "
           f"(`collrepro-py sim platform`'s type_cost; `sims-typecost/type_cost.json`): {fits}. The same "
           "simulations with that cost charged on every non-contiguous send and receive (`run --typecosts`, "
           "`sims-typecost/`, bench/sim/typecost.cpp):", "", V._md(pd.DataFrame(rows)), ""]
    if algs is not None:
        out += ["Seed 004's algorithms, median signed error over their points:", "", V._md(algs), "",
                "A cost measured on another CPU than the node's: the node's own `typecosts` (any collbench run "
                "there records them) would replace it.", ""]
    return out


STUDY = Study(name="typecost", order=40, flag="--typecosts",
              option=dict(metavar="DIR", help="run: simulate with each library's datatype-engine cost fitted from the "
                          "typecosts of DIR/<mpi>/ runs into sims-typecost/ (the README compares)"),
              command=("collrepro-py sim validate run --typecosts results/sim/validation/typecosts-vm   "
                       "# sims-typecost/: the datatype engine"),
              run=run, load=load, section=section)
