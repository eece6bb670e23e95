#!/usr/bin/env python3
"""cluster.known_answer (ctest, labels cluster and timing; root): the version verdicts against a
network whose answer is known.

An emulated cluster of 4 nodes, one rank each (crc-nI runs world rank I); the experiment is the
inter-group Allgather by the pairwise exchange of fullduplex-allgather at group sizes 1/1, 2/1 and
3/1 under placement `block`. Only the 3/1 points have a rank (3) on crc-n3, and there that rank's
link carries three blocks each way against one on any other link: the slowed link is their
bottleneck. (A schedule whose bottleneck lies elsewhere is not slowed by it: Open MPI's native
intercommunicator Allgather and root gathering at 3/1 read x1.00 with crc-n3 at 0.8 of the link,
x1.07-1.26 at 0.5, their root's link being the busiest; so the known answer is stated for the
pairwise exchange only.) Two states of one cluster run interleaved, in seeded rounds
(one launch of each per round, the order drawn per round; `launch_order` in the metadata, as
`collrun --installations` writes it): `base`, every link at --link, and `slowed`, crc-n3's link
at --factor times it (`cluster shape`). `analyze compare base slowed` must then flag slower
exactly the points whose ranks touch crc-n3 (decided from each launch's metadata: the
placement's sides and the node each rank ran on), and no other point.

CI runs --factor 0.5 --sizes 64KiB, 10 rounds: the crossing point about 2x slower (x1.73 beside
two busy loops; there 16-32 KiB, 1-3 ms of link, drowned in the scheduler's noise, and at 20
Mbit/s 128 KiB read only x1.2: the token bucket and TCP, not the rate, set it). The committed
result (results/cluster/known-answer/) ran the defaults at --factor 0.8, 16 rounds, with --keep. Exit 0 when the verdicts match the
known answer, 1 when not, 77 to skip (not root, a cluster already up).
"""

import argparse
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "python"))

SLOWED_NODE = "crc-n3"
CONFIG = """\
experiment: cluster-known-answer
description: >-
  Inter-group Allgather (pairwise exchange) on 4 emulated nodes, one rank each, group sizes 1/1,
  2/1 and 3/1 under placement block: only the 3/1 points have a rank on crc-n3, and its link is
  their bottleneck (tests/cluster/known_answer.py).
collective: allgather
algorithms: [fullduplex-allgather]
groups: {sizes: ["1/1", "2/1", "3/1"]}
blocks: ["1:1"]
sizes: [{sizes}]
placements: [block]
timing: {sync: barrier, clock: monotonic, warmup: 1, reps: 8}
validation: true
launches: 1
"""


def say(text):
    print(f"[known_answer] {text}", flush=True)


