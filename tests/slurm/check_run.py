#!/usr/bin/python3
"""Independent check of a collslurm results directory (used by tests/slurm/e2e.sh).

  check_run.py DIR --plan PLAN.csv --launches L --slices S --np N --reps R --job JOB [--job T=JOB ...]

PLAN.csv is collbench's own `--dry-run --format csv` output. Checks, without collslurm's code:
- the files are exactly raw/summary/meta-L<l>[-S<s>] for every launch l and slice s, no others;
- every (point, launch) pair of the plan is in the summaries exactly once, with the plan's
  algorithm and message size, and in the slice that collbench's slicing rule gives it;
- every pair has exactly R raw repetitions 0..R-1;
- every meta is complete, ran N processes, and records the Slurm array job (JOB, or T=JOB for
  task T) and the array task id launch * S + slice.
Prints one line per problem and exits 1 if there is any. File names and the slice rule come from
collrepro.contract (one implementation per language; contract/golden/slice.json checks the Python
one against collbench's).
"""

import argparse
import csv
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from collrepro import contract as C  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--plan", required=True)
    ap.add_argument("--launches", type=int, required=True)
    ap.add_argument("--slices", type=int, required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--reps", type=int, required=True)
    ap.add_argument("--job", action="append", default=[], help="JOB, or TASK=JOB")
    a = ap.parse_args()
    d = Path(a.dir)
    problems = []
    plan = {int(r["point"]): r for r in csv.DictReader(open(a.plan)) if r["point"] != ""}
    n = len(plan)
    if sorted(plan) != list(range(n)) or n == 0:
        problems.append(f"plan point ids are not 0..{n - 1}")
    default_job, task_job = None, {}
    for j in a.job:
        if "=" in j:
            t, job = j.split("=", 1)
            task_job[int(t)] = job
        else:
            default_job = j

    def slice_of(point):  # the contract's slice rule (its one Python implementation)
        return C.slice_of(point, n, a.slices)

    slc_of = lambda s: s if a.slices > 1 else None  # noqa: E731  (one slice: no -S part)
    # The optional kinds (the phases file, written only with timing.phases) are not expected here.
    required = [k for k, spec in C.FILE_KINDS.items() if not spec.get("optional")]
    want = {C.file_name(k, l, slc_of(s)) for l in range(a.launches) for s in range(a.slices) for k in required}
    have = {p.name for k in C.FILE_KINDS for p in d.glob(f"{k}-*")}
    for name in sorted(want - have):
        problems.append(f"missing file {name}")
    for name in sorted(have - want):
        problems.append(f"unexpected file {name}")

    seen = {}
    reps = {}
    for l in range(a.launches):
        for s in range(a.slices):
            f = d / C.file_name("summary", l, slc_of(s))
            if f.is_file():
                for r in csv.DictReader(open(f)):
                    key = (int(r["point"]), int(r["launch"]))
                    seen[key] = seen.get(key, 0) + 1
                    p = plan.get(key[0])
                    if key[1] != l:
                        problems.append(f"{f.name}: launch {key[1]}")
                    if p is None:
                        problems.append(f"{f.name}: point {key[0]} is not in the plan")
                        continue
                    if (r["algorithm"], r["msg_bytes"]) != (p["algorithm"], p["msg_bytes"]):
                        problems.append(f"{f.name}: point {key[0]} is {r['algorithm']}/{r['msg_bytes']}, "
                                        f"the plan says {p['algorithm']}/{p['msg_bytes']}")
                    if slice_of(key[0]) != (s if a.slices > 1 else 0):
                        problems.append(f"{f.name}: point {key[0]} belongs to slice {slice_of(key[0])}")
            f = d / C.file_name("raw", l, slc_of(s))
            if f.is_file():
                for r in csv.DictReader(open(f)):
                    reps.setdefault((int(r["point"]), int(r["launch"])), []).append(int(r["rep"]))
            f = d / C.file_name("meta", l, slc_of(s))
            if f.is_file():
                m = json.loads(f.read_text())
                task = l * a.slices + s
                if m.get("complete") is not True:
                    problems.append(f"{f.name}: not complete")
                if m.get("nprocs") != a.np:
                    problems.append(f"{f.name}: nprocs {m.get('nprocs')} != {a.np}")
                slurm = m.get("slurm") or {}
                job = task_job.get(task, default_job)
                if job is not None and str(slurm.get("job_id")) != str(job):
                    problems.append(f"{f.name}: slurm.job_id {slurm.get('job_id')} != {job}")
                if str(slurm.get("array_task_id")) != str(task):
                    problems.append(f"{f.name}: slurm.array_task_id {slurm.get('array_task_id')} != {task}")
    for point in range(n):
        for l in range(a.launches):
            c = seen.get((point, l), 0)
            if c != 1:
                problems.append(f"(point {point}, launch {l}) appears {c} times in the summaries")
            if sorted(reps.get((point, l), [])) != list(range(a.reps)):
                problems.append(f"(point {point}, launch {l}) has repetitions {sorted(reps.get((point, l), []))}")
    extra = sorted(k for k in seen if k[0] not in plan or not 0 <= k[1] < a.launches)
    if extra:
        problems.append(f"pairs outside the plan: {extra[:5]}")
    for p in problems:
        print(f"check_run: {d}: {p}")
    if not problems:
        print(f"check_run: {d}: {n} points x {a.launches} launches, each once, {a.reps} repetitions each, "
              f"{a.launches * a.slices} complete metas")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
