#!/usr/bin/python3
"""Check of sim.exscan: fullduplex-allgatherv's offsets phase (one MPI_Allreduce and one
MPI_Exscan of the block sizes) costs at least MIN_RATIO times as much under the ompi selector
as under mpich. On the larger group (50 processes) the simulated MPICH's exscan takes
ceil(log2 50) = 6 rounds of one exchange, Open MPI's chain 49 messages one after another; each
library's small Allreduce adds about as many rounds again as MPICH's exscan, so the expected
ratio is about (49 + 8) / (6 + 8), 4 (measured 4.23 on the crossbar). SimGrid's own exscan is
the same under both selectors (each rank sends to every higher rank, all at once), so only the
two Allreduces differ: x1.36 with the wrapper switched off. Both runs must also validate.

  check_exscan.py MPICH_DIR OMPI_DIR"""
import statistics
import sys

from summary import phase_times, read_summary

MIN_RATIO = 2.5


def offsets_phase(directory):
    rows = read_summary(directory, "check_exscan")
    if not rows or any(int(r["n_invalid"]) for r in rows):
        sys.exit(f"check_exscan: no points, or invalid results, in {directory}")
    times = phase_times(directory, "check_exscan").get("offsets")
    if not times:
        sys.exit(f"check_exscan: no offsets phase in {directory}")
    return statistics.median(times)


def main(mpich_dir, ompi_dir):
    mpich, ompi = offsets_phase(mpich_dir), offsets_phase(ompi_dir)
    ratio = ompi / mpich
    print(f"check_exscan: offsets phase {mpich * 1e6:.2f} us (mpich: recursive doubling), "
          f"{ompi * 1e6:.2f} us (ompi: chain), x{ratio:.2f} (at least {MIN_RATIO})")
    if ratio < MIN_RATIO:
        sys.exit("check_exscan: the two selectors' exscans cost about the same: not the libraries' algorithms")
    print("check_exscan: passed")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.splitlines()[-1].strip())
    main(sys.argv[1], sys.argv[2])
