"""Write synthetic result directories exactly per results/CONTRACT.md (v1).

Test data only: times come from a caller-supplied function so that medians,
outliers and slowdowns are known in advance.
"""

import csv
import json
from pathlib import Path

import numpy as np

RAW_COLUMNS = [
    "experiment", "launch", "point", "utc", "mpi_impl", "mpi_version", "nodes",
    "nprocs", "ppn", "placement", "collective", "algorithm", "topology", "p", "q",
    "ka", "kb", "neighborhood", "dims", "msg_bytes", "sync", "clock", "rep",
    "time_s", "valid",
]
IDENTITY = [c for c in RAW_COLUMNS if c not in ("utc", "rep", "time_s", "valid")]
SUMMARY_COLUMNS = IDENTITY + [
    "n", "n_invalid", "n_kept", "k", "median", "q1", "q3", "min", "max", "mean",
    "cost_alpha_terms", "cost_beta_bytes", "bound_alpha_terms", "bound_beta_bytes",
]
POINT_DEFAULTS = {"collective": "allgather", "topology": "fully-connected", "p": 0, "q": 0,
                  "ka": 0, "kb": 0, "neighborhood": "", "dims": "", "msg_bytes": 1024}
ALPHA, BETA = 2e-6, 1e-9          # the "true" machine of synthetic cost models
KINDS = {"halfduplex-fc": "proposed", "halfduplex-ring": "proposed",
         "fullduplex-allgather": "proposed", "fullduplex-allgatherv": "proposed",
         "torus": "proposed", "torus-direct": "proposed", "native": "native",
         "mpi-neighbor": "native"}   # everything else: baseline


def point(algorithm, **fields):
    """A point description; cost coefficients default to a simple linear model."""
    out = dict(POINT_DEFAULTS, algorithm=algorithm, **fields)
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


def _summary_row(ident, times, valid, k, pt):
    vals = np.array([t for t, v in zip(times, valid) if v])
    kept = tukey(vals, k) if len(vals) else vals
    if len(kept):
        q1, q3 = np.percentile(kept, [25, 75])
        stats = [len(times), len(times) - len(vals), len(kept), k, np.median(kept), q1, q3,
                 kept.min(), kept.max(), kept.mean()]
    else:                                   # every repetition invalid: empty statistics
        stats = [len(times), len(times), 0, k] + [""] * 6
    coeffs = ["" if pt.get(c) is None else pt[c]        # empty = no model (allowed)
              for c in ("cost_alpha_terms", "cost_beta_bytes", "bound_alpha_terms", "bound_beta_bytes")]
    return ident + [repr(float(x)) if isinstance(x, (float, np.floating)) else x for x in stats] + coeffs


def _meta(launch, ctx, points, pingpong):
    algorithms = sorted({p["algorithm"] for p in points})
    return {
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


def write_result_set(directory, points, *, launches=3, reps=20, time_fn=default_time,
                     valid_fn=None, k=3.0, experiment="synth", mpi_impl="openmpi",
                     mpi_version="4.1.4", nodes=1, nprocs=8, ppn=8, placement="block",
                     start_utc="2024-01-01T00:00:00Z", pingpong=None, kinds=None, config=None):
    """Write raw-L*.csv, summary-L*.csv, meta-L*.json for `launches` launches."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    ctx = dict(experiment=experiment, mpi_impl=mpi_impl, mpi_version=mpi_version, nodes=nodes,
               nprocs=nprocs, ppn=ppn, start_utc=start_utc, kinds=kinds or KINDS, config=config or {})
    for launch in range(launches):
        raw_rows, summary_rows = [], []
        for pid, pt in enumerate(points):
            ident = [experiment, launch, pid, mpi_impl, mpi_version, nodes, nprocs, ppn, placement,
                     pt["collective"], pt["algorithm"], pt["topology"], pt["p"], pt["q"], pt["ka"],
                     pt["kb"], pt["neighborhood"], pt["dims"], pt["msg_bytes"], "barrier", "mpi-wtime"]
            times = [time_fn(pt, launch, rep) for rep in range(reps)]
            valid = [1 if valid_fn is None else valid_fn(pt, launch, rep) for rep in range(reps)]
            for rep, (t, v) in enumerate(zip(times, valid)):
                raw_rows.append(ident[:3] + [start_utc] + ident[3:] + [rep, repr(float(t)), v])
            summary_rows.append(_summary_row(ident, times, valid, k, pt))
        _write_csv(directory / f"raw-L{launch}.csv", RAW_COLUMNS, raw_rows)
        _write_csv(directory / f"summary-L{launch}.csv", SUMMARY_COLUMNS, summary_rows)
        with open(directory / f"meta-L{launch}.json", "w") as f:
            json.dump(_meta(launch, ctx, points, pingpong), f, indent=1)
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
    """Settings: allgather 4:4 kA=kB, allgather 10:4 kA=4kB, allgatherv 4:4 regular."""
    pts = []
    for p, q, ratio in ((4, 4, (1, 1)), (10, 4, (4, 1))):
        for m in sizes:
            ka, kb = m * ratio[0] // max(ratio), m * ratio[1] // max(ratio)
            mm = max(p * ka, q * kb)
            for a, factor in (("fullduplex-allgather", 1.0), ("native", 3.0), ("root-gathering", 3.5)):
                pts.append(point(a, p=p, q=q, ka=ka, kb=kb, msg_bytes=m, cost_beta_bytes=factor * mm))
    for m in sizes:
        for a, factor in (("fullduplex-allgatherv", 1.0), ("native", 6.0)):
            pts.append(point(a, collective="allgatherv", p=4, q=4, ka=m, kb=m, msg_bytes=m,
                             cost_beta_bytes=factor * 4 * m))
    return pts


def seed004_points(sizes=(8, 64, 512)):
    """Three neighborhoods for alltoall; mpi-neighbor missing in the third."""
    pts = []
    hoods = (("moore:d=2,r=1", "4x4"), ("moore:d=3,r=1", "2x2x2"), ("octant:d=3,r=3", "2x2x2"))
    for i, (hood, dims) in enumerate(hoods):
        algs = ["straightforward", "torus", "torus-direct"] + (["mpi-neighbor"] if i < 2 else [])
        pts += [point(a, collective="neighbor-alltoall", topology="torus", neighborhood=hood,
                      dims=dims, msg_bytes=m, cost_alpha_terms=4.0 + 2 * j)
                for j, a in enumerate(algs) for m in sizes]
    pts += [point(a, collective="neighbor-allgather", topology="torus", neighborhood="moore:d=2,r=1",
                  dims="4x4", msg_bytes=m) for a in ("torus", "mpi-neighbor") for m in sizes]
    return pts
