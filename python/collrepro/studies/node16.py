"""node16_summary: the tables of results/node16/README.md, from the node-scale result directories.

    collrepro-py study node16 RESULTS [--out SUMMARY.md]

RESULTS is a directory of <experiment>/<mpi>/ result directories as the device runner brings
them back (results/node16/experiments.sh), or a .tar.xz of one (results/node16/runs.tar.xz,
unpacked into a temporary directory). For every result directory it writes:
  - the ratios of root gathering and of the native call to each proposed algorithm, per shape
    and size (median over launches of the per-launch Tukey medians, with the launches behind
    them and the spread of the per-launch medians, max/min, of each side);
  - the phase table of the directories with phases files;
  - for a pair <name>/<mpi> and <name without "-fix">-nophases/<mpi>: the timed total with
    phases on against off, per shared point, beside the launch-to-launch spread.
Every table names the machine, the library and the process count it comes from.
"""

import argparse
import sys
import tarfile
import tempfile
from pathlib import Path

import pandas as pd

from collrepro import safeio
from collrepro.analysis.frames import aggregate as A
from collrepro.analysis.loading import loader
from collrepro.analysis.figures import phases as P
from collrepro.analysis.frames.tables import markdown_table
from collrepro.analysis.frames.units import format_bytes

def _keys(per):
    """Shape and size, plus the arrival pattern where the data has several."""
    extra = ["arrival"] if "arrival" in per and per["arrival"].nunique() > 1 else []
    return ["shape"] + extra + ["msg_bytes"]


def _per_launch(rs):
    per = A.per_launch(rs)
    per = per[per["median"].notna()]
    return per.assign(shape=[A.shape_label(r) for _, r in per.iterrows()])


def _per_point(rs):
    """Median over launches of the per-launch medians, with launches and spread, per algorithm."""
    per = _per_launch(rs)
    keys = _keys(per)
    g = per.groupby(keys + ["algorithm"])["median"]
    return pd.DataFrame({"median": g.median(), "launches": g.size(),
                         "spread": g.max() / g.min()}).reset_index(), keys


def ratio_table(rs):
    """baseline / proposed per shape and size, for every baseline and native algorithm measured."""
    pts, keys = _per_point(rs)
    kinds = A.algorithm_kinds(rs.metas)
    algos = sorted(pts["algorithm"].unique())
    proposed = [a for a in algos if kinds.get(a) == "proposed"]
    bases = [a for a in algos if kinds.get(a) in ("baseline", "native")]
    rows = []
    for key, sub in pts.groupby(keys, sort=True):
        by = sub.set_index("algorithm")
        row = dict(zip(keys, key))
        row["msg_bytes"] = format_bytes(int(row["msg_bytes"]))
        for alg in proposed:
            if alg not in by.index:
                continue
            row[f"{alg} (ms)"] = round(by.loc[alg, "median"] * 1e3, 3)
            for base in bases:
                if base in by.index:
                    row[f"{base} / {alg}"] = round(by.loc[base, "median"] / by.loc[alg, "median"], 2)
        row["launches"] = int(sub["launches"].min())
        row["largest spread"] = round(float(sub["spread"].max()), 2)
        rows.append(row)
    return pd.DataFrame(rows).dropna(axis=1, how="all")


def launch_medians(rs):
    """Every launch's median per algorithm and point, sorted: two modes show as two clusters."""
    per = _per_launch(rs)
    rows = []
    for (coll, alg, shape, size), sub in per.groupby(["collective", "algorithm", "shape", "msg_bytes"]):
        meds = sorted(sub["median"] * 1e3)
        rows.append({"collective": coll, "algorithm": alg, "shape": shape, "size": format_bytes(int(size)),
                     "launch medians (ms)": ", ".join(f"{m:.2f}" for m in meds),
                     "spread": round(meds[-1] / meds[0], 2), "launches": len(meds)})
    return pd.DataFrame(rows)


def phase_table(rs):
    rows = P.load(rs)
    if rows.empty:
        return pd.DataFrame(), (0, 0.0)
    return P.markdown_rows(P.table(rows)), P.sum_check(rows)


