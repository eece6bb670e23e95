"""The README of results/sim/validation (`collrepro-py sim validate report`): every number in it is
computed here from the comparison (validate.py) and the studies' simulations (study_*.py, each
writing its own section)."""

import json
from pathlib import Path

import numpy as np
import pandas as pd

from collrepro import safeio
from collrepro.sim.validation import study
from collrepro.sim.validation import validate as V


def _phases_section(phases):
    """The per-phase errors: which part of an algorithm the simulation gets wrong."""
    if phases is None or not len(phases):
        return []
    g = phases.groupby(["experiment", "library", "algorithm", "phase_index", "phase"], sort=True)
    tab = pd.DataFrame({"points": g.size(), "median error %": g["error_pct"].median().round(1),
                        "lowest %": g["error_pct"].min().round(1), "highest %": g["error_pct"].max().round(1)})
    tab = tab.reset_index().drop(columns=["phase_index"])
    return ["## Phases: which part of an algorithm is off", "",
            "Where the node's runs timed each phase (collbench's `timing.phases`) the simulation did too; "
            "per algorithm and phase, the signed error over the shapes and sizes (`phases.csv`: every "
            "phase of every point). A phase that is off alone, in one direction, names the operation "
            "the simulation runs differently from the library (a broadcast, an exchange, an "
            "Allgatherv) rather than the platform as a whole:", "", V._md(tab), ""]


def _why_rows_miss(points, summary):
    """For every experiment/library that misses a goal: where its error lies by size, and whether
    the pairs it misorders are simulated alike or reversed (all computed here)."""
    pairs = V.misordered_pairs(points)
    rows = []
    for _, r in summary.iterrows():
        verdict = V._verdict(r)
        if verdict == "both met":
            continue
        sel = points[(points["experiment"] == r["experiment"]) & (points["library"] == r["library"])]
        band = lambda m: (f"{sel.loc[m, 'error_pct'].median():+.1f} ({int(m.sum())})" if m.any() else "-")  # noqa: E731
        mine = pairs[(pairs["experiment"] == r["experiment"]) & (pairs["library"] == r["library"])]
        rows.append({"experiment": r["experiment"], "library": r["library"], "goal": verdict,
                     f"<= {V.SMALL_BYTES // 1024} KiB: median error % (points)": band(sel["msg_bytes"] <= V.SMALL_BYTES),
                     "between": band((sel["msg_bytes"] > V.SMALL_BYTES) & (sel["msg_bytes"] < V.LARGE_BYTES)),
                     f">= {V.LARGE_BYTES >> 20} MiB": band(sel["msg_bytes"] >= V.LARGE_BYTES),
                     "misordered pairs": len(mine), "simulated alike": int(mine["alike"].sum()),
                     "reversed": int((~mine["alike"]).sum())})
    if not rows:
        return []
    return ["## Why each row that misses misses", "",
            "Per experiment and library that misses a goal: the median signed error (negative: the simulation "
            "is faster) of its smallest messages, of the middle sizes and of the largest, and the pairs of "
            "algorithms the node tells apart but the simulation orders otherwise: simulated alike (within "
            f"{V.SIM_ALIKE:.0%}: in the model the two send the same messages, and what separates them on the "
            "node is what the platforms do not charge, the software cost of each call and message) or "
            "reversed. A negative error at the smallest sizes with alike pairs is CPU work per call that the "
            "ping-pong does not hold (\"Per-message software cost\" below: an overhead carved out of the "
            "ping-pong does not close it; a node run's `callcosts` and per-call timings would size it, and "
            "the committed runs predate them; part of it, where algorithms send derived datatypes, is the "
            "library's datatype engine, measured: \"The datatype engine\" below); a negative error that grows to "
            "the largest sizes is the node's shared memory "
            "(\"The node's shared memory bandwidth\" below); one algorithm off alone is a library choice "
            "(\"Phases\" above).", "", V._md(pd.DataFrame(rows)), ""]


