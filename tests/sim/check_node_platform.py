"""sim.node-platform's two halves: `make MEASURED PLATFORM` writes a known ping-pong as a launch's
metadata and derives a platform from it; `check MEASURED OUT` compares the simulated ping-pongs
with it (within 3 %) and checks each selector's metadata."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from collrepro.sim import platform as sim_platform  # noqa: E402
from summary import report  # noqa: E402

SIZES = [1, 1024, 65536, 1 << 20]


def known(b):
    return 1.5e-6 + b / 5e9 if b <= 65536 else 6e-6 + b / 9e9


def meta(d):
    return sim_platform._load_meta(str(next(Path(d).glob("meta-L0.json*"))))  # either form


def main(action, measured, target):
    measured = Path(measured)
    if action == "make":
        measured.mkdir(parents=True)
        (measured / "meta-L0.json").write_text(json.dumps({
            "mpi_impl": "openmpi", "hwloc": {"cores": 4},
            "pingpong": [{"bytes": b, "time_s": known(b)} for b in SIZES]}))
        return sim_platform.main([str(measured), "--name", "test-node", "-o", target])
    bad = []
    for s in meta(Path(target) / "pp")["pingpong"]:
        want = known(s["bytes"])
        if abs(s["time_s"] - want) > 0.03 * want:
            bad.append(f"{s['bytes']} B: simulated {s['time_s']:.3e} s, measured {want:.3e} s")
    for sel in ("ompi", "mpich"):
        m = meta(Path(target) / f"sweep-{sel}")
        cfg = m["simulation"]["config"]
        if cfg["smpi/coll-selector"] != sel or m["simulation"]["mpich_choices"] != (sel == "mpich"):
            bad.append(f"{sel}: metadata says selector {cfg['smpi/coll-selector']}, "
                       f"mpich_choices {m['simulation']['mpich_choices']}")
        if cfg["network/model"] != "SMPI":
            bad.append(f"{sel}: network model {cfg['network/model']}, not the platform's SMPI")
    return report("sim.node-platform", bad, "the platform gives its ping-pong back (within 3 %)")


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
