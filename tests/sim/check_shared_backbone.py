#!/usr/bin/python3
"""sim.shared-backbone: gives the real runs under REAL/quick-np8/openmpi/ a known concurrent
ping-pong (SLOW), simulates them with `sim validate run --shared` (one platform per size) and once
on the same platform without the shared memory, and checks that the per-size simulations give
every point of the whole one once, that the sizes without a slow-down come back unchanged and
that the 1 MiB points, where 8 pairs at once were 3 times slower, come back slower; and that
the report compares every point and names a size whose simulation is missing.
  check_shared_backbone.py REAL OUT BUILD_DIR"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from collrepro.sim.platforms import platform as SP  # noqa: E402
from collrepro.sim.running import make_platform  # noqa: E402
from collrepro.sim.validation import study_shared as S  # noqa: E402
from collrepro.sim.validation import validate as V  # noqa: E402

EXP, MPI = "quick-np8", "openmpi"
# 8 pairs at once 3 times slower than one from 1 MiB: a backbone of 8/3 links, below the 4 links'
# worth that 8 Open MPI ranks moving data both ways (each core's link shared by its send and its
# receive) ask of it; 1.5 would be out of their reach and change nothing.
SLOW = {1 << 16: 1.0, 1 << 18: 1.0, 1 << 20: 3.0, 1 << 22: 3.0}


def inject(runs):
    """Every launch's metadata gains the concurrent ping-pong: 8 pairs SLOW[b] times one pair's
    transfer (its ping-pong's, the platform's latency at that size left out)."""
    metas = sorted(runs.glob("meta-L*.json"))
    pieces = SP.piecewise(SP.measurements([str(runs)], MPI)["pingpong"])
    for path in metas:
        meta = json.loads(path.read_text())
        rows = []
        for b, k in SLOW.items():
            lat = SP._piece_at(pieces, b)[1]
            one = SP.model_time(pieces, b)
            rows.append({"bytes": b, "pairs": 8, "one_pair_s": one, "all_pairs_s": lat + k * (one - lat),
                         "all_pairs_max_s": lat + k * (one - lat)})
        meta["concurrent_pingpong"] = rows
        path.write_text(json.dumps(meta))
    return len(metas)


def main(real, out, build):
    real, out = Path(real), Path(out)
    runs = real / EXP / MPI
    bad = []
    if inject(runs) < 1:
        bad.append(f"{runs}: no launch metadata")
    plain = out / "plain.xml"
    out.mkdir(parents=True, exist_ok=True)
    make_platform.main([str(runs), "--mpi", MPI, "--duplex", V.DUPLEX[MPI], "-o", str(plain)])
    times = {}
    if V._simulate_one(EXP, MPI, out / "sims" / EXP / MPI, plain, [], times, "plain", build):
        bad.append("the plain simulation failed")
    if S.simulate_shared(real, out, [EXP], build):
        bad.append("a per-size simulation failed")
    base = V.medians(out / "sims" / EXP / MPI).set_index(["collective", "shape", "msg_bytes", "algorithm"])
    shared = S.shared_medians(S.folder(out) / EXP / MPI).set_index(["collective", "shape", "msg_bytes", "algorithm"])
    if sorted(shared.index) != sorted(base.index) or shared.index.duplicated().any():
        bad.append(f"{len(shared)} points simulated per size, {len(base)} in one simulation")
    slower = 0
    for key, row in shared.iterrows():
        b, have, want = key[2], row["median_s"], base.loc[key, "median_s"]
        if b < 1 << 18 and abs(have - want) > 1e-6 * want:
            bad.append(f"{key}: {have:.6e} s with the shared memory, {want:.6e} s without; no slow-down at this size")
        if b == 1 << 20:
            if have < want * (1 - 1e-6):
                bad.append(f"{key}: {have:.6e} s with the shared memory, faster than {want:.6e} s without")
            slower += have > want * 1.01
    if not slower:
        bad.append("no 1 MiB point is slower with the shared memory")
    # the report: every size compared, and a size without its simulation named, not dropped silently
    points, missing = S.load(real, out)
    plain, _ = V.build(real, out / "sims")
    section = "\n".join(S.section(plain, V.summarize(plain), (points, missing)))
    if missing or len(points) != len(plain) or "| quick-np8 | openmpi | 1 MiB |" not in section:
        bad.append(f"the report: {len(points)} points for {len(plain)}, missing {missing}")
    for f in (S.folder(out) / EXP / MPI / str(1 << 20)).glob("summary-*"):
        f.unlink()
    _, missing = S.load(real, out)
    if missing != [f"{EXP}/{MPI}/{1 << 20}"]:
        bad.append(f"a size without its simulation: missing {missing}, want {EXP}/{MPI}/{1 << 20}")
    for line in bad:
        print(f"sim.shared-backbone: {line}", file=sys.stderr)
    print("sim.shared-backbone: " + ("FAILED" if bad else f"ok: {len(shared)} points, each on its size's platform; "
                                     f"{slower} of the 1 MiB points slower, the small sizes unchanged"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
