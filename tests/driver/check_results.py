#!/usr/bin/python3
"""Checks a collbench result directory against the results contract and a dry-run plan.

check_results.py DIR --plan PLAN.csv --reps N --launches L [--slices T] [--partial]
  - exact raw and summary headers, every line terminated, no *.tmp left
  - per launch (and slice): points = the plan's supported points (--partial: a subset),
    exactly N raw rows per point with rep 0..N-1, no duplicates, summary n = N,
    identity columns equal to the plan's, meta keys of the contract, complete flag
Column lists and required meta keys come from collrepro.contract (contract/contract.json).
Prints one line per problem and exits 1 when there is any.
"""
import argparse
import csv
import json
import math
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "python"))
from collrepro import contract as C  # noqa: E402

RAW = C.RAW_COLUMNS
IDENT = C.IDENTITY_COLUMNS
SUMMARY = C.SUMMARY_COLUMNS
META = list(C.META_REQUIRED)

problems = []


def problem(msg):
    problems.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def read_csv(path, header):
    with open(path, "rb") as f:
        data = f.read()
    if not data.endswith(b"\n"):
        problem(f"{path}: last line not terminated")
    rows = list(csv.reader(data.decode().splitlines()))
    if rows[0] != header:
        problem(f"{path}: header {rows[0]} != contract {header}")
    out = []
    for i, r in enumerate(rows[1:], start=2):
        if len(r) != len(header):
            problem(f"{path}:{i}: {len(r)} fields, expected {len(header)}")
        out.append(dict(zip(header, r)))
    return out


def check_tails(sfx, point, summary_row, raw_rows):
    """The summary's tail percentiles against numpy's over the point's valid raw times."""
    times = [float(r["time_s"]) for r in raw_rows if r["valid"] == "1"]
    for column in (c for c in SUMMARY if re.fullmatch(r"p[0-9]+", c)):
        text = summary_row[column]
        got = math.nan if text in ("", "nan") else float(text)
        want = float(np.percentile(times, int(column[1:]))) if times else math.nan
        if not (math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-15) or (math.isnan(got) and math.isnan(want))):
            problem(f"{sfx}: point {point}: {column} = {text}, the raw rows give {want!r}")


def check_clock_columns(sfx, point, summary_row):
    """Residual columns: filled by the global-clock methods, empty for the barrier methods."""
    cols = ("clock_residual_s", "clock_residual_err_s", "resynced")
    if summary_row["sync"] in ("window", "round-time"):
        for c in cols:
            if summary_row[c] == "" or float(summary_row[c]) < 0:
                problem(f"{sfx}: point {point}: {c} = {summary_row[c]!r} under sync {summary_row['sync']}")
        if summary_row["resynced"] not in ("0", "1"):
            problem(f"{sfx}: point {point}: resynced = {summary_row['resynced']!r}")
    elif any(summary_row[c] != "" for c in cols + ("clock_drift_residual",)):
        problem(f"{sfx}: point {point}: clock residual columns filled under sync {summary_row['sync']}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--plan", required=True)
    ap.add_argument("--reps", type=int, required=True)
    ap.add_argument("--launches", type=int, default=1)
    ap.add_argument("--slices", type=int, default=0, help="launch L is split in T slices (files -S<S>)")
    ap.add_argument("--partial", action="store_true", help="points may be missing (interrupted run)")
    ap.add_argument("--min-points", type=int, default=0)
    a = ap.parse_args()

    with open(a.plan) as f:
        reader = csv.DictReader(f)
        plan = {int(r["point"]): r for r in reader if r["supported"] == "1"}
    # The identity columns the plan knows (its shape columns among them), except the point id.
    plan_keys = [c for c in IDENT if c in (reader.fieldnames or []) and c != "point"]
    tmp = [n for n in os.listdir(a.dir) if n.endswith(C.TMP_SUFFIX)]
    if tmp:
        problem(f"{a.dir}: temporary files left: {tmp}")
    total_points = 0
    for launch in range(a.launches):
        slices = [None] if not a.slices else range(a.slices)
        seen = {}
        for slc in slices:
            sfx = f"L{launch}" + ("" if slc is None else f"-S{slc}")
            raw = read_csv(os.path.join(a.dir, C.file_name("raw", launch, slc)), RAW)
            summary = read_csv(os.path.join(a.dir, C.file_name("summary", launch, slc)), SUMMARY)
            with open(os.path.join(a.dir, C.file_name("meta", launch, slc))) as f:
                meta = json.load(f)
            for k in META:
                if k not in meta:
                    problem(f"meta-{sfx}.json: missing key {k}")
            for p in C.meta_problems(meta):  # every promised key written, none unpromised
                problem(f"meta-{sfx}.json: {p}")
            if meta.get("contract_version") != C.VERSION:
                problem(f"meta-{sfx}.json: contract_version {meta.get('contract_version')} != {C.VERSION}")
            if meta.get("launch") != launch:
                problem(f"meta-{sfx}.json: launch {meta.get('launch')} != {launch}")
            if meta.get("complete") is not (not a.partial):
                problem(f"meta-{sfx}.json: complete = {meta.get('complete')}")
            by_point = {}
            for r in raw:
                by_point.setdefault(int(r["point"]), []).append(r)
                if int(r["launch"]) != launch:
                    problem(f"raw-{sfx}: launch column {r['launch']}")
            for s in summary:
                p = int(s["point"])
                if p in seen:
                    problem(f"launch {launch}: point {p} in {seen[p]} and {sfx}")
                seen[p] = sfx
                reps = sorted(int(r["rep"]) for r in by_point.get(p, []))
                if reps != list(range(int(s["n"]) if s["sync"] == "round-time" else a.reps)):
                    problem(f"{sfx}: point {p}: reps {reps[:5]}... ({len(reps)}), want 0..{a.reps - 1}")
                if int(s["n"]) != a.reps and not (s["sync"] == "round-time" and 0 < int(s["n"]) <= a.reps):
                    problem(f"{sfx}: point {p}: n = {s['n']}")
                if int(s["n_kept"]) > int(s["n"]) - int(s["n_invalid"]):
                    problem(f"{sfx}: point {p}: n_kept > valid repetitions")
                invalid = sum(1 for r in by_point.get(p, []) if r["valid"] == "0")
                if invalid != int(s["n_invalid"]):
                    problem(f"{sfx}: point {p}: n_invalid {s['n_invalid']} != invalid raw rows {invalid}")
                check_tails(sfx, p, s, by_point.get(p, []))
                check_clock_columns(sfx, p, s)
                if p not in plan:
                    problem(f"{sfx}: point {p} is not in the plan")
                    continue
                for k in plan_keys:
                    if s[k] != plan[p][k]:
                        problem(f"{sfx}: point {p}: {k} = {s[k]!r}, plan says {plan[p][k]!r}")
                for r in by_point.get(p, []):
                    if any(r[c] != s[c] for c in IDENT):
                        problem(f"{sfx}: point {p}: raw and summary identity columns differ")
                        break
            extra = set(by_point) - {int(s["point"]) for s in summary}
            if extra:
                problem(f"{sfx}: raw rows of points without a summary row: {sorted(extra)}")
        if not a.partial and set(seen) != set(plan):
            problem(f"launch {launch}: points {sorted(set(plan) - set(seen))[:10]} missing")
        total_points += len(seen)
    if total_points < a.min_points:
        problem(f"only {total_points} points, expected at least {a.min_points}")
    print(f"checked {a.dir}: {a.launches} launch(es), {total_points} point(s), {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
