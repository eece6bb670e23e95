"""Write synthetic result directories exactly per the results contract (collrepro.contract),
in the current version or in version 1 (for the migration tests).

Test data only: times come from a caller-supplied function so that medians,
outliers and slowdowns are known in advance.
"""

import csv
import json
from pathlib import Path

import numpy as np

from collrepro import contract as C
from collrepro.distributions import distribute, nominal_sizes

# Per family: the shape columns' values of a point that does not name them.
SHAPE_DEFAULTS = {
    "inter-group": {"p": 2, "q": 2, "ka": 0, "kb": 0, "distribution": "equal", "dist_seed": "",
                    "pair_mode": "intercomm"},
    "isomorphic": {"neighborhood": "moore:d=2,r=1", "dims": "4x4", "neighbors": 8,
                   "block_rule": "uniform"},
    "intra": {"root": 0, "distribution": "equal", "dist_seed": ""},
}
ALPHA, BETA = 2e-6, 1e-9          # the "true" machine of synthetic cost models
KINDS = {"halfduplex-fc": "proposed", "halfduplex-ring": "proposed",
         "fullduplex-allgather": "proposed", "fullduplex-allgatherv": "proposed",
         "torus": "proposed", "torus-direct": "proposed", "native": "native",
         "mpi-neighbor": "native"}   # everything else: baseline


def inter_shape(collective, p, q, size, ratio=(1, 1), distribution="equal", seed=None):
    """The inter-group shape columns of a point, with blocks made as collbench makes them."""
    sa, sb = nominal_sizes(size, *ratio)
    dist = distribution if collective == "allgatherv" else "equal"
    a, b = distribute(dist, sa, p, seed or 0), distribute(dist, sb, q, seed or 0)
    return {"p": p, "q": q, "ka": max(a), "kb": max(b), "bytes_a": sum(a), "bytes_b": sum(b),
            "distribution": dist, "dist_seed": (seed or 0) if dist == "random" else "",
            "msg_bytes": size}


def point(algorithm, collective="allgather", **fields):
    """A point description; cost coefficients default to a simple linear model."""
    family = C.family_of_collective(collective)
    out = dict(SHAPE_DEFAULTS[family], algorithm=algorithm, collective=collective,
               family=family, topology="fully-connected", msg_bytes=1024)
    out.update(fields)
    if family == "inter-group":
        out.setdefault("bytes_a", out["p"] * out["ka"])
        out.setdefault("bytes_b", out["q"] * out["kb"])
    elif family == "isomorphic":
        out.setdefault("block_min", out["msg_bytes"])
        out.setdefault("block_max", out["msg_bytes"])
    else:
        out.setdefault("block_max", out["msg_bytes"])
        out.setdefault("bytes_total", 8 * out["msg_bytes"])
    out.setdefault("cost_alpha_terms", 4.0)
    out.setdefault("cost_beta_bytes", 2.0 * out["msg_bytes"])
    out.setdefault("bound_alpha_terms", 2.0)
    out.setdefault("bound_beta_bytes", 1.0 * out["msg_bytes"])
    return out


def model_time(pt):
    return pt["cost_alpha_terms"] * ALPHA + pt["cost_beta_bytes"] * BETA


def default_time(pt, launch, rep):
    """Model time with a small deterministic wobble (no outliers)."""
    return model_time(pt) * (1.0 + 0.01 * ((rep * 7 + launch * 3) % 5 - 2))


def tukey(values, k):
    q1, q3 = np.percentile(values, [25, 75])
    iqr = q3 - q1
    return values[(values >= q1 - k * iqr) & (values <= q3 + k * iqr)]


def _stats(times, valid, k, from_last):
    """The summary statistics of one point, by column name (absent: empty)."""
    vals = np.array([t for t, v in zip(times, valid) if v])
    kept = tukey(vals, k) if len(vals) else vals
    stats = {"n": len(times), "n_invalid": len(times) - len(vals), "n_kept": len(kept), "k": k}
    if len(kept):
        q1, q3 = np.percentile(kept, [25, 75])
        stats.update(median=np.median(kept), q1=q1, q3=q3, min=kept.min(), max=kept.max(),
                     mean=kept.mean())
        # the times from the last arrival of the repetitions whose time (from the first) was kept
        stats["median_from_last"] = np.median([f for t, v, f in zip(times, valid, from_last)
                                               if v and kept.min() <= t <= kept.max()])
    if len(vals):                           # tails: of the valid values, before the filter
        stats.update(zip(("p50", "p90", "p99"), np.percentile(vals, [50, 90, 99])))
    return {c: repr(float(x)) if isinstance(x, (float, np.floating)) else x for c, x in stats.items()}


