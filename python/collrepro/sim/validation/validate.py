"""sim_validate: the simulation checked point by point against a real node (results/sim/validation).

    collrepro-py sim validate platforms [REAL]            # configs/platforms/node16-<mpi>.xml
    collrepro-py sim validate run [REAL] [--only EXP] [--alternative] [--copy-bw GBPS]
                                                          # the simulations, one per experiment and library
    collrepro-py sim validate report [REAL]               # points.csv, summary.csv, README.md, the figure
    collrepro-py sim validate all [REAL]                  # platforms, run, run --alternative, report

REAL holds real runs as <experiment>/<mpi>/ result directories (one rank per core on one node,
each launch's ping-pong in its metadata), or is such a tree packed as runs.tar.xz (or a
directory holding one): by default results/node16/, the 16-core node's runs committed in the
repository, unpacked into a temporary directory for the command. `platforms` derives one
platform per MPI library from that library's ping-pongs (python/collrepro/sim/platforms/platform.py);
`run` simulates every experiment of EXPERIMENTS that REAL holds, with the library's platform
and SimGrid's collective selector for that library (ompi for Open MPI, mpich for MPICH),
through bench/sim/simrun, into results/sim/validation/sims/<experiment>/<mpi>/; `report`
compares.

Per point (collective, shape, size, algorithm): the real median (median over launches of the
per-launch Tukey medians), the simulated median, error = (simulated - real) / real in %, and
whether the ranking of the algorithms at that collective, shape and size (those both ran) is
the same in simulation as on the node. Exit codes: 0 done, 2 bad input, 5 simrun's build
missing, 4 a simulation failed (the others are kept).
"""

import contextlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from collrepro import paths, resultfiles, safeio
from collrepro.cliargs import ArgumentParser
from collrepro.safeio import UserError
from collrepro.sim.validation import ties

REPO = Path(paths.REPO)
OUT = REPO / "results" / "sim" / "validation"
# The datatype engine's cost per message (collbench's metadata `typecosts`): the node's runs predate
# it, so it was measured with the same libraries on the development VM, two ranks, one per core.
TYPECOST_RUN = ("bench/collrun --mpi MPI --np 2 --launches 3 --out results/sim/validation/typecosts-vm/MPI "
                "configs/quick.yaml -- --set sizes=[1KiB] --set groups.ratios=[1/1] --set blocks=[1:1] "
                "--set algorithms=[fullduplex-allgather]")
PLATFORMS = REPO / "configs" / "platforms"
SELECTOR = {"openmpi": "ompi", "mpich": "mpich"}
# Whether a core's sends and receives share its link (sim_platform --duplex). Open MPI's runs move
# messages through shared memory with no single-copy mechanism: the sender copies into the shared
# segment and the receiver out of it, so a core that sends and receives copies both ways itself
# (shared). MPICH's runs (ch4, shared memory) are modelled with sends and receives side by side
# (split). The other choice is simulated too (`run --alternative`, sims-alternative/) and the
# README compares both.
DUPLEX = {"openmpi": "shared", "mpich": "split"}
OTHER = {"shared": "split", "split": "shared"}
GOAL_MEDIAN_ERR, GOAL_RANKING = 15.0, 90.0

# The real experiments simulated: name -> (config, processes, collbench --set overrides beyond
# those every simulation gets), named as in results/node16/ (its experiments*.sh ran them:
# results/node16/README.md, "Files"). The simulation runs every size of the configuration; the
# comparison takes the points both have.
# The native baselines need intercommunicators (or distributed graphs) that SMPI lacks: the
# settings that name them explicitly list the others instead ("algorithms: all" skips them).
_AGV = ["root-gathering,fullduplex-allgatherv,fullduplex-allgatherv-ordered"] * 4  # seed 001 settings 5-8
EXPERIMENTS = {
    "quick-np8": ("configs/quick.yaml", 8, ["pair_mode=intracomm", "validation_max_bytes=256KiB"]),
    "seed000-np16": ("configs/paper/seed000-halfduplex-fc-ring.yaml", 16,
                     ["pair_mode=intracomm", "placements=[block]", "validation_max_bytes=256KiB",
                      "settings[0].algorithms=[halfduplex-fc,halfduplex-fc-minvol,root-gathering]"]),
    "allgatherv-arith-np14": ("results/node16/configs/allgatherv-arith.yaml", 14,
                              ["pair_mode=intracomm", "validation_max_bytes=256KiB"]
                              + [f"settings[{i}].algorithms=[{a}]" for i, a in enumerate(_AGV)]),
    # alltoallw's large faces are folded buffers (garbage) even at small block sizes
    "seed004-np16": ("configs/paper/seed004-isomorphic.yaml", 16, ["validation=false"]),
}
DEFAULT_REAL = REPO / "results" / "node16"
ARCHIVE = "runs.tar.xz"
# Every simulation: the emulated inter-group pairs (SMPI has no intercommunicators), one
# repetition after a warm-up (a simulation is deterministic); points are validated only below
# the fold bound (simrun --fold: folded buffers hold garbage).
COMMON = ["timing.reps=1", "timing.warmup=1"]
BUILD_DIR = REPO / "build" / "smpi"  # the simulation variant simrun runs by default (sim validate --build-dir)


LOG_LINES = 20  # of simrun's and SimGrid's output kept beside each simulation


def _has_sims(d):
    return any(resultfiles.result_files(s, ["summary"])["summary"] for s in Path(d).glob("*/*") if s.is_dir())


def _unpack(archive, into):
    """Unpacks the runs archive into `into`: regular files and directories only, every name
    inside it (a committed archive is still input: no absolute name, no '..', no link)."""
    with tarfile.open(archive, "r:xz") as tar:
        members = tar.getmembers()
        for m in members:
            name = Path(m.name)
            if name.is_absolute() or ".." in name.parts or not (m.isfile() or m.isdir()):
                raise UserError(f"{archive}: member '{m.name}' is not a plain file or directory inside the "
                                "archive; repack it (tar cJf runs.tar.xz <experiment>/...)")
        data = getattr(tarfile, "data_filter", None)  # strips modes and owners where Python has it
        tar.extractall(into, members=members, **({"filter": data} if data else {}))


