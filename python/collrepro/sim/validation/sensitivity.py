"""Sensitivity of seed 000's FC speedup to each effect of the Cori model (issue 28).

  ./collrepro-py sim sensitivity [--effects nic,msg,global,lat,mem]
      [--shapes 256x1,1024x8] [--ratios 1/1,1/3,3/1] [--values nic=16,8,4,2] [-o results/sim/sensitivity]
      [--warmup 0] [--dry-run]

For each effect of python/collrepro/sim/platforms/cori.py (--effects) and each value of its parameter,
with the other effects neutral (the value at which each vanishes: dragonfly-adaptive), simulates
root-gathering and halfduplex-fc at 4 MiB (configs/paper/seed000-fc-sim.yaml: half-duplex
inter-group Allgather, group A sends) at each shape and p:q, and writes OUT/sensitivity.csv and
OUT/sensitivity.md: T(root-gathering) / T(halfduplex-fc) beside the paper's measured speedup
(seed 000 Fig. 4 at 4 MB), and each simulation's wall time. The `global` effect runs with
simrun's spread order (node j in group j mod 7): a contiguous job of up to 384 nodes stays in one
group and never crosses a global link. Each point is one simulation into OUT/runs/<name>/; a
finished one (its summary exists, compressed or not) is reused, so an interrupted sweep resumes.
Each run records its wall time in its directory, and the tables are re-read before each write, so
two sweeps over different effects may run side by side (one per core). The simulations of one
sweep run one at a time; `./collrepro-py compact OUT/runs/*` compresses finished runs.
"""

import csv
import io
import math
import os
import subprocess
import sys
import time

from collrepro import paths, resultfiles, safeio
from collrepro.sim.platforms import node_memory
from collrepro.analysis.figures.paper_values import SEED000_FIG4
from collrepro.cliargs import ArgumentParser
from collrepro.sim.platforms.cori import NEUTRAL, effects_xml
from collrepro.safeio import UserError

REPO = paths.REPO
CONFIG = os.path.join(REPO, "configs", "paper", "seed000-fc-sim.yaml")
SIMRUN = os.path.join(REPO, "bench", "sim", "simrun")

# effect name on the command line -> the generator's parameter, and the values swept by default.
EFFECTS = {"nic": "nic_gbps", "msg": "msg_us", "global": "global_fraction", "lat": "nic_lat_us", "mem": "mem_gbps"}
VALUES = {"nic": [16.0, 12.0, 8.0, 6.0, 4.0, 2.0], "msg": [0.0, 1.0, 4.0, 16.0], "global": [1.0, 0.5, 0.25, 0.1],
          "lat": [0.0, 4.0, 32.0], "mem": [0.0, 68.0, 34.0, 24.0, 16.0]}
UNITS = {"nic": "GB/s", "msg": "us", "global": "share", "lat": "us", "mem": "GB/s"}
# Seed 000 Fig. 4, FC speedup at 4 MB, keyed by (np, p, q) (one home: python/collrepro/analysis/figures/paper_values.py).
PAPER = {(n, p, q): v for (topology, n, p, q), v in SEED000_FIG4.items() if topology == "fully-connected"}
WALL_FILE = "wall_s.txt"  # each run's wall time, so that sweeps run side by side lose none
SUMMARY_LIMIT = 64 * safeio.MIB  # a simulation's summary CSV: one size, a few algorithms
COLUMNS = ["effect", "parameter", "value", "unit", "np", "ppn", "order", "p", "q", "root_gathering_s",
           "halfduplex_fc_s", "speedup", "paper_speedup", "wall_s"]


def parse_shape(text):
    try:
        np_, ppn = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise UserError(f"--shapes {text!r}: want NPxPPN, e.g. 256x1") from None
    if np_ < 4 or ppn < 1 or np_ % ppn:
        raise UserError(f"--shapes {text!r}: want NP >= 4 a multiple of PPN")
    return np_, ppn


