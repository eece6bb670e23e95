"""sim validate-cluster: the simulation checked against an emulated cluster whose links are known
(results/cluster/validation).

    collrepro-py sim validate-cluster RUNS_DIR [--out DIR] [--report-only]

RUNS_DIR holds the real runs on the emulated cluster (`collrepro-py cluster`, docs/cluster.md) as
<experiment>/ result directories of the EXPERIMENTS below, one rank per node (written by
results/cluster/validation/run.sh). The command writes the cluster's platform from those
launches' own records (`sim platform --from-cluster`,
python/collrepro/sim/platforms/cluster_platform.py), simulates every experiment on it through
bench/sim/simrun with SimGrid's Open MPI selector, and compares point by point, as `sim validate`
does for a node (python/collrepro/sim/validation/validate.py: the same medians, error and ranking rule):
points.csv, summary.csv, sim_vs_real.png and README.md in --out, the platform and the
simulations in --out/sims/. Where RUNS_DIR also holds duplex/ (duplex.sh: 2 nodes, one message
one way against one each way at once), a second platform takes the measured share of a link
loaded both ways (`sim platform --duplex-share`), simulated into --out/sims-duplex/. Exit
codes: 0 done, 2 bad input, 4 a simulation failed, 5 simrun's build missing.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from collrepro import paths, resultfiles, safeio
from collrepro.cliargs import ArgumentParser
from collrepro.safeio import UserError
from collrepro.sim.validation import report as R
from collrepro.sim.validation import validate as V

REPO = Path(paths.REPO)
HERE = REPO / "results" / "cluster" / "validation"
GOAL_MEDIAN_ERR, GOAL_RANKING = 10.0, 90.0
# The secondary views of the summary: rankings over pairs at least this far apart on the cluster,
# and the error of messages at least this large (the token bucket's burst, 2 frames of 9 KB, is
# then at most 7 % of a message).
PRACTICAL_GAP, LARGE_BYTES = 0.05, 256 * 1024
# name -> (config, collbench --set overrides of the simulation). The native calls need
# intercommunicators, which SMPI lacks: the simulated settings list the others.
_S001 = (["root-gathering,fullduplex-allgather"] * 4
         + ["root-gathering,fullduplex-allgatherv,fullduplex-allgatherv-ordered"] * 4)
EXPERIMENTS = {
    "seed000": (HERE / "seed000-4nodes.yaml",
                ["settings[0].algorithms=[halfduplex-fc,halfduplex-fc-minvol,root-gathering]"]),
    "seed001": (HERE / "seed001-4nodes.yaml", [f"settings[{i}].algorithms=[{a}]" for i, a in enumerate(_S001)]),
}
COMMON = ["pair_mode=intracomm", "timing.reps=1", "timing.warmup=1"]


def real_dirs(runs):
    runs = Path(runs)
    found = {e: runs / e for e in EXPERIMENTS if resultfiles.result_files(runs / e, ["meta"])["meta"]}
    if not found:
        raise UserError(f"{runs}: none of {', '.join(EXPERIMENTS)} found as <experiment>/meta-L*.json "
                        "(results/cluster/validation/run.sh writes them)")
    return found


def _one_rank_per_node(directory):
    from collrepro.sim.platforms import platform as P
    for f in P._metas([str(directory)]):
        m = P._load_meta(f)
        nodes, nprocs = m.get("nodes"), m.get("nprocs")
        if nodes != nprocs:
            raise UserError(f"{f}: {nprocs} ranks on {nodes} nodes; the cluster's simulation places one rank per "
                            "node (node-<i> is crc-n<i>): run one rank per node")
        return int(nprocs)
    raise UserError(f"{directory}: no launch metadata")


def duplex_table(runs):
    """Per size, from the 2-node runs of duplex.yaml under RUNS_DIR/duplex: one message one way
    (halfduplex-fc, 1:0) and one each way at once (fullduplex-allgather, 1:1), median s, and each
    direction's share of the rate while both carry traffic (their ratio); None where those runs
    are not there."""
    d = Path(runs) / "duplex"
    if not resultfiles.result_files(d, ["meta"])["meta"]:
        return None
    m = V.medians(d).pivot_table(index="msg_bytes", columns="algorithm", values="median_s")
    if "halfduplex-fc" not in m or "fullduplex-allgather" not in m:
        raise UserError(f"{d}: want halfduplex-fc and fullduplex-allgather (duplex.yaml)")
    table = m[["halfduplex-fc", "fullduplex-allgather"]].dropna().rename(
        columns={"halfduplex-fc": "one_s", "fullduplex-allgather": "both_s"})
    return table.assign(share=table["one_s"] / table["both_s"])


def variants(duplex):
    """{name: duplex share}: the platform as configured, and with the share measured at the
    largest size of the duplex table (where the token bucket's burst matters least)."""
    out = {"configured": 1.0}
    if duplex is not None and len(duplex):
        out["measured duplex"] = min(1.0, float(duplex["share"].iloc[-1]))
    return out


def sims_dir(out, variant):
    return Path(out) / ("sims" if variant == "configured" else "sims-duplex")


def simulate(runs, out, variant, share):
    """The platform and the simulations of one variant; the exit code (4 when one failed)."""
    sims = sims_dir(out, variant)
    dirs = real_dirs(runs)
    sims.mkdir(parents=True, exist_ok=True)
    platform = sims / "cluster.xml"
    from collrepro.sim.platforms import platform as P
    P.write_cluster([str(d) for d in dirs.values()], str(platform),
                    source=f"the runs under {os.path.relpath(runs, REPO)}", duplex_share=share)
    times_file = sims / "runtimes.json"
    times = json.loads(times_file.read_text()) if times_file.exists() else {}
    rc = 0
    for exp, rdir in sorted(dirs.items()):
        config, sets = EXPERIMENTS[exp]
        np_ = _one_rank_per_node(rdir)
        dest = sims / exp
        for f in dest.glob("*-L0*"):
            f.unlink()
        dest.mkdir(parents=True, exist_ok=True)
        # --fold 0: no buffer is folded (4 ranks of at most a few tens of MiB), so every point validates
        cmd = [str(REPO / "bench" / "sim" / "simrun"), "--platform", str(platform), "--coll-selector", "ompi",
               "--np", str(np_), "--ppn", "1", "--fold", "0", "--out", str(dest), str(config), "--", "--quiet"]
        cmd += [x for s in COMMON + sets for x in ("--set", s)]
        t0 = time.time()
        with open(dest / "simrun.log", "w+") as log:
            code = subprocess.run(cmd, check=False, stderr=log).returncode
            log.seek(0)
            tail = log.read().splitlines()[-V.LOG_LINES:]
        safeio.write_text(dest / "simrun.log", "\n".join(tail) + "\n")
        times[exp] = {"wall_s": round(time.time() - t0, 1), "exit": code}
        print(f"sim validate-cluster: {variant} / {exp}: exit {code}, {times[exp]['wall_s']} s", file=sys.stderr)
        rc = rc or (4 if code else 0)
    safeio.write_json(times_file, times)
    return rc


def build(runs, out, names):
    parts = []
    for variant in names:
        for exp, rdir in sorted(real_dirs(runs).items()):
            sdir = sims_dir(out, variant) / exp
            if resultfiles.result_files(sdir, ["summary"])["summary"]:
                part = V.compare(V.medians(rdir), V.medians(sdir), exp, "openmpi")
                part.insert(2, "platform", variant)
                parts.append(part)
    if not parts:
        raise UserError(f"{out}/sims: no simulation found (run without --report-only first)")
    return pd.concat(parts, ignore_index=True)


def goal(row):
    ok_err = row["median_abs_error_pct"] <= GOAL_MEDIAN_ERR
    ok_rank = (row["ranking_preserved_pct"] or 0) >= GOAL_RANKING
    return "both met" if ok_err and ok_rank else ("error met" if ok_err else ("ranking met" if ok_rank else "neither"))


def _ranked_apart(sub):
    """The share of (collective, shape, size) whose ranking is kept when only pairs of algorithms
    at least PRACTICAL_GAP apart on the cluster count (a deterministic emulated link tells apart
    real differences of 0.1 %, which a model of rates ties)."""
    kept = [V.ranking_preserved(g, PRACTICAL_GAP) for _, g in sub.groupby(["collective", "shape", "msg_bytes"])]
    kept = [k for k in kept if k is not None]
    return round(100.0 * sum(kept) / len(kept), 1) if kept else None


def summarize(points):
    parts = []
    for variant, sub in points.groupby("platform", sort=False):
        part = V.summarize(sub)
        part.insert(2, "platform", variant)
        part[f"ranking kept, pairs >= {PRACTICAL_GAP:.0%} apart (%)"] = [
            _ranked_apart(sub[sub["experiment"] == e]) for e in part["experiment"]]
        large = sub[sub["msg_bytes"] >= LARGE_BYTES]
        part[f"median abs. error from {LARGE_BYTES // 1024} KiB (%)"] = [
            round(float(large.loc[large["experiment"] == e, "error_pct"].abs().median()), 1)
            for e in part["experiment"]]
        parts.append(part)
    summ = pd.concat(parts, ignore_index=True)
    summ[f"goal (<= {GOAL_MEDIAN_ERR:g} %, >= {GOAL_RANKING:g} %)"] = [goal(r) for _, r in summ.iterrows()]
    return summ


def _platform_lines(out, names):
    lines = []
    for variant in names:
        xml = sims_dir(out, variant) / "cluster.xml"
        if xml.is_file():
            text = xml.read_text()
            comment = text[text.index("<!--") + 4:text.index("-->")].rstrip().splitlines()
            lines += [f"The platform {variant}, `{xml.parent.name}/cluster.xml`:", "", "```",
                      *[c.rstrip() for c in comment if c.strip()], "```", ""]
    return lines


def _duplex_lines(duplex):
    if duplex is None:
        return ["No duplex runs (`duplex.sh`): the platform is simulated as configured only.", ""]
    from collrepro.analysis.frames.units import format_bytes
    table = pd.DataFrame({"size": [format_bytes(int(b)) for b in duplex.index],
                      "one way (ms)": (duplex["one_s"] * 1e3).round(3).tolist(),
                      "both ways at once (ms)": (duplex["both_s"] * 1e3).round(3).tolist(),
                      "each direction's share": duplex["share"].round(3).tolist()})
    return ["## A link loaded both ways", "",
            "`duplex.sh` (2 nodes, one rank each, the same link rate; apart from the 4-node runs): one message "
            "from crc-n0 to crc-n1 (`halfduplex-fc`, 1:0) against one message each way at the same time "
            "(`fullduplex-allgather`, 1:1), median over launches:", "", V._md(table), "",
            "The platform `measured duplex` takes the share at the largest size, "
            f"{format_bytes(int(duplex.index[-1]))}: {variants(duplex)['measured duplex']:.3f} "
            "(the token bucket's burst shortens the smaller messages).", ""]


def _ranks_and_cores(runs):
    """(ranks, the machine's cores) of the real runs: the emulated nodes share the cores, which the
    metadata's per-node oversubscription count does not see."""
    from collrepro.sim.platforms import platform as P
    first = P._load_meta(P._metas([str(d) for d in real_dirs(runs).values()])[0])
    return first.get("nprocs"), (first.get("hwloc") or {}).get("cores")


def _ranks_per_core(runs):
    ranks, cores = _ranks_and_cores(runs)
    over = isinstance(ranks, int) and isinstance(cores, int) and ranks > cores
    return f"{ranks} ranks on {cores} cores" + (f" (oversubscribed {ranks}:{cores})" if over else "")


def _cores_line(runs):
    return (f"  The real runs: {_ranks_per_core(runs)}, the emulated nodes sharing the cores (the metadata's "
            "per-node count does not see it); idle ranks yield, and from 256 KiB the times are those of the links "
            "within a few % (below).")


def readme(points, summary, runs, out, duplex):
    tagged = points.assign(experiment=points["experiment"] + " / " + points["platform"])
    lines = [
        "# results/cluster/validation: the simulation against an emulated cluster",
        "",
        f"Generated by `collrepro-py sim validate-cluster {os.path.relpath(runs, REPO)}`",
        "(python/collrepro/sim/validation/cluster_validate.py) from the real runs under "
        f"`{os.path.relpath(runs, HERE)}/` (`run.sh`, `duplex.sh`) and the simulations in `sims*/`. Do not edit.",
        "",
        "- **Real**: 4 emulated nodes (`collrepro-py cluster`), one Open MPI rank each, over TCP through",
        "  the nodes' token-bucket links; the experiments `seed000-4nodes.yaml` and `seed001-4nodes.yaml`;",
        "  the median over launches of the per-launch Tukey medians.",
        _cores_line(runs),
        "- **Simulated**: the same experiments in SimGrid on a platform written from the runs' own",
        "  `cluster` records (`collrepro-py sim platform --from-cluster`), SimGrid's Open MPI collective",
        "  selector, inter-group pairs on one intracommunicator (SMPI has no intercommunicators, so the",
        "  `native` baselines are real-only), one repetition after a warm-up (a simulation is deterministic).",
        "  Two platforms: `configured` (each direction of a link at the rate, as the cluster is configured)",
        "  and `measured duplex` (both directions at once share what duplex.sh measured).",
        "- **Per point**: error = (simulated - real) / real; the ranking of a (collective, shape, size) is",
        "  kept when every pair of algorithms the real launches tell apart (their ranges do not overlap)",
        "  is in the same order in simulation (`sim validate`'s rule). Goal: median |error| <= "
        f"{GOAL_MEDIAN_ERR:g} %, ranking kept >= {GOAL_RANKING:g} %.",
        "",
        "## Summary",
        "",
        V._md(summary),
        "",
        *[f"All points, {v}: median |error| {sub['error_pct'].abs().median():.1f} %, 90th percentile "
          f"{np.percentile(sub['error_pct'].abs(), 90):.1f} %." for v, sub in points.groupby("platform", sort=False)],
        "",
        "![simulated against real](sim_vs_real.png)",
        "",
        *_duplex_lines(duplex),
        *_platform_lines(out, variants(duplex)),
        "## Where the error lies",
        "",
        "Median signed error per size (negative: the simulation is faster than the cluster):",
        "",
        V._md(V._by(tagged, ["msg_bytes"])),
        "",
        "Per algorithm and size:",
        "",
        V._md(V._by(tagged, ["algorithm", "msg_bytes"])),
        "",
    ]
    return "\n".join(lines + R._ranking_failures(tagged)) + "\n"


def write_report(runs, out, duplex):
    out = Path(out)
    points = build(runs, out, variants(duplex))
    summary = summarize(points)
    cols = ["experiment", "platform", "library", "collective", "shape", "msg_bytes", "algorithm", "real_median_s",
            "real_min_s", "real_max_s", "real_launches", "sim_median_s", "error_pct", "ranking_preserved"]
    caveat = (_ranks_per_core(runs) + "; the token bucket's burst is not in the platform (16-64 KiB run faster on "
              "the cluster)")
    safeio.write_csv(out / "points.csv", points[cols].round({"error_pct": 2}).assign(caveat=caveat))
    safeio.write_csv(out / "summary.csv", summary.assign(caveat=caveat))
    V.figure(points.assign(series=points["experiment"] + " / " + points["platform"]), out / "sim_vs_real.png",
             real_label="emulated cluster, 4 nodes", sim_label="SimGrid, the cluster's platform",
             band=GOAL_MEDIAN_ERR, series="series")
    safeio.write_text(out / "README.md", readme(points, summary, runs, out, duplex))
    return summary


def _parser():
    ap = ArgumentParser(prog="sim validate-cluster", description=__doc__.split("\n")[0])
    ap.add_argument("runs", help="the real runs: <experiment>/ directories (results/cluster/validation/runs/<rate>)")
    ap.add_argument("--out", default=str(HERE), help="where the report goes (default results/cluster/validation)")
    ap.add_argument("--report-only", action="store_true", help="compare the simulations already there")
    return ap


def main(argv=None):
    a = _parser().parse_args(argv)
    duplex = duplex_table(a.runs)
    rc = 0
    for variant, share in ([] if a.report_only else variants(duplex).items()):
        rc = simulate(a.runs, a.out, variant, share) or rc
    summary = write_report(a.runs, a.out, duplex)
    print(summary.to_string(index=False), file=sys.stderr)
    return rc