@contextlib.contextmanager
def real_runs(real=None):
    """The directory of <experiment>/<mpi>/ real runs for REAL: itself, or its runs.tar.xz (REAL,
    or inside REAL) unpacked into a temporary directory that goes when the command ends."""
    real = Path(real) if real else DEFAULT_REAL
    archive = real / ARCHIVE if real.is_dir() else real
    if real.is_dir() and not archive.is_file():
        yield real
        return
    if not archive.is_file() or not archive.name.endswith(".tar.xz"):
        raise UserError(f"{real}: not a directory of <experiment>/<mpi>/ real runs nor a {ARCHIVE} of them")
    with tempfile.TemporaryDirectory(prefix="collrepro-node16-") as tmp:
        _unpack(archive, tmp)
        yield Path(tmp)


def real_dirs(real):
    """{(experiment, mpi): directory} of the EXPERIMENTS that the real-runs directory holds."""
    real = Path(real)
    if not real.is_dir():
        raise UserError(f"{real}: not a directory of <experiment>/<mpi>/ real runs")
    found = {(e, m): real / e / m for e in EXPERIMENTS for m in SELECTOR
             if resultfiles.result_files(real / e / m, ["meta"])["meta"]}
    if not found:
        raise UserError(f"{real}: none of {', '.join(EXPERIMENTS)} found as <experiment>/<mpi>/meta-L*.json")
    return found


def platform_of(mpi, alternative=False, out=OUT):
    return out / "sims-alternative" / f"node16-{mpi}.xml" if alternative else PLATFORMS / f"node16-{mpi}.xml"


def copybw_dir(out, gbps):
    return Path(out) / f"sims-copybw-{gbps:g}"


def overhead_dir(out, us):
    return Path(out) / f"sims-overhead-{us:g}"


# ---------------------------------------------------------------- platforms and simulations

def _library_runs(dirs, mpi):
    """Of real_dirs()' {(experiment, library): directory}, library `mpi`'s directories, every
    experiment's, as sim platform takes them."""
    return [str(d) for (_, m), d in sorted(dirs.items()) if m == mpi]


def make_platforms(real, out=OUT):
    """One platform per library from the ping-pongs of its validated experiments' launches, and
    the alternative (the other duplex choice) beside the alternative simulations."""
    from collrepro.sim.running import make_platform
    dirs = real_dirs(real)
    for mpi in sorted({m for _, m in dirs}):
        mine = _library_runs(dirs, mpi)
        for alternative in (False, True):
            duplex = OTHER[DUPLEX[mpi]] if alternative else DUPLEX[mpi]
            make_platform.main(mine + ["--mpi", mpi, "--duplex", duplex, "--name", f"node16-{mpi}", "--source",
                                      "real-node runs (16-core node, one rank per core)",
                                      "-o", str(platform_of(mpi, alternative, out))])


def _variant_platforms(real, directory, extra):
    """The chosen platforms (each library's duplex) with `extra` sim platform arguments, written
    into `directory` beside the simulations that use them."""
    dirs = real_dirs(real)
    for mpi in sorted({m for _, m in dirs}):
        _variant_platform(_library_runs(dirs, mpi), mpi, extra, Path(directory) / f"node16-{mpi}.xml")


def _variant_platform(runs, mpi, extra, path):
    """Library `mpi`'s chosen platform (its duplex) from its real `runs`, with `extra` sim platform
    arguments, written to `path`."""
    from collrepro.sim.running import make_platform
    make_platform.main(runs + ["--mpi", mpi, "--duplex", DUPLEX[mpi], *extra, "--name", f"node16-{mpi}",
                              "--source", "real-node runs (16-core node, one rank per core)", "-o", str(path)])


def copybw_platforms(real, out, gbps):
    """The chosen platforms with a shared-memory limit of `gbps` (all cores copying at once),
    beside their simulations: a sensitivity study of the one thing the real runs do not measure."""
    _variant_platforms(real, copybw_dir(out, gbps), ["--copy-bw", f"{gbps:g}"])


def overhead_platforms(real, out, us):
    """The chosen platforms with an assumed per-message overhead of `us` microseconds per call
    (smpi/os, ois, or), beside their simulations: a sensitivity study of the per-message cost
    the real runs predate (their metadata hold no callcosts)."""
    _variant_platforms(real, overhead_dir(out, us), ["--overhead", f"{us:g}"])


def typecost_dir(out):
    return Path(out) / "sims-typecost"


def type_costs(source):
    """{library: (A, B, UPTO)} fitted from the typecosts in the metadata of source/<mpi>/ runs
    (collbench measures them at every launch's start); libraries without them are left out."""
    from collrepro.sim.platforms import platform as sim_platform
    fits = {}
    for mpi in SELECTOR:
        d = Path(source) / mpi
        if d.is_dir():
            fit = sim_platform.type_cost(sim_platform.measurements([str(d)], mpi))
            if fit:
                fits[mpi] = fit
    if not fits:
        raise UserError(f"{source}: no <mpi>/ runs whose metadata hold typecosts with a positive extra "
                        f"(measure them: {TYPECOST_RUN})")
    return fits


def simulate_typecost(real, out, source, only=None, build_dir=BUILD_DIR):
    """The chosen platforms, every non-contiguous message charged the datatype engine's cost
    fitted from `source` (simrun --type-cost), into sims-typecost/ with the fit in type_cost.json."""
    fits = type_costs(source)
    sims = typecost_dir(out)
    sims.mkdir(parents=True, exist_ok=True)
    safeio.write_json(sims / "type_cost.json", {
        "source": str(Path(source).resolve().relative_to(REPO)) if Path(source).resolve().is_relative_to(REPO)
        else str(source),
        "per_side": {m: {"a_s": a, "b_s_per_byte": b, "upto_bytes": u} for m, (a, b, u) in sorted(fits.items())}})
    args = {m: ["--type-cost", f"{a:.6g},{b:.6g},{u:.0f}"] for m, (a, b, u) in fits.items()}
    return simulate(real, only, sims, simrun_args=args, platforms=None, build_dir=build_dir)


