"""The fidelity self-check: does the emulated link give the bandwidth it was configured with?

At `up`, collbench's own ping-pong (bench/output/metadata.cpp: 1 B, 64 B to 64 KiB by powers of 4 and 1 MiB,
half the round trip, median of 8) runs between the first two nodes over TCP in LAUNCHES separate
launches, holding the machine-wide timing lock. A launch's bandwidth is the slope between 64 KiB
and 1 MiB (the part that grows with size, so the path's latency drops out), its latency the
1-byte time; the check takes the median over the launches, and stops as soon as a majority of
LAUNCHES lies inside the tolerance, or below or above it (the median can no longer change side).
The bandwidth must lie within TOLERANCE of the slower of the two nodes' links, or the cluster is
refused.
The numbers go to STATE_DIR/fidelity.json and from there into every launch's metadata.

Latency is not configured (netem is not in this kernel): it is what the veth pairs, the bridge
and the two TCP stacks give, measured here and recorded beside the bandwidth.

Per size from 4 KiB the check also records what share of the link's time the ping-pong was
charged (`sizes`: (time - the 1-byte time) / (bytes / rate)), and whether that lies within
TOLERANCE (`held`). Only the large sizes are held: the token bucket lets a burst of frames leave
an idle link at once, and TCP's acknowledgements and windows meet the shaper's queue, so a 4-64 KiB
message is charged anywhere from nothing to several times its link time (docs/cluster.md has the
measurement). The record travels into every launch's metadata beside the bandwidth.
"""

import contextlib
import fcntl
import os
import statistics
import subprocess
import tempfile
import time

from collrepro import mpienv, safeio
from collrepro.safeio import EnvironmentProblem, UserError

from . import mpi

TOLERANCE = 0.10
SMALL, LARGE = 65536, 1 << 20
LOCK = os.environ.get("COLLREPRO_TIMING_LOCK", "/tmp/collrepro-timing.lock")
LOCK_WAIT_S = 600
LAUNCHES = 5  # separate launches; the median of their bandwidths (one launch is at the scheduler's mercy)
RUN_TIMEOUT_S = 120  # a launch moves 1 MiB 20 times: seconds at 10 Mbit/s, bounded regardless


def verdict(series, rate):
    """{bandwidth_bit_s, latency_s, ratio, within} from a ping-pong series [{bytes, time_s}] and
    the configured rate (bits/s); pure."""
    t = {int(s["bytes"]): float(s["time_s"]) for s in series}
    if SMALL not in t or LARGE not in t or 1 not in t:
        raise UserError(f"the ping-pong lacks sizes 1, {SMALL} or {LARGE} bytes: {sorted(t)}")
    slope = t[LARGE] - t[SMALL]
    bw = (LARGE - SMALL) * 8 / slope if slope > 0 else float("inf")
    ratio = bw / rate
    return {"bandwidth_bit_s": bw, "latency_s": t[1], "ratio": ratio,
            "within": abs(ratio - 1) <= TOLERANCE, "tolerance": TOLERANCE}


SIZES_FROM = 4096


def per_size(series, rate, latency_s):
    """[{bytes, time_s, link_s, charged, held}] from 4 KiB up: the share of the link's time
    (bytes x 8 / rate) the ping-pong's one-way time beyond the 1-byte latency was charged; pure."""
    out = []
    for s in sorted(series, key=lambda s: int(s["bytes"])):
        size = int(s["bytes"])
        if size < SIZES_FROM:
            continue
        link_s = size * 8 / rate
        charged = (float(s["time_s"]) - latency_s) / link_s
        out.append({"bytes": size, "time_s": float(s["time_s"]), "link_s": link_s, "charged": charged,
                    "held": abs(charged - 1) <= TOLERANCE})
    return out


def sizes_line(sizes):
    """`up`'s line about the sizes: which the link holds, and how far the others are off."""
    def kib(n):
        return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"
    held = [kib(s["bytes"]) for s in sizes if s["held"]]
    off = [f"{kib(s['bytes'])} x{s['charged']:.2f}" for s in sizes if not s["held"]]
    return (f"sizes held within +-{TOLERANCE:.0%} of the link's time: {', '.join(held) or 'none'}"
            + (f"; not held (charged share of the link's time): {', '.join(off)} (the token bucket's "
               "burst and TCP: docs/cluster.md)" if off else ""))


