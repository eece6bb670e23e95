"""The 256 x 1 gap as a model effect: could work at root gathering's two roots that the
simulation does not charge (a pass over the aggregate: a copy, the first touch of a freshly
allocated buffer, registering it with the network) turn the simulated speedup of seed 000's
fully connected panels (about 3.95) into the paper's 4.4-5.3?

  collrepro-py sim root-cost [--measure] [--rate GBPS ...] DIR...   (markdown to stdout)

DIR: seed 000 fully connected result sets at 256 x 1 (e.g. results/sim/seed000-fc-256x1-cori-memory).
At the largest size of each shape it prints the simulated T(halfduplex-fc) and T(root-gathering),
the paper's speedup (collrepro.analysis.figures.paper_values), the time the paper's speedup
leaves unexplained (S_paper x T_hd - T_rg) and the rate at which the roots would have to pass
over their aggregates for exactly that time. In root gathering each root holds a whole group's
data on the critical path, one after the other: the senders' root gathers p x k bytes before it
sends them, the receivers' root receives p x k bytes before it broadcasts them; one extra pass
at both roots costs 2 p k / rate. A single root cost explains the gap only if one rate fits
every shape. --rate adds one pass at that rate and prints the speedups it gives; --measure
first measures two candidate rates on this machine (numpy, one process): copying 256 MiB into
a buffer already touched, and writing a freshly allocated 256 MiB (page faults: what a library
pays when it allocates its temporary buffer at every call)."""
import os
import time

from collrepro.analysis.loading import loader
from collrepro.cliargs import ArgumentParser
from collrepro.safeio import UserError
from collrepro.analysis.figures.paper_values import seed000_fig4

MEASURE_BYTES = 256 << 20


def measure_rates(repeats=5):
    """{name: bytes per second}, the median of `repeats`: a copy between two touched buffers,
    and writing a buffer allocated just before (each repetition a new one)."""
    import numpy as np
    n = MEASURE_BYTES
    src, dst = np.ones(n, np.uint8), np.ones(n, np.uint8)
    copy, fresh = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        copy.append(n / (time.perf_counter() - t0))
        t0 = time.perf_counter()
        buf = np.empty(n, np.uint8)  # large: its own mmap, untouched pages
        buf.fill(1)
        fresh.append(n / (time.perf_counter() - t0))
        del buf
    med = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
    return {"copy into a touched buffer": med(copy), "write a fresh buffer (page faults)": med(fresh)}


def shapes(directory):
    """[(p, q, k, T_hd, T_rg)] at the set's largest size."""
    rows = loader.load_dir(directory).summary
    largest = rows["msg_bytes"].max()
    out = []
    for (p, q), g in rows[rows["msg_bytes"] == largest].groupby(["p", "q"]):
        t = g.groupby("algorithm")["median"].median()
        if {"halfduplex-fc", "root-gathering"} <= set(t.index):
            out.append((int(p), int(q), int(largest), float(t["halfduplex-fc"]), float(t["root-gathering"])))
    return out


def table(directories, rates):
    head = ["set", "p/q", "size", "T_hd (ms)", "T_rg (ms)", "simulated", "paper", "unexplained (ms)",
            "bytes at the roots (MiB)", "root rate that closes it (GB/s)"]
    head += [f"with one pass at {r / 1e9:.1f} GB/s" for r in rates]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for d in directories:
        for p, q, k, thd, trg in shapes(d):
            pv = seed000_fig4("fully-connected", p + q, p, q)
            paper = pv.value if pv and not pv.scaled else None
            roots = 2 * p * k  # the senders' root gathers p k, the receivers' root receives p k
            gap = paper * thd - trg if paper else None
            need = (f"{roots / gap / 1e9:.1f}" if gap and gap > 0 else "-")
            row = [os.path.basename(os.path.normpath(d)), f"{p}/{q}", f"{k >> 20} MiB", f"{thd * 1e3:.1f}",
                   f"{trg * 1e3:.1f}", f"{trg / thd:.2f}", f"{paper:.1f}" if paper else "-",
                   f"{gap * 1e3:.1f}" if gap is not None else "-", f"{roots >> 20}", need]
            row += [f"{(trg + roots / r) / thd:.2f}" for r in rates]
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main(argv=None):
    ap = ArgumentParser(prog="sim root-cost", description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", metavar="DIR")
    ap.add_argument("--rate", type=float, action="append", default=[], metavar="GBPS")
    ap.add_argument("--measure", action="store_true")
    a = ap.parse_args(argv)
    for d in a.dirs:
        if not os.path.isdir(d):
            raise UserError(f"DIR {d}: not a directory (a seed 000 fully connected result set)")
    rates = [r * 1e9 for r in a.rate]
    if a.measure:
        measured = measure_rates()
        for name, r in measured.items():
            print(f"- this machine, {name}: {r / 1e9:.2f} GB/s ({MEASURE_BYTES >> 20} MiB, median of 5)")
        print()
        rates += list(measured.values())
    print(table(a.dirs, rates))
    return 0