def simulate(real, only=None, sims=OUT / "sims", alternative=False, platforms=None, simrun_args=None,
             build_dir=BUILD_DIR):
    """Run the simulations; returns the exit code (4 when one failed). Wall times: sims/runtimes.json.
    simrun_args: {library: [extra simrun options]}."""
    times_file = Path(sims) / "runtimes.json"
    times = json.loads(times_file.read_text()) if times_file.exists() else {}
    rc = 0
    for (exp, mpi), _ in sorted(real_dirs(real).items()):
        if only and exp not in only:
            continue
        platform = Path(platforms) / f"node16-{mpi}.xml" if platforms else platform_of(mpi, alternative, Path(sims).parent)
        code = _simulate_one(exp, mpi, Path(sims) / exp / mpi, platform, (simrun_args or {}).get(mpi, []), times,
                             f"{exp}/{mpi}", build_dir)
        rc = rc or (4 if code else 0)
    safeio.write_json(times_file, times)
    return rc


def _simulate_one(exp, mpi, out, platform, extra, times, key, build_dir=BUILD_DIR):
    """One simulation of experiment `exp` with library `mpi`'s selector on `platform` into `out`;
    its wall and CPU time go to times[key]; returns simrun's exit code."""
    config, np_, sets = EXPERIMENTS[exp]
    if out.exists():
        for f in out.glob("*-L0*"):
            f.unlink()
    cmd = [str(REPO / "bench" / "sim" / "simrun"), "--build-dir", str(build_dir), "--platform", str(platform),
           "--coll-selector", SELECTOR[mpi], "--np", str(np_), "--out", str(out),
           *extra, str(REPO / config), "--", "--quiet"] + [x for s in COMMON + sets for x in ("--set", s)]
    print(f"sim_validate: {key}", file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    t0, c0 = time.time(), os.times()
    with open(out / "simrun.log", "w+") as log:  # SimGrid's own lines; the last ones say why it failed
        code = subprocess.run(cmd, check=False, stderr=log).returncode
        log.seek(0)
        tail = log.read().splitlines()[-LOG_LINES:]
    safeio.write_text(out / "simrun.log", "\n".join(tail) + "\n")
    c1 = os.times()
    times[key] = {"wall_s": round(time.time() - t0, 1),
                  "cpu_s": round(c1.children_user - c0.children_user + c1.children_system - c0.children_system, 1),
                  "exit": code}
    print(f"sim_validate: {key}: exit {code}, {times[key]['wall_s']} s", file=sys.stderr)
    return code


# ---------------------------------------------------------------- the node's shared memory, per size

def shared_dir(out):
    return Path(out) / "sims-shared"


def simulate_shared(real, out, only=None, build_dir=BUILD_DIR):
    """Each experiment once per message size of its real points, on the chosen platform whose
    backbone is the node's concurrent ping-pong at that size (sim platform --shared-size), into
    sims-shared/<experiment>/<mpi>/<bytes>/; only that size's points count (shared_medians). The
    point's size (collbench's msg_bytes, a block) chooses the platform, though an algorithm may
    also send messages of several blocks; and each whole experiment runs once per size (its sizes
    times the plain simulation's cost). Refused, in one line, where the real runs' metadata hold
    no concurrent_pingpong."""
    from collrepro.sim.platforms import platform as sim_platform
    sims = shared_dir(out)
    every = real_dirs(real)
    dirs = {k: d for k, d in sorted(every.items()) if not only or k[0] in only}
    runs = {mpi: _library_runs(every, mpi) for mpi in sorted({m for _, m in dirs})}
    for mpi, mine in runs.items():
        if not sim_platform.measurements(mine, mpi)["concurrent"]:
            raise UserError(f"the real {mpi} runs' metadata hold no concurrent_pingpong (collbench measures it "
                            "at every launch's start on one node since it existed); run results/node16/"
                            "experiments-calibration.sh on the node, or leave --shared out")
    times_file = sims / "runtimes.json"
    times = json.loads(times_file.read_text()) if times_file.exists() else {}
    made, rc = set(), 0
    for (exp, mpi), rdir in dirs.items():
        for size in sorted(int(b) for b in medians(rdir)["msg_bytes"].unique()):
            platform = sims / "platforms" / f"node16-{mpi}-{size}.xml"
            if (mpi, size) not in made:
                platform.parent.mkdir(parents=True, exist_ok=True)
                _variant_platform(runs[mpi], mpi, ["--shared-size", str(size)], platform)
                made.add((mpi, size))
            code = _simulate_one(exp, mpi, sims / exp / mpi / str(size), platform, [], times, f"{exp}/{mpi}/{size}",
                                 build_dir)
            rc = rc or (4 if code else 0)
    safeio.write_json(times_file, times)
    return rc


def shared_medians(directory):
    """medians() of each <bytes>/ simulation under `directory`, that size's points only."""
    parts = [medians(d).query("msg_bytes == @size", local_dict={"size": int(d.name)})
             for d in sorted(Path(directory).iterdir()) if d.is_dir() and d.name.isdigit()
             and resultfiles.result_files(d, ["summary"])["summary"]]
    return pd.concat(parts, ignore_index=True) if parts else None


# ---------------------------------------------------------------- the comparison

def medians(directory):
    """Per point (collective, shape, msg_bytes, algorithm): the median over launches of the
    per-launch Tukey medians, and the launches behind it."""
    from collrepro.analysis.frames import aggregate as A
    from collrepro.analysis.loading import loader
    per = A.per_launch(loader.load([Path(directory)]))
    per = per[per["median"].notna()]
    per = per.assign(shape=[A.shape_label(r) for _, r in per.iterrows()],
                     neighbors=pd.to_numeric(per.get("neighbors"), errors="coerce").fillna(0).astype(int)
                     if "neighbors" in per else 0)
    g = per.groupby(["collective", "shape", "msg_bytes", "neighbors", "algorithm"])["median"]
    return pd.DataFrame({"median_s": g.median(), "launches": g.size(), "min_s": g.min(),
                         "max_s": g.max()}).reset_index()




def ranking_preserved(group, min_gap=0.0):
    """Whether the simulation orders the algorithms of one (collective, shape, size) as the node
    does: every pair the real runs tell apart (their per-launch medians do not overlap: one
    algorithm's slowest launch beats the other's fastest) has the same order in the simulated
    medians (a simulated tie, ties.tied, is not that order). None where the real runs tell
    no pair apart.
    Pairs whose launches overlap are ties the node itself cannot order, and are not counted;
    with min_gap > 0, neither are pairs whose real medians lie less than that share apart."""
    pairs = 0
    for fast, slow in told_apart(group):
        if slow.real_median_s < (1 + min_gap) * fast.real_median_s:
            continue
        pairs += 1
        if not ties.faster(fast.sim_median_s, slow.sim_median_s):
            return False
    return True if pairs else None


def told_apart(group):
    """(faster, slower) for every pair of a shape's algorithms whose real launches do not overlap."""
    rows = list(group.itertuples(index=False))
    for i, a in enumerate(rows):
        for b in rows[i + 1:]:
            if a.real_max_s < b.real_min_s:
                yield a, b
            elif b.real_max_s < a.real_min_s:
                yield b, a


def compare(real, sim, experiment, mpi):
    """One row per point both have: real and simulated medians, error %, ranking preserved."""
    both = real.merge(sim, on=["collective", "shape", "msg_bytes", "neighbors", "algorithm"], suffixes=("_real", "_sim"))
    both = both.rename(columns={"median_s_real": "real_median_s", "median_s_sim": "sim_median_s",
                                "launches_real": "real_launches", "min_s_real": "real_min_s",
                                "max_s_real": "real_max_s"}).drop(columns=["launches_sim", "min_s_sim", "max_s_sim"])
    both["error_pct"] = (both["sim_median_s"] - both["real_median_s"]) / both["real_median_s"] * 100.0
    keys = ["collective", "shape", "msg_bytes"]
    ranks = {k: ranking_preserved(g) for k, g in both.groupby(keys)}
    both["ranking_preserved"] = [ranks[tuple(k)] for k in both[keys].itertuples(index=False)]
    both.insert(0, "library", mpi)
    both.insert(0, "experiment", experiment)
    return both


def summarize(points):
    """Per experiment and library: points, median and 90th percentile of |error|, shapes ranked,
    share of shapes (collective, shape, size) whose ranking is preserved."""
    rows = []
    for (exp, mpi), sub in points.groupby(["experiment", "library"], sort=True):
        err = sub["error_pct"].abs()
        shapes = sub.drop_duplicates(["collective", "shape", "msg_bytes"])
        ranked = shapes["ranking_preserved"].dropna()
        rows.append({"experiment": exp, "library": mpi, "points": len(sub),
                     "median_abs_error_pct": round(float(err.median()), 1),
                     "p90_abs_error_pct": round(float(np.percentile(err, 90)), 1),
                     "shapes_ranked": len(ranked),
                     "ranking_preserved_pct": round(100.0 * ranked.astype(bool).mean(), 1) if len(ranked) else None})
    return pd.DataFrame(rows)


def build(real, sims=OUT / "sims", per_size=False):
    """points (every compared point) from the real directories and the simulations (per_size: one
    simulation per size, sims-shared/'s layout)."""
    parts, missing = [], []
    for (exp, mpi), rdir in sorted(real_dirs(real).items()):
        sdir = Path(sims) / exp / mpi
        if per_size:
            sim = shared_medians(sdir) if sdir.is_dir() else None
        else:
            sim = medians(sdir) if resultfiles.result_files(sdir, ["summary"])["summary"] else None
        if sim is None:
            missing.append(f"{exp}/{mpi}")
            continue
        real_points = medians(rdir)
        if per_size:  # a size whose simulation failed or never ran
            missing += [f"{exp}/{mpi}/{int(b)}" for b in sorted(set(real_points["msg_bytes"]) - set(sim["msg_bytes"]))]
        parts.append(compare(real_points, sim, exp, mpi))
    if not parts:
        raise UserError(f"{sims}: no simulation found; run `collrepro-py sim validate run` first")
    return pd.concat(parts, ignore_index=True), missing


def phase_medians(directory):
    """Per shape, size, algorithm and phase (collbench's timing.phases): the median over launches
    of the per-launch median; None when the directory holds no phases."""
    from collrepro.analysis.figures import phases as P
    from collrepro.analysis.loading import loader
    if not resultfiles.result_files(Path(directory), ["phases"])["phases"]:
        return None
    table = P.table(P.load(loader.load([Path(directory)])))
    return table[["shape", "msg_bytes", "algorithm", "phase_index", "phase", "median_s"]]


def phase_points(real, sims=OUT / "sims"):
    """Where both the node's runs and the simulation timed phases: one row per phase of every
    point, real and simulated medians and the error; None where no experiment has them."""
    parts = []
    for (exp, mpi), rdir in sorted(real_dirs(real).items()):
        sdir = Path(sims) / exp / mpi
        real_phases = phase_medians(rdir)
        sim_phases = phase_medians(sdir) if real_phases is not None and sdir.is_dir() else None
        if sim_phases is None:
            continue
        both = real_phases.merge(sim_phases, on=["shape", "msg_bytes", "algorithm", "phase_index", "phase"],
                                 suffixes=("_real", "_sim"))
        both["error_pct"] = (both["median_s_sim"] - both["median_s_real"]) / both["median_s_real"] * 100.0
        both.insert(0, "library", mpi)
        both.insert(0, "experiment", exp)
        parts.append(both)
    return pd.concat(parts, ignore_index=True) if parts else None


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
            "Allgatherv) rather than the platform as a whole:", "", _md(tab), ""]


