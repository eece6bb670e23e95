#!/usr/bin/python3
"""Check of sim.wide.

Part 1: SIMGRID_DIR and SHIM_DIR ran tests/sim/wide.yaml with SimGrid's broadcast and with the
shim's scatter + ring broadcast for every broadcast of 12 KiB or more (their metadata must say
so). Both validated every point (no invalid repetition); their medians must be equal to rounding.

Part 2: BIG_DIR ran tests/sim/wide_big.yaml: each algorithm at 64 MiB and 512 MiB per block.
Both sizes must be there, and the time must grow 8 times, within 1%: transfers of 3 GiB cost
per byte what transfers of 384 MiB do (latencies are microseconds against tenths of a second).

  check_wide.py SIMGRID_DIR SHIM_DIR BIG_DIR"""
import json
import os
import sys

from check_same_medians import compare, medians
from summary import read_summary

SHIM_FROM = 12288
DEFAULT_FROM = 2 ** 31
SCALE, SCALE_TOLERANCE = 8.0, 0.01


def wide_from(directory):
    with open(os.path.join(directory, "meta-L0.json")) as fh:
        return json.load(fh)["simulation"].get("wide_bcast_from")


def check_validated(directory):
    rows = read_summary(directory, "check_wide")
    bad = [r["point"] for r in rows if int(r["n_invalid"]) or not int(r["n_kept"])]
    if bad:
        sys.exit(f"check_wide: points {bad} of {directory} have invalid or no repetitions")


def check_equal_broadcasts(simgrid_dir, shim_dir):
    if wide_from(simgrid_dir) != DEFAULT_FROM or wide_from(shim_dir) != SHIM_FROM:
        sys.exit(f"check_wide: expected wide_bcast_from {DEFAULT_FROM} in {simgrid_dir} and {SHIM_FROM} in "
                 f"{shim_dir}, got {wide_from(simgrid_dir)} and {wide_from(shim_dir)}")
    check_validated(simgrid_dir)
    check_validated(shim_dir)
    compare(medians(simgrid_dir), medians(shim_dir), "SimGrid's broadcast", "the shim's broadcast")


def check_scaling(big_dir):
    rows = read_summary(big_dir, "check_wide")
    times = {(r["algorithm"], int(r["msg_bytes"])): float(r["median"]) for r in rows if int(r["n_kept"])}
    small, large = 64 << 20, 512 << 20
    failed = False
    for algorithm in ("halfduplex-fc", "root-gathering"):
        if (algorithm, small) not in times or (algorithm, large) not in times:
            sys.exit(f"check_wide: {algorithm} lacks a size in {big_dir}: has {sorted(times)}")
        ratio = times[(algorithm, large)] / times[(algorithm, small)]
        ok = abs(ratio / SCALE - 1) <= SCALE_TOLERANCE
        failed |= not ok
        print(f"check_wide: {algorithm}: {times[(algorithm, small)]:.4f} s at 64 MiB, "
              f"{times[(algorithm, large)]:.4f} s at 512 MiB: x{ratio:.3f} ({'ok' if ok else 'FAIL'}, want x{SCALE:g})")
    if failed:
        sys.exit("check_wide: a transfer over 2 GiB does not cost what a smaller one does per byte")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    check_equal_broadcasts(sys.argv[1], sys.argv[2])
    check_scaling(sys.argv[3])
    print("check_wide: passed")
