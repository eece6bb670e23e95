"""The rows of a simulated run's summary-L0.csv, for the sim.* checks (tests/sim/check_*.py)."""
import csv
import os
import sys


def read_summary(directory, who):
    """Every row of DIRECTORY/summary-L0.csv; exits naming `who` when the file is missing or empty."""
    path = os.path.join(directory, "summary-L0.csv")
    if not os.path.exists(path):
        sys.exit(f"{who}: {path} missing (the simulation did not finish)")
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        sys.exit(f"{who}: {path} has no points")
    return rows
