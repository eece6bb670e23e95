#!/usr/bin/python3
"""Check of sim.node-memory-routes (tests/sim/node_memory_routes.sh): the run on the node-memory
platform routed through one switch and the run on the pair-routed one must hold the same points
(algorithm, p, q, size), every median within TOLERANCE (relative) of the other's, and both runs'
results must say 8 nodes x 4 processes.

  check_node_memory_routes.py SWITCH_DIR PAIRS_DIR"""
import sys

from summary import finish, read_summary

TOLERANCE = 0.01
SHAPE = ("8", "4")


def medians(directory):
    rows = read_summary(directory, "check_node_memory_routes")
    shape = {(r["nodes"], r["ppn"]) for r in rows}
    if shape != {SHAPE}:
        sys.exit(f"check_node_memory_routes: {directory}: the results say nodes, ppn = {sorted(shape)}, "
                 f"want {SHAPE}")
    return {(r["algorithm"], int(r["p"]), int(r["q"]), int(r["msg_bytes"])): float(r["median"]) for r in rows}


def main(switch_dir, pairs_dir):
    switch, pairs = medians(switch_dir), medians(pairs_dir)
    if set(switch) != set(pairs):
        sys.exit(f"check_node_memory_routes: different points: only switch {sorted(set(switch) - set(pairs))}, "
                 f"only pairs {sorted(set(pairs) - set(switch))}")
    failed, worst = 0, 0.0
    for key in sorted(pairs):
        off = abs(switch[key] / pairs[key] - 1)
        worst = max(worst, off)
        if off > TOLERANCE:
            failed += 1
            print(f"check_node_memory_routes: FAIL {key}: switch {switch[key]:.6g} s, pairs {pairs[key]:.6g} s "
                  f"({off:.2%} apart, want <= {TOLERANCE:.0%})")
    algorithms = sorted({k[0] for k in pairs})
    print(f"check_node_memory_routes: {len(pairs)} medians ({', '.join(algorithms)}), largest relative "
          f"difference {worst:.2g} (want <= {TOLERANCE:g})")
    finish("check_node_memory_routes", failed)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.splitlines()[-1].strip())
    main(*sys.argv[1:])