def check_memory_shape(text, np_, ppn):
    """--effects mem builds a node-memory platform per shape: its bounds, said of --shapes (the
    generator's own message names its options --nodes and --cores)."""
    nodes, cores = node_memory.node_shape(np_, ppn)
    try:
        node_memory.check(nodes, cores, 0.0, node_memory.NIC_GBPS, node_memory.CORE_GBPS)
    except UserError as err:
        bound = str(err).split(": ", 1)[1]
        raise UserError(f"--shapes {text!r} with --effects mem: {nodes} nodes x {cores} processes, outside the "
                        f"node-memory platform ({'nodes' if str(err).startswith('--nodes') else 'processes per node'}: "
                        f"{bound})") from None


def parse_ratio(text, np_):
    """(p, q) of a 'a/b' ratio at np processes."""
    try:
        a, b = (int(x) for x in text.split("/"))
        p = np_ * a // (a + b)
    except (ValueError, ZeroDivisionError):
        raise UserError(f"--ratios {text!r}: want A/B, e.g. 1/3") from None
    return p, np_ - p


def parse_values(items):
    """{effect: [values]} from --values effect=v1,v2 ..."""
    out = {}
    for item in items or []:
        name, _, vals = item.partition("=")
        if name not in EFFECTS or not vals:
            raise UserError(f"--values {item!r}: want EFFECT=V1,V2 with EFFECT one of {', '.join(EFFECTS)}")
        try:
            out[name] = [float(v) for v in vals.split(",")]
        except ValueError:
            raise UserError(f"--values {item!r}: values must be numbers") from None
    return out


def run_name(effect, value, np_, ppn, ratio):
    return f"{effect}-{value:g}-{np_}x{ppn}-{ratio.replace('/', 'to')}"


def medians(run_dir):
    """{algorithm: median seconds} at 4 MiB from a finished run, or None."""
    paths = [path for path, launch, _ in resultfiles.result_files(run_dir, ["summary"])["summary"] if launch == 0]
    if not paths:
        return None
    out = {}
    for path in paths:  # either form: a finished run may have been compressed (collrepro-py compact)
        with resultfiles.text_stream(path, SUMMARY_LIMIT, "a simulation's summary CSV") as fh:
            for r in csv.DictReader(fh):
                if int(r["msg_bytes"]) == 4 << 20 and r["median"]:
                    out[r["algorithm"]] = float(r["median"])
    return out if {"root-gathering", "halfduplex-fc"} <= set(out) else None


def simulate(run_dir, platform, np_, ppn, order, ratio, warmup, dry_run):
    """One simrun (4 MiB, one p:q) into run_dir; returns its wall time in s (None if reused)."""
    cmd = [SIMRUN, "--platform", platform, "--np", str(np_), "--ppn", str(ppn), "--order", order,
           "--fold", "8MiB", "--out", run_dir, CONFIG, "--", "--quiet", "--set", "sizes=[4MiB]",
           "--set", f"groups.ratios=[{ratio}]", "--set", f"timing.warmup={warmup}", "--set", "validation=false"]
    print("sim sensitivity: " + " ".join(cmd), file=sys.stderr)
    if dry_run:
        return None
    t0 = time.time()
    code = subprocess.call(cmd, cwd=REPO, stdout=subprocess.DEVNULL)
    if code != 0:
        raise safeio.EnvironmentProblem(f"simrun for {run_dir} exited with {code}: its output above; "
                                        "rerun this command to resume")
    wall = time.time() - t0
    safeio.write_text(os.path.join(run_dir, WALL_FILE), f"{wall:.1f}\n")
    return wall


def recorded_wall(run_dir):
    """The wall time a finished run recorded (WALL_FILE), or None (runs made before it existed)."""
    try:
        with open(os.path.join(run_dir, WALL_FILE)) as fh:
            return float(fh.read())
    except (OSError, ValueError):
        return None


