#!/usr/bin/python3
"""Check of sim.fast-path: two simulated runs of one config, the full path (simrun --fill-folded)
and the fast path, must hold the same points with the same simulated medians (the simulation is
deterministic, so equal to rounding), and their metadata must say which path each took. A third
run, the fast path cut into slices that ran side by side (simrun --jobs 2), must give the same
points and medians again, within the simulated tie (collrepro.sim.validation.ties): a slice starts without
the points before it, and SimGrid rounds every event's date to its surf/precision (1e-9 s), so a
different history can move a median by a few such steps (two fullduplex-allgatherv points here:
5e-10 and 7.5e-10 s).

sim.hugepages-shared uses the second form: runs of one config, sliced alike, whose buffers were
folded on huge or on 4 KiB pages, must all give the first run's medians.

  check_same_medians.py FULL_DIR FAST_DIR [SLICED_DIR]
  check_same_medians.py --alike DIR DIR [DIR ...]"""
import json
import os
import sys

from summary import read_summary

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from collrepro.sim.validation import ties  # noqa: E402

REL_TOLERANCE = 1e-9
KEY = ("point", "collective", "algorithm", "p", "q", "ka", "kb", "msg_bytes")


def medians(directory):
    """{point key: (median, n_kept)} of a run's summary-L0.csv."""
    rows = read_summary(directory, "check_same_medians")
    return {tuple(r.get(k, "") for k in KEY): (float(r["median"]), int(r["n_kept"])) for r in rows}


def filled(directory):
    with open(os.path.join(directory, "meta-L0.json")) as fh:
        return json.load(fh)["simulation"].get("folded_buffers_filled")


def main(full_dir, fast_dir, sliced_dir=None):
    if filled(full_dir) is not True or filled(fast_dir) is not False:
        sys.exit(f"check_same_medians: expected folded_buffers_filled true in {full_dir} and false in {fast_dir}, "
                 f"got {filled(full_dir)} and {filled(fast_dir)}")
    compare(medians(full_dir), medians(fast_dir), "full", "fast")
    if sliced_dir:
        compare(medians(fast_dir), medians(sliced_dir), "fast", "sliced", same=ties.tied)


def equal(a, b):
    return (abs(b - a) / a if a else abs(b)) <= REL_TOLERANCE


def compare(one, two, name_a, name_b, same=equal):
    """Exit naming every point whose medians the two runs do not have the same (`same`: equal to
    REL_TOLERANCE, or a simulated tie) or whose kept repetitions differ."""
    if set(one) != set(two):
        sys.exit(f"check_same_medians: different points: only {name_a} {sorted(set(one) - set(two))}, "
                 f"only {name_b} {sorted(set(two) - set(one))}")
    worst, worst_s, failed = 0.0, 0.0, []
    for key in sorted(one):
        (a, na), (b, nb) = one[key], two[key]
        worst = max(worst, abs(b - a) / a if a else abs(b))
        worst_s = max(worst_s, abs(b - a))
        if not same(a, b) or na != nb:
            failed.append(f"{key}: {name_a} {a!r} ({na} kept), {name_b} {b!r} ({nb} kept)")
    for line in failed:
        print(f"check_same_medians: FAIL {line}")
    if failed:
        sys.exit(f"check_same_medians: {name_a} and {name_b}: {len(failed)} of {len(one)} points differ")
    print(f"check_same_medians: {name_a} and {name_b}: {len(one)} points, same medians "
          f"(largest difference {worst:.1e} relative, {worst_s:.1e} s): passed")


def alike(first, *others):
    for other in others:
        compare(medians(first), medians(other), os.path.basename(first), os.path.basename(other))


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "--alike":
        alike(*sys.argv[2:])
    elif len(sys.argv) in (3, 4):
        main(*sys.argv[1:])
    else:
        sys.exit("\n".join(__doc__.splitlines()[-2:]))
