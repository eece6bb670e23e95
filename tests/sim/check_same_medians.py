#!/usr/bin/python3
"""Check of sim.fast-path: two simulated runs of one config, the full path (simrun --fill-folded)
and the fast path, must hold the same points with the same simulated medians (the simulation is
deterministic, so equal to rounding), and their metadata must say which path each took.

  check_same_medians.py FULL_DIR FAST_DIR"""
import json
import os
import sys

from summary import read_summary

REL_TOLERANCE = 1e-9
KEY = ("point", "collective", "algorithm", "p", "q", "ka", "kb", "msg_bytes")


def medians(directory):
    """{point key: (median, n_kept)} of a run's summary-L0.csv."""
    rows = read_summary(directory, "check_same_medians")
    return {tuple(r.get(k, "") for k in KEY): (float(r["median"]), int(r["n_kept"])) for r in rows}


def filled(directory):
    with open(os.path.join(directory, "meta-L0.json")) as fh:
        return json.load(fh)["simulation"].get("folded_buffers_filled")


def main(full_dir, fast_dir):
    if filled(full_dir) is not True or filled(fast_dir) is not False:
        sys.exit(f"check_same_medians: expected folded_buffers_filled true in {full_dir} and false in {fast_dir}, "
                 f"got {filled(full_dir)} and {filled(fast_dir)}")
    full, fast = medians(full_dir), medians(fast_dir)
    if set(full) != set(fast):
        sys.exit(f"check_same_medians: different points: only full {sorted(set(full) - set(fast))}, "
                 f"only fast {sorted(set(fast) - set(full))}")
    worst, failed = 0.0, []
    for key in sorted(full):
        (a, na), (b, nb) = full[key], fast[key]
        off = abs(b - a) / a if a else abs(b)
        worst = max(worst, off)
        if off > REL_TOLERANCE or na != nb:
            failed.append(f"{key}: full {a!r} ({na} kept), fast {b!r} ({nb} kept)")
    for line in failed:
        print(f"check_same_medians: FAIL {line}")
    if failed:
        sys.exit(f"check_same_medians: {len(failed)} of {len(full)} points differ")
    print(f"check_same_medians: {len(full)} points, same medians (largest relative difference {worst:.1e}): passed")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.splitlines()[-1].strip())
    main(sys.argv[1], sys.argv[2])