def _row_values(pt, ctx, launch, pid, version):
    """Every identity and shape column of a point (a dict keyed by column name)."""
    values = dict(experiment=ctx["experiment"], launch=launch, point=pid, utc=ctx["start_utc"],
                  mpi_impl=ctx["mpi_impl"], mpi_version=ctx["mpi_version"], nodes=ctx["nodes"],
                  nprocs=ctx["nprocs"], ppn=ctx["ppn"], placement=ctx["placement"],
                  sync="barrier", clock="mpi-wtime", arrival=pt.get("arrival", "none"),
                  arrival_max_s=pt.get("arrival_max_s", 0.0), call=pt.get("call", "blocking"))
    for column in ("family", "collective", "algorithm", "topology", "msg_bytes"):
        values[column] = pt[column]
    own = C.FAMILIES[pt["family"]]["shape"]
    values.update({c: (pt[c] if c in own else "") for c in C.SHAPE_COLUMNS})
    if version == 1:     # v1: p, q, ka, kb in every row (isomorphic: 0, 0, largest, smallest)
        if pt["family"] == "isomorphic":
            values.update(p=0, q=0, ka=pt["block_max"], kb=pt["block_min"])
    return values


def _meta(launch, ctx, points, pingpong, version):
    algorithms = sorted({p["algorithm"] for p in points})
    meta = {
        "experiment": ctx["experiment"], "description": "synthetic test data", "launch": launch,
        "slice": None, "config": ctx.get("config", {}), "command": "collbench --synthetic",
        "git_revision": "0000000", "compiler": "g++ 12", "mpi_library":
            f"{ctx['mpi_impl']} {ctx['mpi_version']} (synthetic)",
        "mpi_impl": ctx["mpi_impl"], "mpi_version": ctx["mpi_version"], "simulated": False,
        "platform": None, "machine": "testhost, Synthetic CPU", "nodes": ctx["nodes"],
        "nprocs": ctx["nprocs"], "ppn": ctx["ppn"], "bindings": [],
        "hwloc": {"packages": 1, "cores": 2, "pus": 2, "numa": 1},
        "clock": {"name": "mpi-wtime", "resolution_s": 1e-9},
        "sync": {"method": "barrier", "error_s": 0.0, "invalid_rate": 0.0},
        "pingpong": pingpong,
        "algorithms": [{"name": a, "collective": "", "topology": "", "kind": ctx["kinds"].get(a, "baseline"),
                        "source": "test", "cost": ""} for a in algorithms],
        "start_utc": ctx["start_utc"], "end_utc": ctx["start_utc"], "complete": True,
    }
    if version != 1:
        meta["contract_version"] = version
    return meta