def overhead_table(on, off):
    """Phases on / off per shared point: the ratio of the medians, and each side's spread."""
    (a, keys), (b, _) = _per_point(on), _per_point(off)
    both = a.merge(b, on=keys + ["algorithm"], suffixes=("_on", "_off"))
    if both.empty:
        return both
    out = pd.DataFrame({"shape": both["shape"], "size": [format_bytes(int(s)) for s in both["msg_bytes"]],
                        "algorithm": both["algorithm"],
                        "on / off": (both["median_on"] / both["median_off"]).round(3),
                        "spread on": both["spread_on"].round(2), "spread off": both["spread_off"].round(2),
                        "launches on, off": [f"{x}, {y}" for x, y in zip(both["launches_on"], both["launches_off"])]})
    return out


def _context(rs):
    m = rs.metas[0] if rs.metas else {}
    over = m.get("oversubscription") or {}
    return (f"machine {m.get('machine', '?')}; {m.get('mpi_impl', '?')} {m.get('mpi_version', '?')}; "
            f"{m.get('nprocs', '?')} ranks on {over.get('cores', '?')} cores "
            f"({'oversubscribed' if over.get('oversubscribed') else 'one rank per core or fewer'})")


# An archive may unpack to at most this much (the committed one: about 35 MB).
MAX_UNPACKED = 1 << 30


def unpack(archive, into):
    """Extract a .tar.xz of result directories into `into`: regular files and folders only,
    relative names without '..', at most MAX_UNPACKED bytes."""
    try:
        with tarfile.open(archive, "r:xz") as tar:
            members = tar.getmembers()
            total = 0
            for m in members:
                name = Path(m.name)
                if name.is_absolute() or ".." in name.parts or not (m.isfile() or m.isdir()):
                    raise safeio.UserError(f"{archive}: member {safeio.excerpt(m.name)!r} is not a plain "
                                           "relative file or folder: not a node16 archive")
                total += m.size
            if total > MAX_UNPACKED:
                raise safeio.UserError(f"{archive}: unpacks to {total} bytes, more than {MAX_UNPACKED}")
            tar.extractall(into, members=members)
    except (tarfile.TarError, EOFError, OSError) as err:
        raise safeio.UserError(f"{archive}: not a readable .tar.xz ({err})") from None


def summarize(root, title=None):
    root = Path(root)
    out = [f"# Node-scale summary of {title or root.name}", "",
           "Generated by `collrepro-py study node16` from the result directories below; "
           "times are the median over launches of the per-launch Tukey medians; a ratio above 1 means "
           "the proposed algorithm is faster; spread = largest / smallest per-launch median.", ""]
    dirs = sorted(p.parent for p in root.glob("*/*/meta-L0.json"))
    loaded = {}
    for d in dirs:
        rs = loader.load([d])
        loaded[d] = rs
        out += [f"## {d.parent.name} / {d.name}", "", _context(rs), ""]
        ratios = ratio_table(rs)
        if len(ratios):
            out += [markdown_table(ratios), ""]
        if d.parent.name.startswith("bi-"):
            out += ["Every launch's median (launch-to-launch bimodality):", "", markdown_table(launch_medians(rs)), ""]
        phases, (reps, worst) = phase_table(rs)
        if len(phases):
            out += [f"Phases (the phases of each of the {reps} repetitions add up to time_s within "
                    f"{worst:.2g} s):", "", markdown_table(phases), ""]
    for d, rs in loaded.items():
        name = d.parent.name
        if "-nophases" in name:
            continue
        twin = root / name.replace("-fix", "-nophases") / d.name
        if twin != d and twin in loaded:
            table = overhead_table(rs, loaded[twin])
            if len(table):
                out += [f"## Phases on against off: {name} / {d.name}", "",
                        "The same points timed in interleaved launches with timing.phases on and off; "
                        "a ratio inside the launch-to-launch spread is no measurable cost.", "",
                        markdown_table(table), ""]
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="study node16", description=__doc__.split("\n")[0])
    ap.add_argument("results", help="directory of <experiment>/<mpi>/ result directories")
    ap.add_argument("--out", help="write the Markdown here (default: stdout)")
    args = ap.parse_args(argv)
    if Path(args.results).is_file():
        with tempfile.TemporaryDirectory(prefix="node16-") as tmp:
            unpack(args.results, tmp)
            text = summarize(tmp, title=args.results)
    elif Path(args.results).is_dir():
        text = summarize(args.results)
    else:
        raise safeio.UserError(f"{args.results}: not a directory or a .tar.xz archive")
    if args.out:
        safeio.write_text(args.out, text)
    else:
        sys.stdout.write(text)
    return 0