def _ranking_failures(points):
    """Every shape whose ranking the simulation does not keep: the real and the simulated order."""
    from collrepro.analysis.frames.units import format_bytes
    rows = []
    for (e, m, c, sh, b), g in points[points["ranking_preserved"] == False].groupby(  # noqa: E712
            ["experiment", "library", "collective", "shape", "msg_bytes"]):
        rows.append({"experiment": e, "library": m, "collective": c, "shape": sh, "size": format_bytes(int(b)),
                     "real order": " < ".join(g.sort_values("real_median_s")["algorithm"]),
                     "simulated order": " < ".join(g.sort_values(["sim_median_s", "algorithm"])["algorithm"])})
    if not rows:
        return []
    return ["## Shapes whose ranking the simulation does not keep", "",
            "Fastest first; the real order by the median over launches (pairs whose launches overlap are ties "
            "and may stand either way), the simulated order with ties by name:", "", V._md(pd.DataFrame(rows)), ""]


def _misses(points):
    """What the simulation misses, each with the numbers that show it (all computed here)."""
    out = ["## What the simulation misses, with the evidence", ""]
    def med(sel):
        e = points.loc[sel, "error_pct"]
        return float(e.median()) if len(e) else float("nan")
    lib, exp, size = points["library"], points["experiment"], points["msg_bytes"]
    big = points.groupby(["experiment", "library"])["msg_bytes"].transform("max") == size
    small = points.groupby(["experiment", "library"])["msg_bytes"].transform("min") == size
    rows = []
    for (e, m), _ in points.groupby(["experiment", "library"]):
        sel = (exp == e) & (lib == m)
        rows.append({"experiment": e, "library": m, "smallest size: median error %": round(med(sel & small), 1),
                     "largest size: median error %": round(med(sel & big), 1)})
    out += ["- **The node's shared memory bandwidth.** The real runs hold no copy-bandwidth measurement, so "
            "the platforms let every core copy at its ping-pong bandwidth at once. Where many ranks move "
            "megabytes at the same time the node is slower than that: a negative error that grows with the "
            "size means the simulation is missing a shared limit (`collrepro-py sim platform "
            "--copy-bw GBPS` adds it once measured, e.g. by the command's own measurement on the node; a limit "
            "assumed: \"A shared-memory limit\" below):", "",
            V._md(pd.DataFrame(rows)), ""]
    iso = points[(points["neighbors"] > 0) & (points["msg_bytes"] <= 64)] if "neighbors" in points else points[:0]
    if len(iso):
        g = iso.groupby(["library", "neighbors"])["error_pct"].agg(["size", "median"]).round(1).reset_index()
        g = g.rename(columns={"size": "points", "median": "median error % (blocks <= 64 B)"})
        out += ["- **Per-message software cost.** The ping-pong's latency is one message's; a "
                "neighbourhood collective posts one send and one receive per neighbour, and the "
                "per-message overhead a real library pays on each (LogGP's o, SMPI's `smpi/os` and "
                "`smpi/or`) has no term in these platforms: the ping-pong alone cannot tell it from the "
                "latency, and the node's runs predate collbench's `callcosts` (the time inside MPI_Send, "
                "MPI_Isend and MPI_Recv, measured at every launch's start since; `collrepro-py sim "
                "platform` turns them into those three settings; an overhead assumed: \"A per-message overhead, assumed\" below). Seed 004's blocks of at most 64 B, where messages are nearly empty, by "
                f"neighbourhood size (median error over them {float(iso['error_pct'].median()):.1f} %; a share "
                f"that stays about the same from {g['neighbors'].min()} to {g['neighbors'].max()} neighbours is a cost "
                "per message):", "", V._md(g), ""]
    alg = points.groupby(["experiment", "library", "algorithm"])["error_pct"].median().round(1).reset_index()
    spread = alg.groupby(["experiment", "library"])["error_pct"].agg(["min", "max"]).reset_index()
    spread = spread.rename(columns={"min": "lowest algorithm median error %", "max": "highest algorithm median error %"})
    out += ["- **The libraries' own algorithm choices.** The intra-group collectives inside root gathering "
            "and the proposed algorithms run what SimGrid's `ompi` and `mpich` selectors pick, as SimGrid "
            "implements the libraries' decision rules, except MPI_Bcast under `ompi`, which runs Open MPI "
            "4.1.4's own decision and trees (whole messages; bench/sim/ompi_bcast.hpp: SimGrid answered "
            "with segmented algorithms, and root gathering's broadcast phase was 90-110 % slow where Open "
            "MPI picks its linear broadcast). MPICH 4.0.2's ch4 device picks its broadcasts from its own "
            "tuning tables (its source's maint/tuning/coll/ch4/*.json): on fewer than 8 processes, and "
            "below 12 KiB on more, a node-aware composition whose part inside the node is a shared-memory "
            "release/gather broadcast, which the `mpich` selector does not model (root gathering's `bcast` "
            "phase under \"Phases\" above). Algorithms of one experiment that are off in opposite "
            "directions point at the choices rather than at the platform:", "", V._md(spread), ""]
    return out