def decided(verdicts):
    """Whether the median of LAUNCHES launches is already on one side of the tolerance band: a
    majority inside it, or a majority below or above it, whatever the rest measure; pure."""
    need = LAUNCHES // 2 + 1
    inside = sum(v["within"] for v in verdicts)
    below = sum(v["ratio"] < 1 - TOLERANCE for v in verdicts)
    return max(inside, below, len(verdicts) - inside - below) >= need


def combine(verdicts, rate):
    """One verdict from the launches': the median bandwidth and latency (a launch that met a
    busy scheduler is one vote, not a shifted median time of one size); pure."""
    bw = statistics.median(v["bandwidth_bit_s"] for v in verdicts)
    ratio = bw / rate
    return {"bandwidth_bit_s": bw, "latency_s": statistics.median(v["latency_s"] for v in verdicts),
            "ratio": ratio, "within": abs(ratio - 1) <= TOLERANCE, "tolerance": TOLERANCE,
            "launch_bandwidths_bit_s": [v["bandwidth_bit_s"] for v in verdicts]}


@contextlib.contextmanager
def timing_lock(path=LOCK, wait_s=LOCK_WAIT_S):
    """The machine-wide timing lock (flock): no two measurements at once. Bounded wait."""
    if path == "none":
        yield
        return
    with open(path, "a") as f:
        end = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > end:
                    raise EnvironmentProblem(f"{path}: another measurement held the timing lock for {wait_s} s; "
                                             "re-run when it is done") from None
                time.sleep(0.5)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def pingpong_command(collbench, out, a, b):
    """collbench's smallest launch, one rank on node a and one on node b: its metadata has the ping-pong."""
    config = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))),
                          "configs", "quick.yaml")
    return [mpienv.installed_program("openmpi"), "-n", "2", "--host", f"{a}:1,{b}:1", "--map-by", "node",
            collbench, config, "--out", out, "--quiet", "--set", "sizes=[1KiB]", "--set", "groups.ratios=[\"1/1\"]",
            "--set", "blocks=[\"1:0\"]", "--set", "timing.reps=3"]


def _run(argv, env, a, b):
    try:
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise EnvironmentProblem(f"the fidelity ping-pong between {a} and {b} ran over {RUN_TIMEOUT_S} s: "
                                 "the link does not carry MPI traffic") from None
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or proc.stdout.strip().splitlines() or ["no output"])[-1]
        raise EnvironmentProblem(f"the fidelity ping-pong between {a} and {b} failed (exit {proc.returncode}): "
                                 f"{safeio.excerpt(tail, 120)}")


def measure(state_dir, cluster_json, collbench):
    """Run the ping-pong between the first two nodes; the verdict and the series."""
    from collrepro.sim.platforms.platform import measurements
    if not os.path.exists(collbench):
        raise EnvironmentProblem(f"{collbench} not found: build collbench (cmake --build --preset openmpi "
                                 "--target collbench) or give --collbench")
    a, b = cluster_json["nodes"][0], cluster_json["nodes"][1]
    rate = min(a["rate_bit_s"], b["rate_bit_s"])
    env = mpi.environment(state_dir, cluster_json)
    launches = []
    with tempfile.TemporaryDirectory(prefix="cluster-fidelity-") as tmp, timing_lock():
        for launch_index in range(LAUNCHES):
            out = os.path.join(tmp, f"L{launch_index}")
            argv = mpi.head_command(state_dir, cluster_json, pingpong_command(collbench, out, a["name"], b["name"]))
            _run(argv, env, a["name"], b["name"])
            launches.append(measurements([out])["pingpong"])
            if decided([verdict(s, rate) for s in launches]):
                break
        series = measurements([tmp])["pingpong"]  # per size, the median over the launches (the record)
    result = combine([verdict(s, rate) for s in launches], rate)
    result.update({"link_bit_s": rate, "between": [a["name"], b["name"]], "pingpong": series,
                   "sizes": per_size(series, rate, result["latency_s"]),
                   "method": f"collbench ping-pong (Open MPI, TCP), {LAUNCHES} launches: the median of the launches' "
                             "bandwidths (slope 64 KiB to 1 MiB) and latencies (1 B); pingpong: per size the "
                             "median over the launches of each launch's median of 8 round trips",
                   "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    return result
