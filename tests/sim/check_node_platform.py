"""sim.node-platform's two halves: `make MEASURED PLATFORM` writes a known ping-pong, known
per-call costs and a known concurrent ping-pong as a launch's metadata and derives a platform
from it, and a second one for 1 MiB messages whose backbone comes from the concurrent ping-pong
(PLATFORM with -1mib before .xml); `check MEASURED OUT` compares the simulated ping-pongs with
it (within 3 %), the simulated time inside MPI_Send, MPI_Isend and MPI_Recv at the eager sizes
with the known costs (within 3 % and 30 ns: each simulated clock reading costs SimGrid's
smpi/wtime), the simulated concurrent ping-pong's slow-down (none on the first platform, the
measured one at 1 MiB on the second, within 2 %), and checks each selector's metadata."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from collrepro.sim.platforms import platform as sim_platform  # noqa: E402
from collrepro.sim.running import make_platform  # noqa: E402
from summary import launch_meta, report  # noqa: E402

SIZES = [1, 1024, 65536, 1 << 20]


def known(b):
    return 1.5e-6 + b / 5e9 if b <= 65536 else 6e-6 + b / 9e9


# The time inside each call: eager at 1 B and 1 KiB (at most half the one-way time together), and
# from 64 KiB the send waits for its transfer (the platform charges no overhead there).
CALLS = {1: (0.2e-6, 0.1e-6, 0.3e-6), 1024: (0.3e-6, 0.1e-6, 0.4e-6),
         65536: (known(65536), 0.1e-6, known(65536)), 1 << 20: (known(1 << 20), 0.1e-6, known(1 << 20))}
EAGER = [1, 1024]
# Every pair of 4 ranks at once against one pair: how many times longer the transfer (latency
# left out) took; the 1 MiB platform must slow its 2 pairs by SLOW[1 MiB].
PAIRS = 2
SLOW = {1 << 16: 1.0, 1 << 18: 1.2, 1 << 20: 1.6, 1 << 22: 1.9}
MIB_PLATFORM = "-1mib"


def latency(b):
    """The latency the platform gives messages of b bytes (its piecewise fit of the ping-pong)."""
    return sim_platform._piece_at(sim_platform.piecewise([{"bytes": s, "time_s": known(s)} for s in SIZES]), b)[1]


def slowdown(entry):
    lat = latency(entry["bytes"])
    return (entry["all_pairs_s"] - lat) / (entry["one_pair_s"] - lat)


def main(action, measured, target):
    measured = Path(measured)
    if action == "make":
        measured.mkdir(parents=True)
        (measured / "meta-L0.json").write_text(json.dumps({
            "mpi_impl": "openmpi", "hwloc": {"cores": 4},
            "pingpong": [{"bytes": b, "time_s": known(b)} for b in SIZES],
            "callcosts": [{"bytes": b, "send_s": c[0], "isend_s": c[1], "recv_s": c[2]} for b, c in CALLS.items()],
            "concurrent_pingpong": [{"bytes": b, "pairs": PAIRS, "one_pair_s": known(b),
                                     "all_pairs_s": latency(b) + k * (known(b) - latency(b))} for b, k in SLOW.items()]}))
        mib = target.replace(".xml", f"{MIB_PLATFORM}.xml")
        return (make_platform.main([str(measured), "--name", "test-node", "-o", target])
                or make_platform.main([str(measured), "--name", "test-node", "--shared-size", str(1 << 20), "-o", mib]))
    bad = []
    pp = launch_meta(Path(target) / "pp")
    # the sizes the platform was made from (collbench measures more, between them: interpolated)
    simulated = {s["bytes"]: s["time_s"] for s in pp["pingpong"]}
    for b in SIZES:
        want, have = known(b), simulated.get(b)
        if have is None or abs(have - want) > 0.03 * want:
            bad.append(f"{b} B: simulated {have}, measured {want:.3e} s")
    got = {c["bytes"]: c for c in pp.get("callcosts") or []}
    for b in EAGER:
        for i, key in enumerate(("send_s", "isend_s", "recv_s")):
            want, have = CALLS[b][i], got.get(b, {}).get(key)
            if have is None or abs(have - want) > 0.03 * want + 30e-9:
                bad.append(f"{b} B {key}: simulated {have}, measured {want:.3e} s")
    for entry in launch_meta(Path(target) / "sweep-ompi").get("concurrent_pingpong") or [{"bytes": 0}]:
        if entry["bytes"] not in SLOW or abs(slowdown(entry) - 1) > 0.01:
            bad.append(f"no shared limit: concurrent ping-pong {entry}, want every pair as fast as one")
    shared = {e["bytes"]: e for e in launch_meta(Path(target) / "shared-1mib").get("concurrent_pingpong") or []}
    have = slowdown(shared[1 << 20]) if 1 << 20 in shared else None
    if have is None or abs(have - SLOW[1 << 20]) > 0.02 * SLOW[1 << 20]:
        bad.append(f"the 1 MiB platform: {PAIRS} pairs at once {have} times slower, measured {SLOW[1 << 20]}")
    for sel in ("ompi", "mpich"):
        m = launch_meta(Path(target) / f"sweep-{sel}")
        cfg = m["simulation"]["config"]
        if cfg["smpi/coll-selector"] != sel or m["simulation"]["mpich_choices"] != (sel == "mpich"):
            bad.append(f"{sel}: metadata says selector {cfg['smpi/coll-selector']}, "
                       f"mpich_choices {m['simulation']['mpich_choices']}")
        if cfg["network/model"] != "SMPI":
            bad.append(f"{sel}: network model {cfg['network/model']}, not the platform's SMPI")
    return report("sim.node-platform", bad, "the platform gives its ping-pong, its per-call costs and "
                  "its concurrent ping-pong's slow-down back")


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
