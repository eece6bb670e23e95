#!/usr/bin/python3
"""Checks of sim.node-memory (tests/sim/node_memory.sh), on the runs in OUT:
  - differ: at 4 nodes x 8 cores, halfduplex-fc, whose receivers each take in every sender's
    4 MiB, must take at least DIFFER times as long on cori-memory as on the crossbar at every p/q;
  - agree: at 32 nodes x 1 core, every median must equal the crossbar's within AGREE (relative):
    one process per node never fills its node's memory;
  - the results of the 4 x 8 run say nodes 4 and ppn 8 (the simulation variant counts a node's
    cores as one node), not SimGrid's 32 hosts.

  check_node_memory.py OUT"""
import os
import sys

from summary import finish, read_summary

DIFFER = 1.5
AGREE = 1e-6


def medians(directory):
    return {(r["algorithm"], int(r["p"]), int(r["q"]), int(r["msg_bytes"])): float(r["median"])
            for r in read_summary(directory, "check_node_memory")}


def main(out):
    failed = 0
    mem, flat = medians(os.path.join(out, "memory-4x8")), medians(os.path.join(out, "crossbar-4x8"))
    fc = sorted(k for k in flat if k[0] == "halfduplex-fc")
    if not fc or any(k not in mem for k in fc):
        sys.exit(f"check_node_memory: halfduplex-fc missing: {sorted(flat)} vs {sorted(mem)}")
    for k in fc:
        ratio = mem[k] / flat[k]
        ok = ratio >= DIFFER
        failed += not ok
        print(f"check_node_memory: differ: 4 x 8, p/q {k[1]}/{k[2]}: halfduplex-fc {flat[k]:.4g} s crossbar, "
              f"{mem[k]:.4g} s cori-memory (x{ratio:.2f}, want >= x{DIFFER}): {'ok' if ok else 'FAIL'}")
    mem1, flat1 = medians(os.path.join(out, "memory-32x1")), medians(os.path.join(out, "crossbar-32x1"))
    if set(mem1) != set(flat1):
        sys.exit(f"check_node_memory: different points at 32 x 1: {sorted(mem1)} vs {sorted(flat1)}")
    worst = max(abs(mem1[k] / flat1[k] - 1) for k in flat1)
    ok = worst <= AGREE
    failed += not ok
    print(f"check_node_memory: agree: 32 x 1, {len(flat1)} medians, largest relative difference {worst:.2g} "
          f"(want <= {AGREE:g}): {'ok' if ok else 'FAIL'}")
    shape = {(r["nodes"], r["ppn"]) for r in read_summary(os.path.join(out, "memory-4x8"), "check_node_memory")}
    ok = shape == {("4", "8")}
    failed += not ok
    print(f"check_node_memory: the 4 x 8 run's results say nodes, ppn = {sorted(shape)} (want 4, 8): "
          f"{'ok' if ok else 'FAIL'}")
    finish("check_node_memory", failed)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
