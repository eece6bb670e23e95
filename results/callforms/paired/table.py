#!/usr/bin/python3
"""The table of results/callforms/README.md ("The forms side by side, repetition by repetition")
from the launches here (run.sh): per library and size, each form's ratio to halfduplex-fc's
blocking call (the median of the launches' per-repetition medians, and their range), and the
launches' verdicts: slower or faster where the launch's interval (distribution-free, Bonferroni
over the launch's comparisons: the `level` column) excludes 1, else a tie. The library's own
persistent transfer against its blocking one (start-wait / send-recv) is the floor beneath, and
startall-waitall / start-wait what a count of one costs through the `all` calls.
    results/callforms/paired/table.py"""
import csv
import glob
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARIES = ["openmpi-4.1.4", "mpich-4.0.2", "openmpi-5.0.7"]
SIZES = {"65536": "64 KiB", "262144": "256 KiB", "1048576": "1 MiB"}


def launches(library):
    for path in sorted(glob.glob(os.path.join(HERE, library, "L*.csv"))):
        with open(path) as f:
            yield list(csv.DictReader(line for line in f if not line.startswith("#")))


def cell(rows):
    ratios = [float(r["ratio_to_blocking"]) for r in rows]
    slower = sum(float(r["ratio_lo"]) > 1 for r in rows)
    faster = sum(float(r["ratio_hi"]) < 1 for r in rows)
    return (f"{statistics.median(ratios):.4f} ({min(ratios):.4f}-{max(ratios):.4f}); "
            f"{faster} faster, {len(rows) - slower - faster} tied, {slower} slower")


def floor(rows_by_launch, size, over="start-wait", under="send-recv"):
    """The median over launches of `over`'s median time over `under`'s."""
    out = []
    for rows in rows_by_launch:
        by = {r["candidate"]: float(r["median_s"]) for r in rows if r["bytes"] == size}
        if over not in by or under not in by:
            return "-"
        out.append(by[over] / by[under])
    return f"{statistics.median(out):.4f}"


def main():
    print("| library | size | launches | persistent / blocking | nonblocking / blocking | library's start-wait / send-recv "
          "(medians) | library's startall-waitall / start-wait (medians) |")
    print("|---|---|---|---|---|---|---|")
    for library in LIBRARIES:
        runs = list(launches(library))
        if not runs:
            continue
        level = float(runs[0][0]["level"])
        for size, label in SIZES.items():
            def pick(candidate):
                return [r for rows in runs for r in rows if r["bytes"] == size and r["candidate"] == candidate]
            print(f"| {library} | {label} | {len(runs)} | {cell(pick('halfduplex-fc/persistent'))} | "
                  f"{cell(pick('halfduplex-fc/nonblocking'))} | {floor(runs, size)} | "
                  f"{floor(runs, size, 'startall-waitall', 'start-wait')} |")
    print(f"\nIntervals at level {level:.4f} each (Bonferroni: 95 % over a launch's comparisons).")


if __name__ == "__main__":
    main()
