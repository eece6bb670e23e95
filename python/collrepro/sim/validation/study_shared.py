"""Study: the node's shared memory, per size. collbench's `concurrent_pingpong` (every pair of
ranks moving 64 KiB to 4 MiB at once, against one pair alone) gives the node's slow-down per
size; each experiment is simulated once per message size on the platform whose backbone is that
size's (sim platform --shared-size), into sims-shared/<experiment>/<mpi>/<bytes>/, keeping that
size's points."""

import json
from pathlib import Path

import pandas as pd

from collrepro import resultfiles, safeio
from collrepro.safeio import UserError
from collrepro.sim.validation import validate as V
from collrepro.sim.validation.study import Study


def folder(out):
    return Path(out) / "sims-shared"


def simulate_shared(real, out, only=None, build_dir=V.BUILD_DIR):
    """Each experiment once per message size of its real points, on the chosen platform whose
    backbone is the node's concurrent ping-pong at that size (sim platform --shared-size), into
    sims-shared/<experiment>/<mpi>/<bytes>/; only that size's points count (shared_medians). The
    point's size (collbench's msg_bytes, a block) chooses the platform, though an algorithm may
    also send messages of several blocks; and each whole experiment runs once per size (its sizes
    times the plain simulation's cost). Refused, in one line, where the real runs' metadata hold
    no concurrent_pingpong."""
    from collrepro.sim.platforms import platform as sim_platform
    sims = folder(out)
    every = V.real_dirs(real)
    dirs = {k: d for k, d in sorted(every.items()) if not only or k[0] in only}
    runs = {mpi: V._library_runs(every, mpi) for mpi in sorted({m for _, m in dirs})}
    for mpi, mine in runs.items():
        if not sim_platform.measurements(mine, mpi)["concurrent"]:
            raise UserError(f"the real {mpi} runs' metadata hold no concurrent_pingpong (collbench measures it "
                            "at every launch's start on one node since it existed); run results/node16/"
                            "experiments-calibration.sh on the node, or leave --shared out")
    times_file = sims / "runtimes.json"
    times = json.loads(times_file.read_text()) if times_file.exists() else {}
    made, rc = set(), 0
    for (exp, mpi), rdir in dirs.items():
        for size in sorted(int(b) for b in V.medians(rdir)["msg_bytes"].unique()):
            platform = sims / "platforms" / f"node16-{mpi}-{size}.xml"
            if (mpi, size) not in made:
                platform.parent.mkdir(parents=True, exist_ok=True)
                V.variant_platform(runs[mpi], mpi, ["--shared-size", str(size)], platform)
                made.add((mpi, size))
            code = V._simulate_one(exp, mpi, sims / exp / mpi / str(size), platform, [], times, f"{exp}/{mpi}/{size}",
                                 build_dir)
            rc = rc or (4 if code else 0)
    safeio.write_json(times_file, times)
    return rc


def shared_medians(directory):
    """medians() of each <bytes>/ simulation under `directory`, that size's points only."""
    parts = [V.medians(d).query("msg_bytes == @size", local_dict={"size": int(d.name)})
             for d in sorted(Path(directory).iterdir()) if d.is_dir() and d.name.isdigit()
             and resultfiles.result_files(d, ["summary"])["summary"]]
    return pd.concat(parts, ignore_index=True) if parts else None


def medians_with_gaps(sdir):
    """validate.build's reader for this layout: the sizes' medians, and the sizes with none."""
    if not Path(sdir).is_dir():
        return None
    sim = shared_medians(sdir)
    return None if sim is None else (sim, [])


def load(real, out):
    if not any(folder(out).glob("*/*/*/summary-*")):
        return None
    points, missing = V.build(real, folder(out), medians_of=medians_with_gaps)
    real_sizes = {(e, m): set(V.medians(d)["msg_bytes"]) for (e, m), d in V.real_dirs(real).items()}
    for (e, m), sub in points.groupby(["experiment", "library"]):
        missing += [f"{e}/{m}/{int(b)}" for b in sorted(real_sizes[(e, m)] - set(sub["msg_bytes"]))]
    return points, missing


def run(ctx, _value):
    return simulate_shared(ctx.real, ctx.out, ctx.only, ctx.build_dir)


def section(points, summary, shared):
    """The node's shared memory per size (run --shared; shared: build()'s points and missing
    simulations): the goal's numbers and the median signed error per size without and with it."""
    shared, missing = shared
    base = summary.set_index(["experiment", "library"])
    rows = []
    for (e, m), w in V.summarize(shared).set_index(["experiment", "library"]).iterrows():
        r = base.loc[(e, m)] if (e, m) in base.index else {}
        rows.append({"experiment": e, "library": m, "median abs. error %": r.get("median_abs_error_pct"),
                     "with the shared memory": w["median_abs_error_pct"], "ranking %": r.get("ranking_preserved_pct"),
                     "ranking with it": w["ranking_preserved_pct"], "goal with it": V._verdict(w.to_dict())})
    per = pd.concat([f.groupby(["experiment", "library", "msg_bytes"])["error_pct"].median().round(1).rename(label)
                     for label, f in (("median error % without", points), ("with", shared))], axis=1).reset_index()
    return ["## The node's shared memory, per size (`sims-shared/`)", "",
            "collbench's `concurrent_pingpong` (every pair of ranks moving messages of 64 KiB to 4 MiB at once, "
            "against one pair alone) says how much the node's shared memory slows many transfers at once; "
            "`collrepro-py sim platform --shared-size BYTES` turns it into the backbone for messages of that size, "
            "and `run --shared` simulates each experiment once per size on that size's platform "
            "(`sims-shared/platforms/`), keeping that size's points:", "", V._md(pd.DataFrame(rows)), "",
            "Median signed error per size:", "", V._md(per), ""] + (
               [f"Not simulated (no result): {', '.join(missing)}; the rows above leave them out.", ""]
               if missing else [])


STUDY = Study(name="shared", order=50, flag="--shared",
              option=dict(action="store_true", help="run: simulate each experiment once per message size with the "
                          "node's shared memory from the real runs' concurrent_pingpong into sims-shared/ (the "
                          "README compares)"),
              command="collrepro-py sim validate run --shared      # sims-shared/: the node's shared memory per size",
              run=run, load=load, section=section)
