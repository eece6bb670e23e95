"""Study: one latency and one bandwidth per link. The platforms fit each core's link piecewise (a
latency and a bandwidth factor per size range, so that every measured ping-pong size comes back);
the same simulations on platforms fitted with one latency and one bandwidth (sim platform
--model alpha-beta: the least-squares fit of all sizes, relative residuals; SimGrid's CM02
model), in sims-alphabeta/: how much of the agreement the piecewise fit is responsible for."""

from pathlib import Path

import pandas as pd

from collrepro.sim.validation import validate as V
from collrepro.sim.validation.study import Study


def folder(out):
    return Path(out) / "sims-alphabeta"


def run(ctx, _value):
    V.variant_platforms(ctx.real, folder(ctx.out), ["--model", "alpha-beta"])
    return V.simulate(ctx.real, ctx.only, folder(ctx.out), platforms=folder(ctx.out), build_dir=ctx.build_dir)


def load(real, out):
    return V.build(real, folder(out))[0] if V.has_sims(folder(out)) else None


def section(points, summary, alphabeta):
    ab = V.summarize(alphabeta).set_index(["experiment", "library"])
    rows = []
    for _, r in summary.iterrows():
        key = (r["experiment"], r["library"])
        if key not in ab.index:
            continue
        w = ab.loc[key]
        rows.append({"experiment": key[0], "library": key[1], "median abs. error % (piecewise)": r["median_abs_error_pct"],
                     "alpha-beta": w["median_abs_error_pct"], "ranking % (piecewise)": r["ranking_preserved_pct"],
                     "alpha-beta ranking %": w["ranking_preserved_pct"], "goal with alpha-beta": V._verdict(w.to_dict())})
    by_size = (points.groupby("msg_bytes")["error_pct"].median().round(1).rename("piecewise").to_frame()
               .join(alphabeta.groupby("msg_bytes")["error_pct"].median().round(1).rename("alpha-beta"), how="inner"))
    from collrepro.analysis.frames.units import format_bytes
    by_size.index = [format_bytes(int(b)) for b in by_size.index]
    sizes = by_size.reset_index().rename(columns={"index": "size"})
    better = sum(1 for x in rows if x["alpha-beta"] < x["median abs. error % (piecewise)"])
    return ["## One latency and one bandwidth per link (`sims-alphabeta/`)", "",
            "The same simulations on platforms whose links are fitted with one latency and one bandwidth "
            "(`run --alpha-beta`: sim platform --model alpha-beta, the least-squares fit of every ping-pong "
            "size with relative residuals, SimGrid's CM02 model) instead of the piecewise fit that returns "
            f"every measured size; the simpler model is closer in {better} of {len(rows)} experiment/library "
            "pairs:", "", V._md(pd.DataFrame(rows)), "",
            "Median signed error per size, every experiment and library together:", "", V._md(sizes), ""]


STUDY = Study(name="alphabeta", order=15, flag="--alpha-beta",
              option=dict(action="store_true", help="run: simulate on platforms fitted with one latency and one "
                          "bandwidth per link into sims-alphabeta/ (the README compares)"),
              command="collrepro-py sim validate run --alpha-beta      # sims-alphabeta/: one latency, one bandwidth",
              run=run, load=load, section=section)