def readme(points, summary, times, missing, alt_times=None, pingpong=None, phases=None, studies=()):
    """The README's text: every number below comes from `points`, `summary` and `times`.
    alt_times: {directory name: runtimes} of the studies' simulations (sims-*); studies: [(Study,
    its loaded data)] of the studies that ran, whose sections follow the report's own."""
    summ = summary.copy()
    summ["goal (<= 15 %, >= 90 %)"] = [V._verdict(r) for _, r in summ.iterrows()]
    if times:
        summ["sim wall time (s)"] = [times.get(f"{e}/{m}", {}).get("wall_s") for e, m in zip(summ["experiment"], summ["library"])]
    err = points["error_pct"].abs()
    shapes = points.drop_duplicates(["experiment", "library", "collective", "shape", "msg_bytes"])
    ranked = shapes["ranking_preserved"].dropna().astype(bool)
    total_wall = sum(t.get("wall_s", 0) for t in times.values()) if times else None
    met = summ[summ["goal (<= 15 %, >= 90 %)"] == "both met"]
    out = [
        "# results/sim/validation: the simulation against a real node",
        "",
        "Generated by `collrepro-py sim validate report` (python/collrepro/sim/validation/validate.py) from the",
        "simulations in `sims/` and the real-node runs committed in `results/node16/runs.tar.xz`",
        "(16-core node, one rank per core, Open MPI 4.1.4 and MPICH 4.0.2, every rank bound to its",
        "own core, 3 launches per point; results/node16/README.md says how they were made). Anyone",
        "can rerun it from the repository with the commands below. Do not edit.",
        "",
        "## How it was made",
        "",
        "```",
        "collrepro-py sim validate platforms    # configs/platforms/node16-{openmpi,mpich}.xml",
        "collrepro-py sim validate run          # sims/<experiment>/<mpi>/ through bench/sim/simrun",
        *[s.command for s in study.discover()],
        "collrepro-py sim validate report       # points.csv, summary.csv, this README, sim_vs_real.png",
        "```",
        "",
        "(Each reads `results/node16/` by default; another node's runs: `... REAL_DIR`.)",
        "",
        "- **The platform** (`collrepro-py sim platform`, documented in `bench/sim/README.md`): one host",
        "  per core; each core's link is the library's ping-pong (median over the launches of the",
        "  experiments below, four sizes), a piecewise latency/bandwidth model (SimGrid's SMPI network",
        "  model with one factor per size range) that returns every measured size; Open MPI's cores send",
        "  and receive over one shared link (no single-copy mechanism: each side copies), MPICH's side by",
        "  side; the cores meet in a backbone, the node's shared memory. The real runs hold no",
        "  copy-bandwidth measurement, so that backbone is the cores' links together (nothing shared",
        "  beyond each core's own link); see \"What the simulation misses\". The ping-pong the platforms",
        "  were made from, and the one the simulations measured on them (collbench measures it at every",
        "  launch's start):",
        "",
        *([V._md(pingpong), ""] if pingpong is not None and len(pingpong) else ["  (no simulation yet)", ""]),
        "- **The simulations**: each experiment with the real runs' configuration and sizes, SimGrid's",
        "  collective selector of the library (`ompi` for Open MPI's runs, `mpich` for MPICH's), one",
        "  repetition after a warm-up (SimGrid is deterministic), inter-group pairs emulated on one",
        "  intracommunicator (SMPI has no intercommunicators: the `native` baselines and seed 004's",
        "  `mpi-neighbor*` cannot run and are left out of every comparison).",
        "- **Per point** (`points.csv`): collective, shape, size, algorithm, the real median (median over",
        "  launches of the per-launch Tukey medians) with its launches and range, the simulated median,",
        "  error = (simulated - real) / real in %, and whether the ranking at that collective, shape and",
        "  size is preserved: every pair of algorithms the real launches tell apart (ranges that do not",
        "  overlap) is ordered the same by the simulation; pairs the node itself cannot order are ties",
        "  and not counted, and a shape with no such pair is not ranked.",
        "",
        "## Summary per experiment and library",
        "",
        V._md(summ),
        "",
        f"All {len(points)} points: median |error| {V._fmt(float(err.median()))} %, 90th percentile "
        f"{V._fmt(float(np.percentile(err, 90)))} %; ranking preserved at {int(ranked.sum())} of {len(ranked)} ranked "
        f"shapes ({V._fmt(100.0 * ranked.mean() if len(ranked) else None)} %). Goal (median |error| <= "
        f"{V.GOAL_MEDIAN_ERR:g} %, ranking >= {V.GOAL_RANKING:g} %) met by {len(met)} of {len(summ)} experiment/library pairs"
        + (f": {', '.join(met['experiment'] + ' / ' + met['library'])}." if len(met) else "."),
        "",
    ]
    if total_wall is not None:
        alt = "".join(f"; the {len(t)} runs of `{name}/`: {sum(x.get('wall_s', 0) for x in t.values()):.0f} s"
                      for name, t in sorted((alt_times or {}).items()))
        out += [f"Simulation wall time, all {len(times)} runs: {total_wall:.0f} s{alt}, on the shared 2-core "
                "development VM (one simulation at a time; per run in "
                "`sims/runtimes.json`).", ""]
    if missing:
        out += [f"Not simulated (no `sims/` result): {', '.join(missing)}.", ""]
    out += [
        "![simulated against real](sim_vs_real.png)",
        "",
        "## Where the error lies",
        "",
        "Median signed error per size (negative: the simulation is faster than the node):",
        "",
        V._md(V._by(points, ["msg_bytes"])),
        "",
        "Per algorithm:",
        "",
        V._md(V._by(points, ["algorithm"])),
        "",
    ] + _why_rows_miss(points, summary) + _phases_section(phases) + _misses(points)
    for s, data in studies:
        out += s.section(points, summary, data)
    out += _ranking_failures(points)
    return "\n".join(out) + "\n"