# ---------------------------------------------------------------- the report

def _fmt(x, digits=1):
    return "-" if x is None or (isinstance(x, float) and not np.isfinite(x)) else f"{x:.{digits}f}"


def _md(frame):
    from collrepro.analysis.frames.tables import markdown_table
    return markdown_table(frame)


def figure(points, path, real_label="16-core node, one rank per core",
           sim_label="SimGrid, calibrated node platform", band=GOAL_MEDIAN_ERR, series="experiment"):
    """Simulated against real median, log-log, with y = x and the +-band % band; one colour per
    value of `series`."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 6.5))
    markers = {"openmpi": "o", "mpich": "^"}
    exps = sorted(points[series].unique())
    colors = dict(zip(exps, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    for (exp, mpi), sub in points.groupby([series, "library"]):
        ax.scatter(sub["real_median_s"] * 1e3, sub["sim_median_s"] * 1e3, s=14, alpha=0.7,
                   marker=markers.get(mpi, "s"), color=colors[exp], label=f"{exp} / {mpi} ({len(sub)})")
    lo = float(min(points["real_median_s"].min(), points["sim_median_s"].min()) * 1e3) / 1.5
    hi = float(max(points["real_median_s"].max(), points["sim_median_s"].max()) * 1e3) * 1.5
    xs = np.array([lo, hi])
    ax.plot(xs, xs, color="black", lw=1, label="y = x")
    ax.fill_between(xs, xs / (1 + band / 100), xs * (1 + band / 100), color="grey", alpha=0.2, lw=0,
                    label=f"within {band:g} %")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel(f"real median (ms): {real_label}")
    ax.set_ylabel(f"simulated median (ms): {sim_label}")
    ax.set_title("Simulated against real, per point")
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    with safeio.atomic_file(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=110)
    plt.close(fig)


def _by(points, keys):
    """Median signed error and median |error| per group: where the simulation is off, and which way."""
    from collrepro.analysis.frames.units import format_bytes
    g = points.groupby(["experiment", "library"] + keys, sort=True)["error_pct"]
    out = pd.DataFrame({"points": g.size(), "median error %": g.median().round(1),
                        "median abs. error %": g.apply(lambda e: e.abs().median()).round(1)}).reset_index()
    if "msg_bytes" in out:
        out["msg_bytes"] = [format_bytes(int(b)) for b in out["msg_bytes"]]
    return out


def pingpong_check(real, sims):
    """The ping-pong the platforms were made from against the one each library's simulations
    measured on them (collbench measures it at every launch's start, simulated or not)."""
    from collrepro.sim.platforms import platform as sim_platform
    rows = []
    dirs = real_dirs(real)
    for mpi in sorted({m for _, m in dirs}):
        measured = sim_platform.measurements([str(d) for (_, m), d in sorted(dirs.items()) if m == mpi], mpi)
        metas = sorted(Path(sims).glob(f"*/{mpi}/meta-L0.json*"))
        if not metas:
            continue
        simulated = {s["bytes"]: s["time_s"] for s in sim_platform._load_meta(str(metas[0])).get("pingpong") or []}
        for s in measured["pingpong"]:
            got = simulated.get(s["bytes"])
            rows.append({"library": mpi, "bytes": s["bytes"], "measured (us)": round(s["time_s"] * 1e6, 3),
                         "launches": s["launches"], "simulated (us)": None if got is None else round(got * 1e6, 3),
                         "error %": None if got is None else round((got - s["time_s"]) / s["time_s"] * 100, 1)})
    return pd.DataFrame(rows)


def _verdict(row):
    ok_err = row["median_abs_error_pct"] <= GOAL_MEDIAN_ERR
    ok_rank = row["ranking_preserved_pct"] is not None and row["ranking_preserved_pct"] >= GOAL_RANKING
    return "both met" if ok_err and ok_rank else ("error met" if ok_err else ("ranking met" if ok_rank else "neither"))


# Two simulated times closer than this share are "alike": the algorithms send the same messages in
# the model, and only what the platforms do not charge (software per call and per message) can
# separate them.
SIM_ALIKE = 0.02
SMALL_BYTES, LARGE_BYTES = 4096, 1 << 20


def misordered_pairs(points):
    """Every pair of algorithms the node tells apart (launch ranges apart) that the simulation
    orders otherwise: experiment, library, shape, size, faster and slower (real), the real and
    simulated ratio slower / faster, and whether the simulation has them alike (within SIM_ALIKE)."""
    rows = []
    keys = ["experiment", "library", "collective", "shape", "msg_bytes"]
    for k, g in points[points["ranking_preserved"] == False].groupby(keys):  # noqa: E712
        for fast, slow in told_apart(g):
            if ties.faster(fast.sim_median_s, slow.sim_median_s):
                continue
            sim_ratio = slow.sim_median_s / fast.sim_median_s
            rows.append(dict(zip(keys, k), faster=fast.algorithm, slower=slow.algorithm,
                             real_ratio=slow.real_median_s / fast.real_median_s, sim_ratio=sim_ratio,
                             alike=abs(sim_ratio - 1) <= SIM_ALIKE))
    return pd.DataFrame(rows, columns=keys + ["faster", "slower", "real_ratio", "sim_ratio", "alike"])


def _why_rows_miss(points, summary):
    """For every experiment/library that misses a goal: where its error lies by size, and whether
    the pairs it misorders are simulated alike or reversed (all computed here)."""
    pairs = misordered_pairs(points)
    rows = []
    for _, r in summary.iterrows():
        verdict = _verdict(r)
        if verdict == "both met":
            continue
        sel = points[(points["experiment"] == r["experiment"]) & (points["library"] == r["library"])]
        band = lambda m: (f"{sel.loc[m, 'error_pct'].median():+.1f} ({int(m.sum())})" if m.any() else "-")  # noqa: E731
        mine = pairs[(pairs["experiment"] == r["experiment"]) & (pairs["library"] == r["library"])]
        rows.append({"experiment": r["experiment"], "library": r["library"], "goal": verdict,
                     f"<= {SMALL_BYTES // 1024} KiB: median error % (points)": band(sel["msg_bytes"] <= SMALL_BYTES),
                     "between": band((sel["msg_bytes"] > SMALL_BYTES) & (sel["msg_bytes"] < LARGE_BYTES)),
                     f">= {LARGE_BYTES >> 20} MiB": band(sel["msg_bytes"] >= LARGE_BYTES),
                     "misordered pairs": len(mine), "simulated alike": int(mine["alike"].sum()),
                     "reversed": int((~mine["alike"]).sum())})
    if not rows:
        return []
    return ["## Why each row that misses misses", "",
            "Per experiment and library that misses a goal: the median signed error (negative: the simulation "
            "is faster) of its smallest messages, of the middle sizes and of the largest, and the pairs of "
            "algorithms the node tells apart but the simulation orders otherwise: simulated alike (within "
            f"{SIM_ALIKE:.0%}: in the model the two send the same messages, and what separates them on the "
            "node is what the platforms do not charge, the software cost of each call and message) or "
            "reversed. A negative error at the smallest sizes with alike pairs is CPU work per call that the "
            "ping-pong does not hold (\"Per-message software cost\" below: an overhead carved out of the "
            "ping-pong does not close it; a node run's `callcosts` and per-call timings would size it, and "
            "the committed runs predate them; part of it, where algorithms send derived datatypes, is the "
            "library's datatype engine, measured: \"The datatype engine\" below); a negative error that grows to "
            "the largest sizes is the node's shared memory "
            "(\"The node's shared memory bandwidth\" below); one algorithm off alone is a library choice "
            "(\"Phases\" above).", "", _md(pd.DataFrame(rows)), ""]


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
            "and may stand either way), the simulated order with ties by name:", "", _md(pd.DataFrame(rows)), ""]


