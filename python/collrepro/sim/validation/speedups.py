"""Speedup table of simulated result sets: at the largest size of each setting,
simulated T(baseline)/T(proposed) beside the cost model's prediction (the registry's cost
coefficients from the summary CSVs, evaluated at alpha and beta of the simulated platform) and
the papers' reported and model numbers (seed 000 Fig. 4 and Tables I-II, seed 001 Eq. 5,
seed 004 §4-5; counts in docs/algorithms/torus.md); the papers' reported numbers and Eq. 5 limits
come from collrepro.analysis.figures.paper_values.

  collrepro-py sim speedups [--alpha S] [--beta S_PER_BYTE] DIR...   (markdown to stdout)

alpha and beta: by default per result set, from the ping-pong that collbench records in the
metadata (alpha = the 1-byte time, beta = the slope between the two largest sizes), i.e. the
simulated platform's point-to-point cost; --alpha/--beta override both for every set.

Pairs: seed 000 fully connected: root-gathering / halfduplex-fc; ring: ring-allgather /
halfduplex-ring; seed 001: root-gathering / fullduplex-allgather(v); seed 004: straightforward /
each message-combining algorithm. Medians are the per-point medians of the summary CSVs (a
launch repeated gives the same medians; on shared-link platforms the repetitions of one point
differ by a few per cent). The directories are read with collrepro.analysis.loading.loader, so
every results contract version works. Seed 000 runs scaled down from the paper's 256 processes are shown
beside the paper's 256-process panel with the same p:q, marked "(at p/q)".
"""
import os
from collections import defaultdict

import pandas as pd

from collrepro import contract
from collrepro.analysis.loading import loader
from collrepro.cliargs import ArgumentParser
from collrepro.safeio import UserError
from collrepro.analysis.figures.paper_values import SEED001_EQ5_MODEL, seed000_fig4

# The families whose rows have two process groups, p and q (the contract's shape columns).
GROUPED = contract.SHAPE_OWNERS["p"] & contract.SHAPE_OWNERS["q"]
PAIRS = [("root-gathering", "halfduplex-fc"), ("ring-allgather", "halfduplex-ring"),
         ("root-gathering", "fullduplex-allgather"), ("root-gathering", "fullduplex-allgatherv"),
         ("straightforward", "torus"), ("straightforward", "torus-direct")]


def load(d):
    """(summary rows as dicts, the last launch's meta) of a result directory."""
    rs = loader.load_dir(d)
    return rs.summary.to_dict("records"), (rs.metas[-1] if rs.metas else {})


def pingpong_alpha_beta(meta):
    """(alpha, beta) from the metadata's ping-pong [{bytes, time_s}], or (None, None)."""
    pp = sorted((int(x["bytes"]), float(x["time_s"])) for x in meta.get("pingpong") or [] if x.get("time_s"))
    if len(pp) < 2:
        return None, None
    (b0, t0), (b1, t1) = pp[-2], pp[-1]
    return pp[0][1], (t1 - t0) / (b1 - b0)


def size_text(n):
    for unit, k in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= k and n % k == 0:
            return f"{n // k} {unit}"
    return f"{n} B"


def setting_of(meta, point):
    for s in (meta.get("config", {}) or {}).get("settings", []) or []:
        if point in s.get("points", []):
            return s["name"]
    return ""


def paper_value(row, setting):
    if row["family"] not in GROUPED:
        return None, None
    p, q, topo = int(row["p"]), int(row["q"]), row["topology"]
    if row["algorithm"] in ("halfduplex-fc", "halfduplex-ring"):
        # a scaled-down run gets the paper's 256-process panel with the same p:q, marked with its p/q
        found = seed000_fig4(topo, row["nprocs"], p, q)
        reported = None if found is None else f"{found.value:.2f} (at {found.p}/{found.q})" if found.scaled else found.value
        if topo == "ring":
            model = (p + q - 1) / (p + q / 2)  # Table II
        else:
            model = 4.0  # Table I: bandwidth 4p vs p
        return reported, model
    if setting in SEED001_EQ5_MODEL:
        return None, SEED001_EQ5_MODEL[setting]
    return None, None


def main(argv=None):
    ap = ArgumentParser(prog="sim speedups", description=__doc__.split("\n\n")[0])
    ap.add_argument("--alpha", type=float, help="model alpha, s (default: each set's ping-pong)")
    ap.add_argument("--beta", type=float, help="model beta, s/B (default: each set's ping-pong)")
    ap.add_argument("dirs", nargs="+", metavar="DIR")
    a = ap.parse_args(argv)
    for d in a.dirs:
        if not os.path.isdir(d):
            raise UserError(f"DIR {d}: not a directory (a simulated result set, e.g. results/sim/seed001-256x1-cori-memory)")
    print("| result set | setting / shape | size | baseline / proposed | simulated | model (registry cost) | paper model | paper reported |")
    print("|---|---|---|---|---|---|---|---|")
    for d in a.dirs:
        summ, meta = load(d)
        alpha, beta = pingpong_alpha_beta(meta)
        alpha = a.alpha if a.alpha is not None else alpha
        beta = a.beta if a.beta is not None else beta
        if alpha is None or beta is None:
            raise UserError(f"{d}: no ping-pong in the metadata: give --alpha and --beta")
        by = defaultdict(dict)  # (setting, collective, p, q, ka:kb shape, msg) -> algo -> row
        for r in summ:
            if pd.isna(r["median"]):
                continue
            st = setting_of(meta, int(r["point"]))
            p, q = (int(r["p"]), int(r["q"])) if r["family"] in GROUPED else (0, 0)
            by[(st, r["collective"], p, q, r["neighborhood"], int(r["msg_bytes"]))][r["algorithm"]] = r
        largest = defaultdict(int)
        for (st, coll, p, q, nb, msg) in by:
            largest[(st, coll, p, q, nb)] = max(largest[(st, coll, p, q, nb)], msg)
        name = os.path.relpath(d)
        for (st, coll, p, q, nb), msg in sorted(largest.items()):
            algos = by[(st, coll, p, q, nb, msg)]
            for base, prop in PAIRS:
                if base not in algos or prop not in algos:
                    continue
                b, n = algos[base], algos[prop]
                sim = float(b["median"]) / float(n["median"])
                def model(r):
                    return sum(0.0 if pd.isna(r[c]) else float(r[c]) * f
                               for c, f in (("cost_alpha_terms", alpha), ("cost_beta_bytes", beta)))
                mod = model(b) / model(n) if model(n) > 0 else float("nan")
                pr, pm = paper_value(n, st)
                if nb:
                    shape = f"{coll} {nb}"
                elif int(n["kb"]) == 0 and not st:
                    shape = f"{n['topology']}, p/q={p}/{q}"  # seed 000: half-duplex, group A sends
                else:
                    shape = st or f"{coll} p/q={p}/{q} ka={n['ka']} kb={n['kb']}"
                if st and not nb:
                    shape += f" (p/q={p}/{q})"
                size = size_text(msg)
                fmt = lambda v: "-" if v is None else v if isinstance(v, str) else f"{v:.2f}"
                print(f"| {name} | {shape} | {size} | {base} / {prop} | {sim:.2f} | {mod:.2f} | {fmt(pm)} | {fmt(pr)} |")

    return 0