def main(argv=None):
    ap = ArgumentParser(prog="sim sensitivity", description=__doc__.split("\n")[0])
    ap.add_argument("--effects", default="nic,msg,global,lat,mem")
    ap.add_argument("--shapes", default="256x1,1024x8")
    ap.add_argument("--ratios", default="1/1,1/3,3/1")
    ap.add_argument("--values", action="append", help="EFFECT=V1,V2,... (repeatable; default: VALUES)")
    ap.add_argument("--warmup", type=int, default=0, help="collbench warm-up runs per point (default 0)")
    ap.add_argument("-o", "--output", default=os.path.join(REPO, "results", "sim", "sensitivity"))
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args(argv)
    effects = [e for e in a.effects.split(",") if e]
    bad = [e for e in effects if e not in EFFECTS]
    if bad:
        raise UserError(f"--effects {','.join(bad)}: unknown; use some of {','.join(EFFECTS)}")
    values = {**VALUES, **parse_values(a.values)}
    shapes = [parse_shape(s) for s in a.shapes.split(",") if s]
    if "mem" in effects:
        for text, (np_, ppn) in zip([s for s in a.shapes.split(",") if s], shapes):
            check_memory_shape(text, np_, ppn)
    ratios = [r for r in a.ratios.split(",") if r]
    for r in ratios:
        parse_ratio(r, 4)
    table = os.path.join(a.output, "sensitivity.csv")
    done = {key(r): r for r in read_rows(table)}  # rows of earlier sweeps (their wall times)
    made = 0
    for effect in effects:
        param = EFFECTS[effect]
        order = "spread" if effect == "global" else "block"
        for value in values[effect]:
            if effect != "mem":
                platform = os.path.join(a.output, "platforms", f"cori-{effect}-{value:g}.xml")
                if not a.dry_run:
                    safeio.write_text(platform, effects_xml(7, **{**NEUTRAL, param: value}))
            for np_, ppn in shapes:
                sim_ppn = ppn
                if effect == "mem":  # a platform per shape, whose hosts are cores: one rank per host
                    platform, sim_ppn = memory_platform(a.output, value, np_, ppn, a.dry_run), 1
                for ratio in ratios:
                    p, q = parse_ratio(ratio, np_)
                    run_dir = os.path.join(a.output, "runs", run_name(effect, value, np_, ppn, ratio))
                    got = medians(run_dir)
                    wall = recorded_wall(run_dir)
                    if got is None:
                        wall = simulate(run_dir, platform, np_, sim_ppn, order, ratio, a.warmup, a.dry_run)
                        got = None if a.dry_run else medians(run_dir)
                    if got is None:
                        continue
                    rg, hf = got["root-gathering"], got["halfduplex-fc"]
                    row = {"effect": effect, "parameter": param, "value": f"{value:g}", "unit": UNITS[effect],
                           "np": np_, "ppn": ppn, "order": order, "p": p, "q": q,
                           "root_gathering_s": f"{rg:.6g}", "halfduplex_fc_s": f"{hf:.6g}",
                           "speedup": f"{rg / hf:.3f}", "paper_speedup": PAPER.get((np_, p, q), ""),
                           "wall_s": f"{wall:.1f}" if wall is not None else done.get(key_of(effect, value, np_, p), {}).get("wall_s", "")}
                    done.update({key(r): r for r in read_rows(table) if key(r) not in done})  # a sweep beside
                    done[key(row)] = row
                    made += 1
                    write_tables(a.output, list(done.values()))
    if not a.dry_run:
        print(f"sim sensitivity: wrote {table} ({made} rows from this sweep, {len(done)} in all)", file=sys.stderr)
    return 0


def memory_platform(out, mem_gbps, np_, ppn, dry_run):
    """The node-memory crossbar for one shape (np_ / ppn nodes of ppn cores), written into
    OUT/platforms/ (not committed: 150 kB at 256 nodes; written each time, so a file from an older
    generator is never reused)."""
    nodes, cores = node_memory.node_shape(np_, ppn)
    path = os.path.join(out, "platforms", f"node-mem-{mem_gbps:g}-{nodes}x{cores}.xml")
    return path if dry_run else node_memory.write_for_job(path, np_, ppn, mem_gbps)


def key_of(effect, value, np_, p):
    return (effect, float(value), int(np_), int(p))


def key(r):
    return key_of(r["effect"], r["value"], r["np"], r["p"])


