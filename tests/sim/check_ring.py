#!/usr/bin/python3
"""Check of sim.allgather-ring: every point of the run with 16 processes per node costs at most
MAX_RATIO times the same point with one per node. A ring over neighbouring ranks leaves a node
once per step, so more processes per node cost about the same; SimGrid's shift would send all
16 of a node's messages through its link in 48 of 63 steps (about 12 times slower).

  check_ring.py ONE_PER_NODE_DIR SIXTEEN_PER_NODE_DIR"""
import sys

from summary import read_summary

MAX_RATIO = 2.0
KEY = ("collective", "algorithm", "msg_bytes")


def medians(directory):
    rows = read_summary(directory, "check_ring")
    if any(int(r["n_invalid"]) for r in rows):
        sys.exit(f"check_ring: invalid results in {directory}")
    return {tuple(r[k] for k in KEY): float(r["median"]) for r in rows}


def main(one_dir, many_dir):
    one, many = medians(one_dir), medians(many_dir)
    if set(one) != set(many) or not one:
        sys.exit(f"check_ring: the two runs hold different points: {sorted(one)} and {sorted(many)}")
    failed = False
    for key in sorted(one):
        ratio = many[key] / one[key]
        verdict = "ok" if ratio <= MAX_RATIO else "FAIL"
        failed |= verdict == "FAIL"
        print(f"check_ring: {'/'.join(key)}: {one[key] * 1e3:.3f} ms at 1 per node, {many[key] * 1e3:.3f} ms at 16 "
              f"per node, x{ratio:.2f} (at most {MAX_RATIO}): {verdict}")
    if failed:
        sys.exit("check_ring: MPI_Allgather costs far more with 16 processes per node: not a ring over neighbours")
    print("check_ring: passed")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.splitlines()[-1].strip())
    main(sys.argv[1], sys.argv[2])
