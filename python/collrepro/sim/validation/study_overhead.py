"""Study: a per-message overhead, assumed. The node's runs predate collbench's `callcosts`, so the
platforms charge no software cost per message; the same simulations with US microseconds assumed
for each of smpi/os, ois and or (sim platform --overhead), the links carrying the rest of the
ping-pong, one folder sims-overhead-<US>/ per value."""

from pathlib import Path

import pandas as pd

from collrepro.sim.validation import validate as V
from collrepro.sim.validation.study import Study


def folder(out, us):
    return Path(out) / f"sims-overhead-{us:g}"


def run(ctx, us):
    here = folder(ctx.out, us)
    V.variant_platforms(ctx.real, here, ["--overhead", f"{us:g}"])
    return V.simulate(ctx.real, ctx.only, here, platforms=here, build_dir=ctx.build_dir)


def load(real, out):
    found = {float(d.name.split("-")[-1]): V.build(real, d)[0]
             for d in sorted(Path(out).glob("sims-overhead-*")) if V.has_sims(d)}
    return found or None


def _small(pts, e, m):
    err = pts[(pts["experiment"] == e) & (pts["library"] == m) & (pts["msg_bytes"] <= V.SMALL_BYTES)]["error_pct"]
    return round(float(err.median()), 1) if len(err) else "-"


def rows(points, summary, overhead):
    """Per experiment and library, the goal's two numbers without and with each assumed overhead,
    and the median error of the smallest blocks (<= SMALL_BYTES)."""
    out = []
    kib = V.SMALL_BYTES // 1024
    for (e, m), r in summary.set_index(["experiment", "library"]).iterrows():
        row = {"experiment": e, "library": m, "none: median abs. error %": r["median_abs_error_pct"],
               "ranking %": r["ranking_preserved_pct"], f"<= {kib} KiB: median error %": _small(points, e, m)}
        for us, pts in sorted(overhead.items()):
            o = V.summarize(pts).set_index(["experiment", "library"])
            if (e, m) in o.index:
                row[f"{us:g} us: median abs. error %"] = o.loc[(e, m), "median_abs_error_pct"]
                row[f"{us:g} us: ranking %"] = o.loc[(e, m), "ranking_preserved_pct"]
                row[f"{us:g} us: <= {kib} KiB %"] = _small(pts, e, m)
        out.append(row)
    return pd.DataFrame(out)


def section(points, summary, overhead):
    from collrepro.sim.platforms import platform as sim_platform
    most = max(overhead)
    moved = []
    for (e, m), sub in points[points["msg_bytes"] <= V.SMALL_BYTES].groupby(["experiment", "library"]):
        w = overhead[most]
        w = w[(w["experiment"] == e) & (w["library"] == m) & (w["msg_bytes"] <= V.SMALL_BYTES)]["error_pct"]
        if len(w):
            moved.append(f"{e} / {m} {sub['error_pct'].median():+.1f} -> {w.median():+.1f} %")
    return ["## A per-message overhead, assumed (`sims-overhead-*/`)", "",
            "The same simulations with a per-message overhead assumed, not measured (`run --overhead US`: "
            "each of smpi/os, smpi/ois and smpi/or at every size where it fits, the links carrying the rest of "
            "the ping-pong, so the ping-pong itself is unchanged): if the missing cost is per message, the "
            "smallest blocks' error moves towards 0 at one value for every experiment:", "",
            V._md(rows(points, summary, overhead)), "",
            f"At {most:g} us per call (about the most the 1-byte ping-pong can hold: send and receive "
            f"together at most {sim_platform.EAGER_SHARE:g} of its one-way time) the smallest blocks' median error goes "
            + "; ".join(moved) + ". With the ping-pong kept, an overhead moves time from the links to the "
            "calls; what the node spends beyond that is work the ping-pong does not contain (per call: "
            "requests, derived datatypes, the neighbourhood's schedule), which only the node's own "
            "`callcosts` and per-call timings can size.", ""]


STUDY = Study(name="overhead", order=30, flag="--overhead",
              option=dict(type=float, action="append", default=[], metavar="US",
                          help="run: simulate with this per-message overhead assumed (us per call: smpi/os, ois, or) "
                               "into sims-overhead-US/ (repeatable; the README compares)"),
              command="collrepro-py sim validate run --overhead 0.05 --overhead 0.1   # sims-overhead-*/: a per-message cost",
              run=run, load=load, section=section)