def _typecost_section(points, typecost):
    """The datatype engine: each library's fitted cost per side of a non-contiguous message, and
    the goal's numbers and the isomorphic algorithms' median errors without and with it."""
    if not typecost:
        return []
    pts, fit = typecost
    base = summarize(points).set_index(["experiment", "library"])
    withc = summarize(pts).set_index(["experiment", "library"])
    rows = []
    for (e, m), r in base.iterrows():
        if (e, m) not in withc.index:
            continue
        w = withc.loc[(e, m)]
        rows.append({"experiment": e, "library": m, "median abs. error %": r["median_abs_error_pct"],
                     "with the cost": w["median_abs_error_pct"], "ranking %": r["ranking_preserved_pct"],
                     "ranking with the cost": w["ranking_preserved_pct"],
                     "goal with the cost": _verdict(w.to_dict())})
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
           "`sims-typecost/`, bench/sim/typecost.cpp):", "", _md(pd.DataFrame(rows)), ""]
    if algs is not None:
        out += ["Seed 004's algorithms, median signed error over their points:", "", _md(algs), "",
                "A cost measured on another CPU than the node's: the node's own `typecosts` (any collbench run "
                "there records them) would replace it.", ""]
    return out


def _shared_section(points, shared):
    """The node's shared memory per size (run --shared; shared: build()'s points and missing
    simulations): the goal's numbers and the median signed error per size without and with it."""
    if shared is None or not len(shared[0]):
        return []
    shared, missing = shared
    base = summarize(points).set_index(["experiment", "library"])
    rows = []
    for (e, m), w in summarize(shared).set_index(["experiment", "library"]).iterrows():
        r = base.loc[(e, m)] if (e, m) in base.index else {}
        rows.append({"experiment": e, "library": m, "median abs. error %": r.get("median_abs_error_pct"),
                     "with the shared memory": w["median_abs_error_pct"], "ranking %": r.get("ranking_preserved_pct"),
                     "ranking with it": w["ranking_preserved_pct"], "goal with it": _verdict(w.to_dict())})
    per = pd.concat([f.groupby(["experiment", "library", "msg_bytes"])["error_pct"].median().round(1).rename(label)
                     for label, f in (("median error % without", points), ("with", shared))], axis=1).reset_index()
    return ["## The node's shared memory, per size (`sims-shared/`)", "",
            "collbench's `concurrent_pingpong` (every pair of ranks moving messages of 64 KiB to 4 MiB at once, "
            "against one pair alone) says how much the node's shared memory slows many transfers at once; "
            "`collrepro-py sim platform --shared-size BYTES` turns it into the backbone for messages of that size, "
            "and `run --shared` simulates each experiment once per size on that size's platform "
            "(`sims-shared/platforms/`), keeping that size's points:", "", _md(pd.DataFrame(rows)), "",
            "Median signed error per size:", "", _md(per), ""] + (
               [f"Not simulated (no result): {', '.join(missing)}; the rows above leave them out.", ""]
               if missing else [])