def write_result_set(directory, points, *, launches=3, reps=20, time_fn=default_time,
                     valid_fn=None, k=3.0, experiment="synth", mpi_impl="openmpi",
                     mpi_version="4.1.4", nodes=1, nprocs=8, ppn=8, placement="block",
                     start_utc="2024-01-01T00:00:00Z", pingpong=None, kinds=None, config=None,
                     version=C.VERSION, extra_meta=None, from_last_fn=None):
    """Write raw-L*.csv, summary-L*.csv, meta-L*.json for `launches` launches; extra_meta: keys
    added to every meta file (e.g. oversubscription, mpi_library); from_last_fn(pt, launch, rep):
    the time from the last arrival (default: the time itself, as for arrival none)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    ctx = dict(experiment=experiment, mpi_impl=mpi_impl, mpi_version=mpi_version, nodes=nodes,
               nprocs=nprocs, ppn=ppn, placement=placement, start_utc=start_utc,
               kinds=kinds or KINDS, config=config or {})
    tables = C.V1_TABLE_COLUMNS if version == 1 else C.TABLE_COLUMNS_OF[version]
    identity = [c for c in tables["summary"] if c not in C.SUMMARY_MEASUREMENT_COLUMNS]
    coeffs = ("cost_alpha_terms", "cost_beta_bytes", "bound_alpha_terms", "bound_beta_bytes")
    stat_columns = [c for c in tables["summary"] if c in C.SUMMARY_MEASUREMENT_COLUMNS and c not in coeffs]
    for launch in range(launches):
        raw_rows, summary_rows = [], []
        for pid, pt in enumerate(points):
            values = _row_values(pt, ctx, launch, pid, version)
            times = [time_fn(pt, launch, rep) for rep in range(reps)]
            valid = [1 if valid_fn is None else valid_fn(pt, launch, rep) for rep in range(reps)]
            from_last = times if from_last_fn is None else [from_last_fn(pt, launch, rep) for rep in range(reps)]
            for rep, (t, v, f) in enumerate(zip(times, valid, from_last)):
                row = dict(values, rep=rep, time_s=repr(float(t)), valid=v, time_from_last_s=repr(float(f)))
                raw_rows.append([row[c] for c in tables["raw"]])
            stats = _stats(times, valid, k, from_last)
            for column in ("init_s", "overlap_pct", "overlap_pure_s", "overlap_compute_s"):
                if pt.get(column) is not None:         # a persistent init, a nonblocking call's overlap
                    stats[column] = repr(float(pt[column]))
            cells = {**{c: values[c] for c in identity}, **{c: stats.get(c, "") for c in stat_columns},
                     **{c: "" if pt.get(c) is None else pt[c] for c in coeffs}}
            summary_rows.append([cells[c] for c in tables["summary"]])
        _write_csv(directory / f"raw-L{launch}.csv", tables["raw"], raw_rows)
        _write_csv(directory / f"summary-L{launch}.csv", tables["summary"], summary_rows)
        with open(directory / f"meta-L{launch}.json", "w") as f:
            json.dump({**_meta(launch, ctx, points, pingpong, version), **(extra_meta or {})}, f, indent=1)
    return directory


def _write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


# ---------------------------------------------------------------- point sets per paper

SIZES = [32768, 131072, 524288]


def seed000_points(sizes=SIZES):
    """Two FC panels (4/4 and 6/2) and one ring panel (4/4); native only in 4/4 FC."""
    pts = []
    for p, q in ((4, 4), (6, 2)):
        algs = ["halfduplex-fc", "root-gathering"] + (["native"] if p == q else [])
        pts += [point(a, p=p, q=q, ka=m, kb=0, msg_bytes=m,
                      cost_beta_bytes=(1.0 if a == "halfduplex-fc" else 4.0) * p * m)
                for a in algs for m in sizes]
    pts += [point(a, topology="ring", p=4, q=4, ka=m, kb=0, msg_bytes=m,
                  cost_beta_bytes=(6.0 if a == "halfduplex-ring" else 7.0) * m)
            for a in ("halfduplex-ring", "ring-allgather") for m in sizes]
    return pts


def seed001_points(sizes=SIZES):
    """Settings: allgather 4:4 kA=kB, allgather 10:4 kA=4kB, allgatherv 4:4 equal."""
    pts = []
    for p, q, ratio in ((4, 4, (1, 1)), (10, 4, (4, 1))):
        for m in sizes:
            shape = inter_shape("allgather", p, q, m, ratio)
            mm = max(shape["bytes_a"], shape["bytes_b"])
            for a, factor in (("fullduplex-allgather", 1.0), ("native", 3.0), ("root-gathering", 3.5)):
                pts.append(point(a, cost_beta_bytes=factor * mm, **shape))
    for m in sizes:
        for a, factor in (("fullduplex-allgatherv", 1.0), ("native", 6.0)):
            pts.append(point(a, collective="allgatherv", cost_beta_bytes=factor * 4 * m,
                             **inter_shape("allgatherv", 4, 4, m)))
    return pts


def iso_point(algorithm, collective="neighbor-alltoall", neighborhood="moore:d=2,r=1", dims="4x4",
              msg_bytes=64, **fields):
    return point(algorithm, collective=collective, topology="torus", neighborhood=neighborhood,
                 dims=dims, msg_bytes=msg_bytes, **fields)


def seed004_points(sizes=(8, 64, 512)):
    """Three neighborhoods for alltoall; mpi-neighbor missing in the third."""
    pts = []
    hoods = (("moore:d=2,r=1", "4x4", 8), ("moore:d=3,r=1", "2x2x2", 26), ("octant:d=3,r=3", "2x2x2", 63))
    for i, (hood, dims, s) in enumerate(hoods):
        algs = ["straightforward", "torus", "torus-direct"] + (["mpi-neighbor"] if i < 2 else [])
        pts += [iso_point(a, neighborhood=hood, dims=dims, neighbors=s, msg_bytes=m,
                          cost_alpha_terms=4.0 + 2 * j)
                for j, a in enumerate(algs) for m in sizes]
    pts += [iso_point(a, collective="neighbor-allgather", msg_bytes=m)
            for a in ("torus", "mpi-neighbor") for m in sizes]
    return pts


# ---------------------------------------------------------------- installations (trend, guidelines, dashboard)

GUIDELINE_SIZES = (1024, 65536)


def guideline_points(sizes=GUIDELINE_SIZES):
    """Every guideline's native beside its mock-up: the inter-group Allgather (native,
    root-gathering and a proposed algorithm), the intra-communicator Allgather (native,
    gather-bcast) and the neighbourhood Alltoall (mpi-neighbor, straightforward)."""
    pts = []
    for m in sizes:
        shape = inter_shape("allgather", 4, 4, m)
        pts += [point(a, **shape) for a in ("native", "root-gathering", "fullduplex-allgather")]
        pts += [point(a, collective="intra-allgather", msg_bytes=m) for a in ("native", "gather-bcast")]
        pts += [iso_point(a, msg_bytes=m) for a in ("mpi-neighbor", "straightforward")]
    return pts


def slowdown(factors):
    """A time function: the model time times factors.get((algorithm, collective, msg_bytes), 1),
    with a launch-to-launch wobble of up to 1.6% (distinct per-launch medians)."""
    def time_fn(pt, launch, rep):
        factor = factors.get((pt["algorithm"], pt["collective"], pt["msg_bytes"]), 1.0)
        return default_time(pt, launch, rep) * factor * (1 + 0.004 * (launch % 5))
    return time_fn


OVERSUBSCRIBED = {"oversubscription": {"ranks_per_core": 4.0, "oversubscribed": True, "host": "testhost",
                                       "ranks": 8, "cores": 2, "method": "synthetic"}}
ONE_PER_CORE = {"oversubscription": {"ranks_per_core": 1.0, "oversubscribed": False, "host": "testhost",
                                     "ranks": 8, "cores": 8, "method": "synthetic"}}


INSTALLATION_LAUNCHES = 8   # unpaired sides: 8 + 8 launches reach an exact interval at 99.98 %,
                            # the Benjamini-Hochberg level of a family of up to 250 rows


def write_installations(root, installations, points, experiment="synth", launches=INSTALLATION_LAUNCHES,
                        reps=6, config=None):
    """A results tree root/<experiment>/<impl>-<version>/ per (impl, version, factors, extra_meta)
    in `installations` (extra_meta None: a run with one rank per core); config: the experiment's
    configuration in the metadata (e.g. its named settings); returns the directories in the given
    order."""
    out = []
    for n, (impl, version, factors, extra) in enumerate(installations):
        out.append(write_result_set(
            Path(root) / experiment / f"{impl}-{version}", points, launches=launches, reps=reps,
            time_fn=slowdown(factors), experiment=experiment, mpi_impl=impl, mpi_version=version,
            config=config, start_utc=f"2024-01-{n + 1:02d}T00:00:00Z",
            extra_meta={"mpi_library": f"{impl} library {version} (synthetic)", **(extra or ONE_PER_CORE)}))
    return out


def write_timing_block(directory, medians, invalid, *, reps=40, sync_s=0.001, oversubscribed=False):
    """A timing-study block (timing-study run's DIR/<method>/np<N>): one launch per median, each
    with reps repetitions of which invalid[l] are invalid, an allgather of 1024 bytes, launch l's
    clock synchronization taking sync_s (l + 1); summaries and metadata only, as the study keeps."""
    directory = Path(directory)
    write_result_set(directory, [point("native", msg_bytes=1024)], launches=len(medians), reps=reps,
                     time_fn=lambda pt, launch, rep: medians[launch],
                     valid_fn=lambda pt, launch, rep: 0 if rep < invalid[launch] else 1)
    for launch in range(len(medians)):
        (directory / f"raw-L{launch}.csv").unlink()
        path = directory / f"meta-L{launch}.json"
        meta = json.loads(path.read_text())
        meta.update(sync={"sync_cost": {"seconds": sync_s * (launch + 1)}},
                    oversubscription={"oversubscribed": oversubscribed})
        path.write_text(json.dumps(meta))
    return directory