def read_rows(table):
    """The rows of an earlier sweep's table; UserError (exit 2) naming the file when it is damaged."""
    if not os.path.exists(table):
        return []
    try:
        with open(table, newline="") as fh:
            rows = list(csv.DictReader(fh))
        for n, r in enumerate(rows, start=2):
            if None in r or any(r.get(c) is None for c in COLUMNS):
                raise ValueError(f"line {n} does not have the {len(COLUMNS)} columns {','.join(COLUMNS)}")
            key(r)
    except (ValueError, UnicodeDecodeError, csv.Error) as err:
        raise UserError(f"{table}: damaged ({err}); move it aside to start the table afresh, "
                        "or restore it from git") from None
    return rows


def write_tables(out, rows):
    rows = sorted(rows, key=lambda r: (list(EFFECTS).index(r["effect"]), int(r["np"]), int(r["p"]), -float(r["value"])))
    buf = io.StringIO()
    w = csv.DictWriter(buf, COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows({c: r[c] for c in COLUMNS} for r in rows)
    safeio.write_text(os.path.join(out, "sensitivity.csv"), buf.getvalue())
    head = ["effect", "value", "np x ppn", "p/q", "T(root-gathering) s", "T(halfduplex-fc) s", "speedup",
            "paper (Fig. 4, 4 MB)", "wall s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lines.append(f"| {r['effect']} ({r['parameter']}) | {r['value']} {r['unit']} | {r['np']} x {r['ppn']} "
                     f"({r['order']}) | {r['p']}/{r['q']} | {r['root_gathering_s']} | {r['halfduplex_fc_s']} | "
                     f"{r['speedup']} | {r['paper_speedup'] or '-'} | {r['wall_s'] or '-'} |")
    lines += ["", "## Per setting: both shapes, their separation and the error against the paper", ""]
    lines += summary_lines(rows)
    safeio.write_text(os.path.join(out, "sensitivity.md"), "\n".join(lines) + "\n")


def paper_separation():
    """The paper's mean speedup at 256 x 1 over its mean at 1024 x 8 (the two shapes' gap)."""
    small = [v for (n, _, _), v in PAPER.items() if n == 256]
    large = [v for (n, _, _), v in PAPER.items() if n == 1024]
    return (sum(small) / len(small)) / (sum(large) / len(large))


def summary_lines(rows):
    """One line per (effect, value, order): the speedups at each shape (p:q 1:3, 1:1, 3:1), the
    separation (mean at 256 x 1 / mean at 1024 x 8, where both shapes have all three p:q) and the
    mean and largest |ln(simulated / paper)| over the points simulated. A model that reproduces the paper
    needs the paper's separation, not only its level."""
    by = {}
    for r in rows:
        by.setdefault((r["effect"], float(r["value"]), r["order"]), {})[(int(r["np"]), int(r["p"]))] = r
    head = ["effect", "value", "order", "256 x 1: 64/192, 128/128, 192/64", "1024 x 8: 256/768, 512/512, 768/256",
            f"separation (paper {paper_separation():.2f})", "mean abs ln(sim/paper)", "max abs ln(sim/paper)", "points"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (effect, value, order), pts in sorted(by.items(), key=lambda kv: (list(EFFECTS).index(kv[0][0]), -kv[0][1], kv[0][2])):
        cells, means, errs = [], [], []
        for n, ps in ((256, (64, 128, 192)), (1024, (256, 512, 768))):
            got = [float(pts[(n, p)]["speedup"]) if (n, p) in pts else None for p in ps]
            cells.append(", ".join(f"{g:.2f}" if g is not None else "-" for g in got))
            means.append(sum(got) / 3 if None not in got else None)
            for p, g in zip(ps, got):
                paper = PAPER.get((n, p, n - p))
                if g is not None and paper:
                    errs.append(abs(math.log(g / paper)))
        sep = f"{means[0] / means[1]:.2f}" if None not in means else "-"
        err = f"{sum(errs) / len(errs):.3f}" if errs else "-"
        worst = f"{max(errs):.3f}" if errs else "-"
        unit = UNITS[effect]
        out.append(f"| {effect} | {value:g} {unit} | {order} | {cells[0]} | {cells[1]} | {sep} | {err} | {worst} | {len(errs)} |")
    return out