def _overhead_rows(points, overhead):
    """Per experiment and library, the goal's two numbers without and with each assumed overhead,
    and the median error of the smallest blocks (<= SMALL_BYTES)."""
    rows = []
    base = summarize(points).set_index(["experiment", "library"])
    def small(pts, e, m):
        err = pts[(pts["experiment"] == e) & (pts["library"] == m) & (pts["msg_bytes"] <= SMALL_BYTES)]["error_pct"]
        return round(float(err.median()), 1) if len(err) else "-"
    for (e, m), r in base.iterrows():
        row = {"experiment": e, "library": m, "none: median abs. error %": r["median_abs_error_pct"],
               "ranking %": r["ranking_preserved_pct"], f"<= {SMALL_BYTES // 1024} KiB: median error %": small(points, e, m)}
        for us, pts in sorted(overhead.items()):
            o = summarize(pts).set_index(["experiment", "library"])
            if (e, m) in o.index:
                row[f"{us:g} us: median abs. error %"] = o.loc[(e, m), "median_abs_error_pct"]
                row[f"{us:g} us: ranking %"] = o.loc[(e, m), "ranking_preserved_pct"]
                row[f"{us:g} us: <= {SMALL_BYTES // 1024} KiB %"] = small(pts, e, m)
        rows.append(row)
    return pd.DataFrame(rows)


