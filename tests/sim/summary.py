"""The rows of a simulated run's summaries, for the sim.* checks (tests/sim/check_*.py)."""
import csv
import glob
import gzip
import os
import sys


def read_summary(directory, who):
    """Every row of DIRECTORY's launch-0 summary (plain or .gz): summary-L0.csv, or the summary-L0-S<slice>.csv
    of a run cut into slices (simrun --jobs); exits naming `who` when there is none or no row."""
    paths = sorted(p for pattern in ("summary-L0.csv", "summary-L0-S*.csv")
                   for p in glob.glob(os.path.join(directory, pattern)) + glob.glob(os.path.join(directory, pattern + ".gz")))
    if not paths:
        sys.exit(f"{who}: no summary-L0*.csv in {directory} (the simulation did not finish)")
    rows = []
    for path in paths:  # a committed run's summaries are compressed (collrepro-py compact)
        with (gzip.open(path, "rt", newline="") if path.endswith(".gz") else open(path, newline="")) as fh:
            rows += list(csv.DictReader(fh))
    if not rows:
        sys.exit(f"{who}: {', '.join(paths)} hold no points")
    return rows


def launch_meta(directory):
    """Launch 0's metadata in DIRECTORY (meta-L0.json, or its .gz), read as sim platform reads it
    (the check scripts put python/ on the path before importing this)."""
    from pathlib import Path
    from collrepro.sim.platforms import platform as sim_platform
    return sim_platform._load_meta(str(next(Path(directory).glob("meta-L0.json*"))))


def finish(who, failed):
    """The last line of a check: exit naming the failed count, or print ok."""
    if failed:
        sys.exit(f"{who}: {failed} check(s) failed")
    print(f"{who}: ok")


def report(who, bad, claim):
    """The end of a check that gathers its failures: each on stderr, then one FAIL or ok line
    with the claim it checked; the exit code (1 or 0)."""
    for line in bad:
        print(f"{who}:", line, file=sys.stderr)
    print(f"{who}: {'FAIL' if bad else 'ok'}: {claim}")
    return 1 if bad else 0


def phase_times(directory, who):
    """{phase: [phase_s of every repetition]} from DIRECTORY's launch-0 phases file(s) (plain or
    .gz, sliced or not); exits naming `who` when there is none."""
    import gzip
    from pathlib import Path
    files = sorted(Path(directory).glob("phases-L0*.csv*"))
    if not files:
        sys.exit(f"{who}: no phases file in {directory}")
    times = {}
    for f in files:
        with (gzip.open(f, "rt") if f.suffix == ".gz" else open(f, newline="")) as fh:
            for r in csv.DictReader(fh):
                times.setdefault(r["phase"], []).append(float(r["phase_s"]))
    return times