def cluster(*argv, check=True, env=None):
    proc = subprocess.run([os.path.join(REPO, "collrepro-py"), "cluster", *argv], capture_output=True, text=True,
                          env=env)
    if check and proc.returncode != 0:
        raise SystemExit(f"FAIL: cluster {' '.join(argv)}: exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
    return proc


def up(link):
    """The cluster at `link`, or a lower rate where a loaded machine cannot hold it (the fidelity
    check refuses); the rate it holds."""
    from collrepro.cluster import plan as P
    lower = [r for r in ("50mbit", "20mbit", "10mbit") if P.parse_rate(r) < P.parse_rate(link)]
    for rate in [link] + lower:
        proc = cluster("up", "--nodes", "4", "--link", rate, "--collbench", os.environ["COLLBENCH"], check=False)
        if proc.returncode == 0:
            say(proc.stdout.strip().splitlines()[-1])
            return rate
        if "fidelity check refused" not in proc.stderr:
            raise SystemExit(f"FAIL: cluster up at {rate}: exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
        say(f"{rate} refused by the fidelity check: trying a lower rate")
    raise SystemExit(f"FAIL: the fidelity check refused every rate from {link} down to 10mbit")


def launch(config, out, state, rnd, rounds, seed, slot, order):
    env = dict(os.environ, COLLREPRO_LAUNCH_ORDER=json.dumps(
        {"seed": seed, "round": rnd, "slot": slot, "of": len(order), "order": order}))
    proc = cluster("run", "--", "mpirun.openmpi", "-n", "4", "--map-by", "node", os.environ["COLLBENCH"], config,
                   "--launch", str(rnd), "--out", os.path.join(out, state), "--quiet", "--set", f"launches={rounds}",
                   check=False, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"FAIL: {state} launch {rnd}: exit {proc.returncode}: {proc.stderr.strip()[-600:]}")


def crossing(directory):
    """{(p, q): whether a rank of the point ran on SLOWED_NODE}, from the launches' metadata (the
    placement's sides, the node of each rank); every launch must agree."""
    seen = {}
    for path in sorted(glob.glob(os.path.join(directory, "meta-L*.json*"))):
        from collrepro import resultfiles
        meta = json.loads(resultfiles.read_text(path, 1 << 22, "a launch's metadata"))
        host = {b["rank"]: b["host"] for b in meta["bindings"]}
        for pl in meta["placements"]:
            key = (int(pl["p"]), int(pl["q"]))
            touches = any(side >= 0 and host[rank] == SLOWED_NODE for rank, side in enumerate(pl["sides"]))
            if seen.setdefault(key, touches) != touches:
                raise SystemExit(f"FAIL: {path}: the placement of {key} moved between launches")
    return seen


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--factor", type=float, default=0.5, help="crc-n3's link over the others'")
    ap.add_argument("--link", default="100mbit")
    ap.add_argument("--sizes", default="16KiB,32KiB,64KiB", help="the message sizes, comma-separated")
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--keep", default="", help="keep the runs and the comparison in this directory")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("SKIP: needs root")
        return 77
    if any(line.split()[0].startswith("crc-") for line in
           subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.splitlines() if line):
        print("SKIP: a cluster is up (ip netns list shows crc- names); run `collrepro-py cluster down` first")
        return 77
    from collrepro.cluster import plan as P
    work = a.keep or tempfile.mkdtemp(prefix="known-answer-")
    os.makedirs(work, exist_ok=True)
    config = os.path.join(work, "known-answer.yaml")
    with open(config, "w") as f:
        f.write(CONFIG.replace("{sizes}", ", ".join(x.strip() for x in a.sizes.split(","))))
    runs = os.path.join(work, "runs")
    try:
        link = up(a.link)
        slow = P.format_rate(P.parse_rate(link) * a.factor)
        say(f"{a.rounds} rounds of base ({link} links) and slowed ({SLOWED_NODE} at {slow}), seed {a.seed}")
        for rnd in range(a.rounds):
            order = random.Random(a.seed * 1000 + rnd).sample(["base", "slowed"], 2)
            for slot, state in enumerate(order):
                if state == "base":
                    cluster("shape", "--reset")
                else:
                    cluster("shape", "--reset", "--node-rate", f"{SLOWED_NODE}={slow}")
                launch(config, runs, state, rnd, a.rounds, a.seed, slot, order)
            say(f"round {rnd}: {' '.join(order)}")
    finally:
        cluster("down", check=False)
    from collrepro.analysis import cli as analysis_cli
    compare = os.path.join(work, "compare")
    rc = analysis_cli.main(["compare", os.path.join(runs, "base"), os.path.join(runs, "slowed"), "-o", compare])
    if rc not in (0, 1):
        raise SystemExit(f"FAIL: analyze compare: exit {rc}")
    return judge(compare, crossing(os.path.join(runs, "slowed")), link, slow, work if not a.keep else "")


def judge(compare, touches, link, slow, scratch):
    import pandas as pd
    table = pd.read_csv(os.path.join(compare, "compare.csv"))
    wrong = []
    lines = []
    for r in table.to_dict("records"):
        key = (int(r["p"]), int(r["q"]))
        flagged = r["verdict"] in ("regression", "changed-not-comparable") and r["ratio"] > 1
        changed = r["verdict"] in ("regression", "improvement", "changed-not-comparable")
        want = touches[key]
        ok = flagged if want else not changed
        lines.append(f"{r['algorithm']:22s} {key[0]}/{key[1]} {int(r['msg_bytes']):7d} B  crosses {SLOWED_NODE}: "
                     f"{'yes' if want else 'no '}  {r['verdict']:24s} x{r['ratio']:.3f} "
                     f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}] {r.get('design', '')}  {'ok' if ok else 'WRONG'}")
        if not ok:
            wrong.append(lines[-1])
    print("\n".join(lines))
    crossing_n = sum(touches[(int(r["p"]), int(r["q"]))] for r in table.to_dict("records"))
    say(f"{len(table)} points, {crossing_n} crossing {SLOWED_NODE} ({link} links, {SLOWED_NODE} at {slow}): "
        f"{len(wrong)} wrong")
    if scratch:
        shutil.rmtree(scratch, ignore_errors=True)
    if wrong:
        print("FAIL: verdicts that miss the known answer:\n" + "\n".join(wrong), file=sys.stderr)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
