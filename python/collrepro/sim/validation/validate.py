"""The simulation checked point by point against a real node: the machinery every study shares.

REAL holds real runs as <experiment>/<mpi>/ result directories (one rank per core on one node,
each launch's ping-pong in its metadata), or is such a tree packed as runs.tar.xz (or a
directory holding one): by default results/node16/, the 16-core node's runs committed in the
repository, unpacked into a temporary directory for the command. `make_platforms` derives one
platform per MPI library from that library's ping-pongs (python/collrepro/sim/platforms/platform.py);
`simulate` runs every experiment of EXPERIMENTS that REAL holds, with the library's platform
and SimGrid's collective selector for that library (ompi for Open MPI, mpich for MPICH),
through bench/sim/simrun; `build` compares.

Per point (collective, shape, size, algorithm): the real median (median over launches of the
per-launch Tukey medians), the simulated median, error = (simulated - real) / real in %, and
whether the ranking of the algorithms at that collective, shape and size (those both ran) is
the same in simulation as on the node.

The command is validate_command.py (`collrepro-py sim validate`), the README report.py; each
sensitivity study (the same simulations with one thing changed) is one file, study_*.py
(study.py says how one is made).
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
from collrepro.safeio import UserError
from collrepro.sim.validation import ties

REPO = Path(paths.REPO)

OUT = REPO / "results" / "sim" / "validation"

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


def has_sims(d):
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


def platform_of(mpi):
    """Library `mpi`'s chosen platform (its duplex), as `make_platforms` writes it."""
    return PLATFORMS / f"node16-{mpi}.xml"


# ---------------------------------------------------------------- platforms and simulations

def _library_runs(dirs, mpi):
    """Of real_dirs()' {(experiment, library): directory}, library `mpi`'s directories, every
    experiment's, as sim platform takes them."""
    return [str(d) for (_, m), d in sorted(dirs.items()) if m == mpi]


def make_platforms(real):
    """One platform per library from the ping-pongs of its validated experiments' launches, with
    the library's duplex (platform_of)."""
    dirs = real_dirs(real)
    for mpi in sorted({m for _, m in dirs}):
        variant_platform(_library_runs(dirs, mpi), mpi, [], platform_of(mpi))


def variant_platforms(real, directory, extra, duplex=None):
    """Each library's platform with `extra` sim platform arguments (and `duplex`: {library: choice},
    default each library's own), written into `directory` beside the simulations that use them."""
    dirs = real_dirs(real)
    Path(directory).mkdir(parents=True, exist_ok=True)
    for mpi in sorted({m for _, m in dirs}):
        variant_platform(_library_runs(dirs, mpi), mpi, extra, Path(directory) / f"node16-{mpi}.xml",
                         (duplex or DUPLEX)[mpi])


def variant_platform(runs, mpi, extra, path, duplex=None):
    """Library `mpi`'s platform from its real `runs`, with `extra` sim platform arguments, written
    to `path`; duplex: the library's own choice by default."""
    from collrepro.sim.running import make_platform
    make_platform.main(runs + ["--mpi", mpi, "--duplex", duplex or DUPLEX[mpi], *extra, "--name", f"node16-{mpi}",
                               "--source", "real-node runs (16-core node, one rank per core)", "-o", str(path)])


def simulate(real, only=None, sims=OUT / "sims", platforms=None, simrun_args=None, build_dir=BUILD_DIR):
    """Run the simulations into `sims`, on the platforms in the directory `platforms` (default each
    library's chosen one); returns the exit code (4 when one failed). Wall times:
    sims/runtimes.json. simrun_args: {library: [extra simrun options]}."""
    times_file = Path(sims) / "runtimes.json"
    times = json.loads(times_file.read_text()) if times_file.exists() else {}
    rc = 0
    for (exp, mpi), _ in sorted(real_dirs(real).items()):
        if only and exp not in only:
            continue
        platform = Path(platforms) / f"node16-{mpi}.xml" if platforms else platform_of(mpi)
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


def build(real, sims=OUT / "sims", medians_of=None):
    """points (every compared point) from the real directories and the simulations, and the
    simulations missing. medians_of(directory) reads one simulation directory (default `medians`;
    None when it holds no result); a study whose layout differs passes its own, which may return
    (medians, [missing parts])."""
    parts, missing = [], []
    for (exp, mpi), rdir in sorted(real_dirs(real).items()):
        sdir = Path(sims) / exp / mpi
        got = (medians_of or _plain_medians)(sdir)
        sim, gaps = got if isinstance(got, tuple) else (got, [])
        if sim is None:
            missing.append(f"{exp}/{mpi}")
            continue
        missing += [f"{exp}/{mpi}/{g}" for g in gaps]
        parts.append(compare(medians(rdir), sim, exp, mpi))
    if not parts:
        raise UserError(f"{sims}: no simulation found; run `collrepro-py sim validate run` first")
    return pd.concat(parts, ignore_index=True), missing


def _plain_medians(sdir):
    return medians(sdir) if resultfiles.result_files(sdir, ["summary"])["summary"] else None


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


# ---------------------------------------------------------------- tables and the figure

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
