#!/usr/bin/python3
"""Checks of sim.cori-shape: root-gathering / halfduplex-fc at the largest size, per p/q, on the
adaptive Cori model must lie within 15% of the same ratio on the flat crossbar (the papers'
contention-free model); the run's metadata must record the groups, chassis and routers occupied.

  check_cori_shape.py CROSSBAR_DIR ADAPTIVE_DIR [OTHER_DIR ...]   (others are only printed)"""
import json
import os
import sys

from summary import read_summary

TOLERANCE = 0.15


def ratios(directory):
    """{(p, q): T(root-gathering) / T(halfduplex-fc)} at the set's largest size (medians)."""
    rows = read_summary(directory, "check_cori_shape")
    largest = max(int(r["msg_bytes"]) for r in rows)
    med = {(int(r["p"]), int(r["q"]), r["algorithm"]): float(r["median"]) for r in rows if int(r["msg_bytes"]) == largest}
    shapes = sorted({(p, q) for p, q, _ in med})
    missing = [s for s in shapes for a in ("root-gathering", "halfduplex-fc") if (s + (a,)) not in med]
    if missing or not shapes:
        sys.exit(f"check_cori_shape: {directory}: no root-gathering/halfduplex-fc pair at {largest} B for {missing or 'any p/q'}")
    return largest, {s: med[s + ("root-gathering",)] / med[s + ("halfduplex-fc",)] for s in shapes}


def placement(directory):
    with open(os.path.join(directory, "meta-L0.json")) as fh:
        return json.load(fh)["simulation"]["placement"]


def main(dirs):
    (size, flat), (_, adaptive) = ratios(dirs[0]), ratios(dirs[1])
    others = [(d, ratios(d)[1]) for d in dirs[2:]]
    if set(flat) != set(adaptive):
        sys.exit(f"check_cori_shape: different p/q sets: {sorted(flat)} vs {sorted(adaptive)}")
    failed = 0
    for s in sorted(flat):
        off = adaptive[s] / flat[s] - 1
        extra = "".join(f", {os.path.basename(d.rstrip('/'))} {r[s]:.2f}" for d, r in others if s in r)
        verdict = "ok" if abs(off) <= TOLERANCE else "FAIL"
        failed += verdict == "FAIL"
        print(f"check_cori_shape: p/q {s[0]}/{s[1]} at {size} B: root-gathering/halfduplex-fc crossbar {flat[s]:.2f}, "
              f"adaptive Cori {adaptive[s]:.2f} ({off:+.1%}){extra}: {verdict}")
    where = placement(dirs[1])
    if "occupies" not in where:
        sys.exit(f"check_cori_shape: the adaptive run's placement does not say what it occupies: {where!r}")
    print(f"check_cori_shape: placement recorded: {where}")
    if failed:
        sys.exit(f"check_cori_shape: {failed} p/q off the crossbar's ratio by more than {TOLERANCE:.0%}")
    print(f"check_cori_shape: {len(flat) + 1} passed, 0 failed")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__.splitlines()[-1].strip())
    main(sys.argv[1:])
