"""sim.cluster-platform's two halves: `make RUNS PLATFORM` writes known `cluster` records as two
launches' metadata and derives the cluster's platform from them; `check RUNS OUT` compares the
ping-pong the 4-rank sweep measured between ranks 0 and 1 (crc-n0 and crc-n1) in simulation with
what the records predict: the one-byte latency plus bytes at 0.95 of 100 Mbit/s (the bandwidth
and the large sizes within 3 %, the one-byte time within 10 %)."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from collrepro.sim.running import make_platform  # noqa: E402
from summary import launch_meta, report  # noqa: E402

RATE, RATIO, LATENCY = 100e6, 0.95, 20e-6
SMALL, LARGE = 65536, 1 << 20


def record():
    nodes = [{"name": f"crc-n{i}", "rate_bit_s": RATE if i < 3 else RATE / 2} for i in range(4)]
    return {"nodes": nodes, "cores_per_node": 1, "link_bit_s": RATE,
            "fidelity": {"ratio": RATIO, "latency_s": LATENCY, "bandwidth_bit_s": RATE * RATIO}}


def predicted(b):
    return LATENCY + b * 8 / (RATE * RATIO)


def main(action, runs, target):
    runs = Path(runs)
    if action == "make":
        runs.mkdir(parents=True)
        for launch in (0, 1):
            (runs / f"meta-L{launch}.json").write_text(json.dumps({"mpi_impl": "openmpi", "nprocs": 4, "nodes": 4,
                                                                    "cluster": record()}))
        return make_platform.main([str(runs), "--from-cluster", "-o", target])
    bad = []
    m = launch_meta(Path(target) / "sweep")
    t = {s["bytes"]: s["time_s"] for s in m["pingpong"]}
    # the bandwidth as the fidelity check reads it (the slope from 64 KiB to 1 MiB), within 3 %;
    # the 1-byte latency within 10 % (SimGrid adds about 1.4 us to it here)
    bw = (LARGE - SMALL) * 8 / (t[LARGE] - t[SMALL])
    if abs(bw - RATE * RATIO) > 0.03 * RATE * RATIO:
        bad.append(f"bandwidth {bw / 1e6:.2f} Mbit/s simulated, the records say {RATE * RATIO / 1e6:.2f}")
    for b in (1, SMALL, LARGE):
        want = predicted(b)
        if abs(t[b] - want) > (0.10 if b == 1 else 0.03) * want:
            bad.append(f"{b} B: simulated {t[b]:.4e} s, the records predict {want:.4e} s")
    if m["simulation"]["config"]["network/model"] != "CM02":
        bad.append(f"network model {m['simulation']['config']['network/model']}, not the platform's CM02")
    if m.get("nodes") != 4:
        bad.append(f"the sweep's metadata counts {m.get('nodes')} nodes, not 4 (one rank per host)")
    return report("sim.cluster-platform", bad, "the cluster's platform gives its link back (within 3 %)")


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