def _misses(points, alternative, copybw=None, overhead=None):
    """What the simulation misses, each with the numbers that show it (all computed here)."""
    out = ["## What the simulation misses, with the evidence", ""]
    def med(sel):
        e = points.loc[sel, "error_pct"]
        return float(e.median()) if len(e) else float("nan")
    lib, exp, size = points["library"], points["experiment"], points["msg_bytes"]
    if alternative is not None:
        both = summarize(points)[["experiment", "library", "median_abs_error_pct", "ranking_preserved_pct"]].merge(
            summarize(alternative)[["experiment", "library", "median_abs_error_pct", "ranking_preserved_pct"]],
            on=["experiment", "library"], suffixes=(" (chosen)", " (other duplex)"))
        both.insert(2, "chosen duplex", [DUPLEX.get(m, "?") for m in both["library"]])
        out += ["- **How a core's sends and receives share it.** The platforms model Open MPI's cores with "
                "sends and receives sharing one link and MPICH's with the two side by side; the same "
                "simulations with the other choice (`sims-alternative/`):", "", _md(both), ""]
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
            "--copy-bw GBPS` adds it once measured, e.g. by the command's own measurement on the node):", "",
            _md(pd.DataFrame(rows)), ""]
    if copybw:
        from collrepro.analysis.frames.units import format_bytes
        table = points.groupby(["experiment", "library", "msg_bytes"])["error_pct"].median().rename("no shared limit")
        cols = [table]
        for gbps, pts in sorted(copybw.items()):
            cols.append(pts.groupby(["experiment", "library", "msg_bytes"])["error_pct"].median().rename(f"{gbps:g} GB/s"))
        t = pd.concat(cols, axis=1, join="inner").round(1).reset_index()
        t["msg_bytes"] = [format_bytes(int(b)) for b in t["msg_bytes"]]
        out += ["  The same simulations with a shared-memory limit (`run --copy-bw GBPS`, `sims-copybw-*/`; "
                "median signed error % per size):", "", _md(t), ""]
        # Does some limit bring an experiment's largest size within 15 % while it pushes its
        # smallest more than 15 % over (and 15 points further than without it)? Then no single
        # backbone bandwidth fits both.
        split = []
        for (e, m), sub in t.groupby(["experiment", "library"], sort=False):
            for c in [c for c in t.columns if c.endswith("GB/s")]:
                raised = sub[c].iloc[0] - sub["no shared limit"].iloc[0]  # what the limit did to the smallest
                if abs(sub[c].iloc[-1]) <= GOAL_MEDIAN_ERR < min(sub[c].iloc[0], raised):
                    split.append(f"{e} / {m} at {c}: {sub[c].iloc[-1]:+.1f} % at {sub['msg_bytes'].iloc[-1]}, "
                                 f"{sub[c].iloc[0]:+.1f} % at {sub['msg_bytes'].iloc[0]}")
        if split:
            out += ["  A limit that brings the largest messages within 15 % overshoots the smallest ("
                    + "; ".join(split) + "): the node's effective shared bandwidth depends on the size "
                    "(a few hundred KiB stay in the caches, megabytes go to memory), which one backbone "
                    "bandwidth cannot model. collbench now measures the node's slow-down per size at every "
                    "launch's start (metadata `concurrent_pingpong`: every pair of ranks at once against one "
                    "pair, 64 KiB to 4 MiB), and `run --shared` simulates each size on the backbone that "
                    "measurement gives (`sims-shared/`) once the node's runs hold it "
                    "(results/node16/experiments-calibration.sh).", ""]
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
                "platform` turns them into those three settings). Seed 004's blocks of at most 64 B, where messages are nearly empty, by "
                f"neighbourhood size (median error over them {float(iso['error_pct'].median()):.1f} %; a share "
                f"that stays about the same from {g['neighbors'].min()} to {g['neighbors'].max()} neighbours is a cost "
                "per message):", "", _md(g), ""]
    if overhead:
        out += ["  The same simulations with a per-message overhead assumed, not measured (`run --overhead US`, "
                "`sims-overhead-*/`: each of smpi/os, smpi/ois and smpi/or at every size where it fits, the links "
                "carrying the rest of the ping-pong, so the ping-pong itself is unchanged): if the missing cost is "
                "per message, the smallest blocks' error moves towards 0 at one value for every experiment:", "",
                _md(_overhead_rows(points, overhead)), ""]
        from collrepro.sim.platforms import platform as sim_platform
        most = max(overhead)
        moved = []
        for (e, m), sub in points[points["msg_bytes"] <= SMALL_BYTES].groupby(["experiment", "library"]):
            with_most = overhead[most]
            w = with_most[(with_most["experiment"] == e) & (with_most["library"] == m)
                          & (with_most["msg_bytes"] <= SMALL_BYTES)]["error_pct"]
            if len(w):
                moved.append(f"{e} / {m} {sub['error_pct'].median():+.1f} -> {w.median():+.1f} %")
        out += [f"  At {most:g} us per call (about the most the 1-byte ping-pong can hold: send and receive "
                f"together at most {sim_platform.EAGER_SHARE:g} of its one-way time) the smallest blocks' median error goes "
                + "; ".join(moved) + ". With the ping-pong kept, an overhead moves time from the links to the "
                "calls; what the node spends beyond that is work the ping-pong does not contain (per call: "
                "requests, derived datatypes, the neighbourhood's schedule), which only the node's own "
                "`callcosts` and per-call timings can size.", ""]
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
            "directions point at the choices rather than at the platform:", "", _md(spread), ""]
    return out


def readme(points, summary, times, missing, alternative=None, alt_times=None, copybw=None, pingpong=None,
           phases=None, overhead=None, typecost=None, shared=None):
    """alt_times: {directory name: runtimes} of the other simulations (sims-alternative, sims-copybw-*)."""
    """The README's text: every number below comes from `points`, `summary` and `times`."""
    summ = summary.copy()
    summ["goal (<= 15 %, >= 90 %)"] = [_verdict(r) for _, r in summ.iterrows()]
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
        "collrepro-py sim validate run --alternative     # sims-alternative/: the other duplex choice",
        "collrepro-py sim validate run --copy-bw 32 --copy-bw 64 --only quick-np8 \\",
        "    --only seed000-np16 --only allgatherv-arith-np14      # sims-copybw-*/: a shared-memory limit",
        "collrepro-py sim validate run --overhead 0.05 --overhead 0.1   # sims-overhead-*/: a per-message cost",
        "collrepro-py sim validate run --typecosts results/sim/validation/typecosts-vm   # sims-typecost/: the datatype engine",
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
        *([_md(pingpong), ""] if pingpong is not None and len(pingpong) else ["  (no simulation yet)", ""]),
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
        _md(summ),
        "",
        f"All {len(points)} points: median |error| {_fmt(float(err.median()))} %, 90th percentile "
        f"{_fmt(float(np.percentile(err, 90)))} %; ranking preserved at {int(ranked.sum())} of {len(ranked)} ranked "
        f"shapes ({_fmt(100.0 * ranked.mean() if len(ranked) else None)} %). Goal (median |error| <= "
        f"{GOAL_MEDIAN_ERR:g} %, ranking >= {GOAL_RANKING:g} %) met by {len(met)} of {len(summ)} experiment/library pairs"
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
        _md(_by(points, ["msg_bytes"])),
        "",
        "Per algorithm:",
        "",
        _md(_by(points, ["algorithm"])),
        "",
    ] + _why_rows_miss(points, summary) + _phases_section(phases) + _misses(points, alternative, copybw, overhead) \
        + _typecost_section(points, typecost) + _shared_section(points, shared) + _ranking_failures(points)
    return "\n".join(out) + "\n"


