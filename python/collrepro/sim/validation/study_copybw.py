"""Study: a shared-memory limit. The real runs hold no copy-bandwidth measurement, so the platforms
let every core copy at its ping-pong bandwidth at once; the same simulations with the node's
shared memory limited to GB/s (all cores copying at once; sim platform --copy-bw), one folder
sims-copybw-<GBPS>/ per value."""

from pathlib import Path

import pandas as pd

from collrepro.sim.validation import validate as V
from collrepro.sim.validation.study import Study


def folder(out, gbps):
    return Path(out) / f"sims-copybw-{gbps:g}"


def run(ctx, gbps):
    here = folder(ctx.out, gbps)
    V.variant_platforms(ctx.real, here, ["--copy-bw", f"{gbps:g}"])
    return V.simulate(ctx.real, ctx.only, here, platforms=here, build_dir=ctx.build_dir)


def load(real, out):
    found = {float(d.name.split("-")[-1]): V.build(real, d)[0]
             for d in sorted(Path(out).glob("sims-copybw-*")) if V.has_sims(d)}
    return found or None


def section(points, summary, copybw):
    from collrepro.analysis.frames.units import format_bytes
    cols = [points.groupby(["experiment", "library", "msg_bytes"])["error_pct"].median().rename("no shared limit")]
    for gbps, pts in sorted(copybw.items()):
        cols.append(pts.groupby(["experiment", "library", "msg_bytes"])["error_pct"].median().rename(f"{gbps:g} GB/s"))
    t = pd.concat(cols, axis=1, join="inner").round(1).reset_index()
    t["msg_bytes"] = [format_bytes(int(b)) for b in t["msg_bytes"]]
    out = ["## A shared-memory limit (`sims-copybw-*/`)", "",
           "The same simulations with the node's shared memory limited (`run --copy-bw GBPS`: all cores "
           "copying at once; median signed error % per size):", "", V._md(t), ""]
    # Does some limit bring an experiment's largest size within the goal while it pushes its
    # smallest more than that over (and that much further than without it)? Then no single
    # backbone bandwidth fits both.
    split = []
    for (e, m), sub in t.groupby(["experiment", "library"], sort=False):
        for c in [c for c in t.columns if c.endswith("GB/s")]:
            raised = sub[c].iloc[0] - sub["no shared limit"].iloc[0]  # what the limit did to the smallest
            if abs(sub[c].iloc[-1]) <= V.GOAL_MEDIAN_ERR < min(sub[c].iloc[0], raised):
                split.append(f"{e} / {m} at {c}: {sub[c].iloc[-1]:+.1f} % at {sub['msg_bytes'].iloc[-1]}, "
                             f"{sub[c].iloc[0]:+.1f} % at {sub['msg_bytes'].iloc[0]}")
    if split:
        out += ["A limit that brings the largest messages within 15 % overshoots the smallest ("
                + "; ".join(split) + "): the node's effective shared bandwidth depends on the size "
                "(a few hundred KiB stay in the caches, megabytes go to memory), which one backbone "
                "bandwidth cannot model. collbench now measures the node's slow-down per size at every "
                "launch's start (metadata `concurrent_pingpong`: every pair of ranks at once against one "
                "pair, 64 KiB to 4 MiB), and `run --shared` simulates each size on the backbone that "
                "measurement gives (`sims-shared/`) once the node's runs hold it "
                "(results/node16/experiments-calibration.sh).", ""]
    return out


STUDY = Study(name="copybw", order=20, flag="--copy-bw",
              option=dict(type=float, action="append", default=[], metavar="GBPS",
                          help="run: simulate with this shared-memory limit (GB/s, all cores) into "
                               "sims-copybw-GBPS/ (repeatable; the README compares)"),
              command=("collrepro-py sim validate run --copy-bw 32 --copy-bw 64 --only quick-np8 \\\n"
                       "    --only seed000-np16 --only allgatherv-arith-np14      # sims-copybw-*/: a shared-memory limit"),
              run=run, load=load, section=section)
