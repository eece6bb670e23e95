#!/usr/bin/python3
"""Check of sim.ompi-bcast: both runs validated every point, their metadata say the broadcasts
were Open MPI's, and in the chain run root gathering's bcast phase costs at least MIN_RATIO times
its root exchange. Open MPI 4.1.4 broadcasts 7 x 256 KiB over 7 processes as a chain of whole
messages: 6 hops of 1.75 MiB one after another, about 6 times the roots' one exchange of 1.75 MiB
each way (measured: x6.00). SimGrid's own ompi selector runs a segmented pipeline there (x1.35,
measured with the shim left out) and the mpich selector a scatter + ring (x1.75).

  check_ompi_bcast.py TREES_DIR CHAIN_DIR"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from summary import launch_meta, phase_times, read_summary  # noqa: E402

MIN_RATIO = 4.0


def check_run(directory):
    rows = read_summary(directory, "check_ompi_bcast")
    bad = [r for r in rows if int(r["n_invalid"])]
    if bad:
        sys.exit(f"check_ompi_bcast: {len(bad)} invalid point(s) in {directory}")
    bcast = launch_meta(directory).get("simulation", {}).get("bcast", "")
    if not str(bcast).startswith("ompi"):
        sys.exit(f"check_ompi_bcast: {directory}: the metadata say the broadcast was {bcast!r}, not Open MPI's")
    return len(rows)


def phase_medians(directory):
    return {phase: statistics.median(t) for phase, t in phase_times(directory, "check_ompi_bcast").items()}


def main(trees_dir, chain_dir):
    points = check_run(trees_dir) + check_run(chain_dir)
    phases = phase_medians(chain_dir)
    if "bcast" not in phases or "root-exchange" not in phases:
        sys.exit(f"check_ompi_bcast: no bcast or root-exchange phase in {chain_dir}")
    ratio = phases["bcast"] / phases["root-exchange"]
    print(f"check_ompi_bcast: {points} points validated; chain run: bcast {phases['bcast'] * 1e6:.1f} us, "
          f"root exchange {phases['root-exchange'] * 1e6:.1f} us, x{ratio:.2f} (at least {MIN_RATIO})")
    if ratio < MIN_RATIO:
        sys.exit("check_ompi_bcast: the broadcast costs little more than one message: not Open MPI's whole-message chain")
    print("check_ompi_bcast: passed")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