def write_report(real, out=OUT):
    out = Path(out)
    points, missing = build(real, out / "sims")
    summary = summarize(points)
    times_file = out / "sims" / "runtimes.json"
    times = json.loads(times_file.read_text()) if times_file.exists() else {}
    cols = ["experiment", "library", "collective", "shape", "msg_bytes", "neighbors", "algorithm", "real_median_s", "real_min_s",
            "real_max_s", "real_launches", "sim_median_s", "error_pct", "ranking_preserved"]
    safeio.write_csv(out / "points.csv", points[cols].round({"error_pct": 2}))
    safeio.write_csv(out / "summary.csv", summary)
    figure(points, out / "sim_vs_real.png")
    alternative = None
    if _has_sims(out / "sims-alternative"):
        alternative, _ = build(real, out / "sims-alternative")
    alt_times = {d.name: json.loads((d / "runtimes.json").read_text())
                 for d in sorted(out.glob("sims-*")) if (d / "runtimes.json").is_file()}
    overhead = {}
    for d in sorted(out.glob("sims-overhead-*")):
        if _has_sims(d):
            overhead[float(d.name.split("-")[-1])], _ = build(real, d)
    copybw = {}
    for d in sorted(out.glob("sims-copybw-*")):
        if _has_sims(d):
            copybw[float(d.name.split("-")[-1])], _ = build(real, d)
    typecost = None
    if _has_sims(typecost_dir(out)) and (typecost_dir(out) / "type_cost.json").is_file():
        typecost = (build(real, typecost_dir(out))[0], json.loads((typecost_dir(out) / "type_cost.json").read_text()))
    shared = None
    if any(shared_dir(out).glob("*/*/*/summary-*")):
        shared = build(real, shared_dir(out), per_size=True)
    phases = phase_points(real, out / "sims")
    if phases is not None:
        safeio.write_csv(out / "phases.csv", phases.round({"error_pct": 2}))
    safeio.write_text(out / "README.md", readme(points, summary, times, missing, alternative, alt_times, copybw,
                                                pingpong_check(real, out / "sims"), phases, overhead, typecost, shared))
    return summary


# ---------------------------------------------------------------- the command

def _parser():
    ap = ArgumentParser(prog="sim validate", description=__doc__.split("\n")[0])
    ap.add_argument("action", choices=["platforms", "run", "report", "all"])
    ap.add_argument("real", nargs="?", default=str(DEFAULT_REAL),
                    help=f"directory of <experiment>/<mpi>/ real runs, or a {ARCHIVE} of them (or a directory "
                         f"holding one); default {DEFAULT_REAL.relative_to(REPO)}")
    ap.add_argument("--only", action="append", choices=sorted(EXPERIMENTS), help="run only this experiment")
    ap.add_argument("--alternative", action="store_true",
                    help="run: simulate with the other duplex choice into sims-alternative/ (the README compares)")
    ap.add_argument("--copy-bw", type=float, action="append", default=[],
                    help="run: simulate with this shared-memory limit (GB/s, all cores) into sims-copybw-GBPS/")
    ap.add_argument("--overhead", type=float, action="append", default=[], metavar="US",
                    help="run: simulate with this per-message overhead assumed (us per call: smpi/os, ois, or) "
                         "into sims-overhead-US/ (the README compares)")
    ap.add_argument("--typecosts", metavar="DIR",
                    help="run: simulate with each library's datatype-engine cost fitted from the typecosts of "
                         "DIR/<mpi>/ runs into sims-typecost/ (the README compares)")
    ap.add_argument("--shared", action="store_true",
                    help="run: simulate each experiment once per message size with the node's shared memory from "
                         "the real runs' concurrent_pingpong into sims-shared/ (the README compares)")
    ap.add_argument("--out", default=str(OUT), help="where the report goes (default results/sim/validation)")
    ap.add_argument("--build-dir", default=str(BUILD_DIR), help="run: the smpi build simrun uses (default build/smpi)")
    return ap


def main(argv=None):
    a = _parser().parse_args(argv)
    with real_runs(a.real) as real:
        a.real = str(real)
        return _act(a)


def _act(a):
    build_dir = Path(a.build_dir)
    out = Path(a.out)
    rc = 0
    if a.action in ("platforms", "all"):
        make_platforms(a.real, out)
    for gbps in a.copy_bw if a.action == "run" else []:
        copybw_platforms(a.real, out, gbps)
        rc = simulate(a.real, a.only, copybw_dir(out, gbps), platforms=copybw_dir(out, gbps), build_dir=build_dir) or rc
    for us in a.overhead if a.action == "run" else []:
        overhead_platforms(a.real, out, us)
        rc = simulate(a.real, a.only, overhead_dir(out, us), platforms=overhead_dir(out, us), build_dir=build_dir) or rc
    if a.typecosts and a.action == "run":
        rc = simulate_typecost(a.real, out, a.typecosts, a.only, build_dir) or rc
    if a.shared and a.action == "run":
        rc = simulate_shared(a.real, out, a.only, build_dir) or rc
    if (a.copy_bw or a.overhead or a.typecosts or a.shared) and a.action == "run":
        return rc
    if a.action in ("run", "all") and (a.action == "all" or not a.alternative):
        rc = simulate(a.real, a.only, out / "sims", build_dir=build_dir)
    if a.action in ("run", "all") and (a.action == "all" or a.alternative):
        rc = simulate(a.real, a.only, out / "sims-alternative", alternative=True, build_dir=build_dir) or rc
    if a.action in ("report", "all"):
        write_report(a.real, out)
    return rc