def write_report(real, out=V.OUT):
    out = Path(out)
    points, missing = V.build(real, out / "sims")
    summary = V.summarize(points)
    times_file = out / "sims" / "runtimes.json"
    times = json.loads(times_file.read_text()) if times_file.exists() else {}
    cols = ["experiment", "library", "collective", "shape", "msg_bytes", "neighbors", "algorithm", "real_median_s", "real_min_s",
            "real_max_s", "real_launches", "sim_median_s", "error_pct", "ranking_preserved"]
    safeio.write_csv(out / "points.csv", points[cols].round({"error_pct": 2}))
    safeio.write_csv(out / "summary.csv", summary)
    V.figure(points, out / "sim_vs_real.png")
    alt_times = {d.name: json.loads((d / "runtimes.json").read_text())
                 for d in sorted(out.glob("sims-*")) if (d / "runtimes.json").is_file()}
    studies = [(s, data) for s in study.discover() for data in [s.load(real, out)] if data is not None]
    phases = V.phase_points(real, out / "sims")
    if phases is not None:
        safeio.write_csv(out / "phases.csv", phases.round({"error_pct": 2}))
    safeio.write_text(out / "README.md", readme(points, summary, times, missing, alt_times,
                                                V.pingpong_check(real, out / "sims"), phases, studies))
    return summary
