"""What a submission directory holds: its records, each task's result files and attempts, and
from those (plus what squeue and sacct say, passed in by the caller) the state of every task.
"""

import csv
import datetime
import sys
from pathlib import Path

from collrepro import contract, safeio
from collrepro.safeio import UserError
from collrepro.slurm.plan import Fail, ranges_text, result_globs, task_files

SUBMISSION = "slurm-submission.json"
# What a task's recorded exit code (collbench's, through the launcher) means: the exit-code table.
EXIT_MEANING = {0: "ok", 1: "error (the launcher's)", 2: "configuration error", 3: "validation failure",
                4: "MPI failure / incomplete", 5: "environment / I/O failure (no space, permission, a missing tool)",
                70: "internal error (a bug in collrepro)", 130: "interrupted (SIGINT)", 137: "killed (SIGKILL)",
                143: "interrupted (SIGTERM: time limit or scancel)"}
RECORD_LIMIT = 64 * safeio.MIB  # a submission record: one mapping entry per task
RECORD_FIX = ("collslurm replaces its records whole, so something else changed it: restore it from a copy "
              "(collect --into keeps one); the result files themselves are not affected")


# ------------------------------------------------------------------ small file helpers

def utc_now():
    """The current UTC time as 2024-01-31T12:00:00Z."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_json(path, obj, indent=1):
    """Write JSON atomically (safeio: a temporary sibling, fsync, rename; the temporary file of an
    interrupted writer is removed by the next one)."""
    safeio.write_json(path, obj, indent=indent)


def read_json(path, damaged_ok=False):
    """The parsed file, or None when it is missing. A file that is there but unreadable, over
    RECORD_LIMIT or not JSON is a Fail naming it (exit 2), or None with damaged_ok (records whose
    loss costs nothing: the tasks' attempt files, collbench's metadata checked elsewhere)."""
    if not Path(path).exists():
        return None
    try:
        return safeio.load_json_file(path, RECORD_LIMIT, "a collslurm record")
    except UserError as err:
        if damaged_ok:
            return None
        raise Fail(f"{err}; {RECORD_FIX}") from None


def read_csv_rows(path):
    """The rows of a CSV file as dicts."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def exit_text(code):
    """'exit 143: interrupted (...)' for a recorded exit code."""
    return f"exit {code}: {EXIT_MEANING.get(code, 'error')}" if code is not None else "no exit code"


# ------------------------------------------------------------------ submission records

def submission_dirs(path):
    """DIR with a slurm-submission.json, or a parent holding one per library (DIR/openmpi, DIR/mpich)."""
    d = Path(path)
    if not d.is_dir():
        raise Fail(f"{path}: no such directory (give the --out of collslurm submit)")
    subs = sorted(p.parent for p in d.glob(f"*/{SUBMISSION}"))
    if (d / SUBMISSION).is_file():
        try:
            index = read_json(d / SUBMISSION)
        except Fail as err:
            if not subs:  # a library's own record: nothing else holds its mapping
                raise
            index = {"arrays": {}}  # the index of DIR/<mpi>/ records: derived, rebuilt by the next submit
            print(f"collslurm: {err} (using the records in {d}/*/ instead; the next submit or resubmit "
                  "rewrites the index)", file=sys.stderr)
        if not (isinstance(index, dict) and "arrays" in index):
            return [d]
    if not subs:
        if (d / "slurm-plan.json").is_file():
            raise Fail(f"{path} holds a dry-run submission only (slurm-plan.json): submit without --dry-run")
        raise Fail(f"{path}: no {SUBMISSION} here or in its subdirectories: give the --out of collslurm submit")
    return subs


def update_index(results, rec):
    """DIR/slurm-submission.json: the arrays submitted into DIR, one per library (the full record of
    each is DIR/<mpi>/slurm-submission.json)."""
    path = results.parent / SUBMISSION
    index = read_json(path, damaged_ok=True)
    if isinstance(index, dict) and "mapping" in index:
        return  # the parent is itself a library directory (never written by submit): leave it
    if not (isinstance(index, dict) and isinstance(index.get("arrays"), dict)):
        # missing or damaged: the index is derived, rebuilt from the libraries' records beside this one
        index = {"version": 1, "arrays": {}}
        for other in sorted(results.parent.glob(f"*/{SUBMISSION}")):
            old = read_json(other, damaged_ok=True)
            if other.parent != results and isinstance(old, dict) and "mapping" in old and "mpi" in old:
                index["arrays"][old["mpi"]] = _index_entry(other.parent, old)
    index["experiment"] = rec["experiment"]
    index["config"] = rec["config"]
    index["arrays"][rec["mpi"]] = _index_entry(results, rec)
    write_json(path, index)


def _index_entry(results, rec):
    return {"dir": str(results), "jobs": [x["job_id"] for x in rec.get("submissions", [])], "tasks": rec.get("tasks"),
            "launches": rec.get("launches"), "slices": rec.get("slices"), "points": rec.get("points"),
            "np": rec.get("np"), "task_id": rec.get("task_id"), "record": str(results / SUBMISSION)}


def load_submission(d):
    """One library's submission record; Fail when it is not collslurm's."""
    rec = read_json(d / SUBMISSION)
    if not (isinstance(rec, dict) and isinstance(rec.get("mapping"), list)):
        raise Fail(f"{d / SUBMISSION}: not a submission record written by collslurm (no task mapping); "
                   f"{RECORD_FIX}")
    ints = ("tasks", "launches", "slices", "points", "np")
    task_ints = ("task", "launch", "slice", "first", "last", "count")
    if not (all(_is_int(rec.get(k)) for k in ints) and isinstance(rec.get("mpi"), str)
            and isinstance(rec.get("submissions", []), list)
            and all(isinstance(m, dict) and all(_is_int(m.get(k)) for k in task_ints) for m in rec["mapping"])):
        raise Fail(f"{d / SUBMISSION}: a field of the submission record is missing or not a number "
                   f"({', '.join(ints)}, mpi, mapping[].{{{','.join(task_ints)}}}); {RECORD_FIX}")
    return rec


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def stray_result_files(d, expected_names):
    """Result files in d (raw-*.csv, ...) whose names are not among expected_names."""
    return [f.name for pattern in result_globs() for f in sorted(d.glob(pattern)) if f.name not in expected_names]


# ------------------------------------------------------------------ one task's files on disk

def _points_so_far(summary):
    """Finished points of a launch still running (its summary's temporary file)."""
    tmp = Path(str(summary) + contract.TMP_SUFFIX)
    if not tmp.is_file():
        return []
    try:
        return sorted({int(r["point"]) for r in read_csv_rows(tmp) if r.get("point", "").isdigit()})
    except (OSError, csv.Error):
        return []


def _check_meta(meta, name, m, rec, problems):
    """Compare a task's metadata with its place in the submission."""
    if meta.get("launch") != m["launch"]:
        problems.append(f"{name}: launch {meta.get('launch')} != {m['launch']}")
    want_slice = m["slice"] if rec["slices"] > 1 else None
    if meta.get("slice") != want_slice:
        problems.append(f"{name}: slice {meta.get('slice')} != {want_slice}")
    if meta.get("nprocs") != rec["np"]:
        problems.append(f"{name}: ran with {meta.get('nprocs')} processes, not {rec['np']} "
                        f"(with srun, check the --mpi plugin: pmix for Open MPI, pmi2 for MPICH)")
    if meta.get("mpi_impl") not in (None, rec["mpi"]):
        problems.append(f"{name}: mpi_impl {meta.get('mpi_impl')} but this array is {rec['mpi']}")
    if rec.get("experiment") and meta.get("experiment") != rec["experiment"]:
        problems.append(f"{name}: experiment {meta.get('experiment')} != {rec['experiment']}")


def _check_summary(summary, name, m, expected, st):
    """Summary rows: launch, duplicates, points outside the slice; returns {point: rows}."""
    problems = st["problems"]
    seen = {}
    for r in summary:
        try:
            point, launch = int(r["point"]), int(r["launch"])
        except (KeyError, ValueError):
            problems.append(f"{name}: a row without integer point/launch")
            continue
        if launch != m["launch"]:
            problems.append(f"{name}: point {point} has launch {launch}, not {m['launch']}")
        seen[point] = seen.get(point, 0) + 1
        st.setdefault("pairs", []).append((point, launch))
    dups = sorted(p for p, c in seen.items() if c > 1)
    if dups:
        problems.append(f"{name}: points {ranges_text(dups)} appear more than once")
    extra = sorted(set(seen) - expected)
    if extra:
        problems.append(f"{name}: points {ranges_text(extra)} are not in this task's slice {m['first']}..{m['last']}")
    return seen


def _check_raw(raw, summary, name, seen, problems):
    """Raw rows: every point of the summary has exactly n repetitions, numbered 0..n-1."""
    reps = {}
    for r in raw:
        try:
            reps.setdefault((int(r["point"]), int(r["launch"])), []).append(int(r["rep"]))
        except (KeyError, ValueError):
            problems.append(f"{name}: a row without integer point/launch/rep")
            break
    for r in summary:
        try:
            key, n = (int(r["point"]), int(r["launch"])), int(r["n"])
        except (KeyError, ValueError):
            continue
        got = sorted(reps.get(key, []))
        if got != list(range(n)):
            problems.append(f"{name}: point {key[0]} has {len(got)} repetitions, summary says n={n}")
    missing_raw = sorted({p for p, _ in reps} - set(seen))
    if missing_raw:
        problems.append(f"{name}: points {ranges_text(missing_raw)} have raw rows but no summary row")


def _check_final_files(files, m, rec, st):
    """The checks of a task whose three files are final; fills st."""
    problems = st["problems"]
    meta = read_json(files["meta"], damaged_ok=True)
    if not isinstance(meta, dict):
        problems.append(f"{files['meta'].name}: unreadable JSON")
        return
    st["interrupted"] = meta.get("complete") is not True  # an interrupted launch keeps its finished points
    st["interrupted_by"] = meta.get("interrupted_by")
    _check_meta(meta, files["meta"].name, m, rec, problems)
    st["fingerprint"] = meta.get("config_fingerprint")
    st["slurm"] = meta.get("slurm")
    try:
        summary = read_csv_rows(files["summary"])
        raw = read_csv_rows(files["raw"])
    except (OSError, csv.Error, UnicodeDecodeError) as err:
        problems.append(f"unreadable CSV: {err}")
        return
    expected = set(st["expected"])
    seen = _check_summary(summary, files["summary"].name, m, expected, st)
    st["done_points"] = sorted(set(seen) & expected)
    st["final_points"] = st["done_points"]
    _check_raw(raw, summary, files["raw"].name, seen, problems)
    st["complete"] = not problems and not st["interrupted"] and set(seen) == expected
    if not problems and st["interrupted"] and set(seen) == expected:
        problems.append(f"{files['meta'].name}: every point is present but the launch is marked incomplete")


def task_results(d, rec, m):
    """On-disk state of one task: {complete, done_points, problems, files}."""
    files = {k: d / name for k, name in task_files(m["launch"], m["slice"], rec["slices"]).items()}
    expected = list(range(m["first"], m["last"] + 1))
    st = {"task": m["task"], "launch": m["launch"], "slice": m["slice"], "expected": expected,
          "files": {k: str(v) for k, v in files.items()}, "problems": [], "complete": False, "done_points": [],
          "final_points": []}
    if not all(f.is_file() for f in files.values()):
        st["done_points"] = _points_so_far(files["summary"])
        return st
    for kind, name in task_files(m["launch"], m["slice"], rec["slices"], optional=True).items():
        if kind not in files and (d / name).is_file():  # the phases file (timing.phases) travels with them
            st["files"][kind] = str(d / name)
    _check_final_files(files, m, rec, st)
    return st


def last_attempt(d, task):
    """The latest tasks/task-<t>.job-*.json the batch script wrote for a task, or None."""
    best = None
    for f in (d / "tasks").glob(f"task-{task}.job-*.json"):
        a = read_json(f, damaged_ok=True)
        if isinstance(a, dict) and (best is None or a.get("start_epoch", 0) >= best.get("start_epoch", 0)):
            best = a
    return best


# ------------------------------------------------------------------ task states

def _attempt_reason(attempt, m, rec):
    """Why a started task did not finish, from its last recorded attempt."""
    if attempt is None:
        return ["never started (cancelled while pending?)"]
    state, code = attempt.get("state"), attempt.get("exit_code")
    if state == "running":
        return ["ended without recording an exit code (killed: time limit, node failure or scancel)"]
    if state == "done":
        return ["exit 0 but its results are incomplete"]
    if state == "interrupted" and code not in (130, 143):
        return [f"interrupted (launcher {exit_text(code)})"]
    why = [exit_text(code)]
    if code == 2 and rec.get("launcher") == "srun":
        why.append(f"see logs/task-{m['task']}.job-*.out; 'got 1' processes there means srun "
                   f"--mpi={rec.get('srun_mpi')} does not fit {rec['mpi']} (pmix for Open MPI, pmi2 "
                   f"for MPICH)")
    return why


def _failure_detail(m, rec, disk, attempt, acct):
    why = []
    if acct and m["task"] in acct:
        why.append(f"{acct[m['task']][0]} (exit {acct[m['task']][1]})")
    why += _attempt_reason(attempt, m, rec)
    if disk.get("interrupted_by"):
        why.append(f"collbench stopped on {disk['interrupted_by']}")
    if disk["problems"]:
        why.append("; ".join(disk["problems"]))
    return "; ".join(why) + f"; {len(disk['done_points'])}/{m['count']} points kept"


def _queued_detail(state, qstate, reason, done_n, total):
    if state == "pending":
        return f"waiting ({reason})" if reason and reason != "None" else "waiting"
    return f"{done_n}/{total} points so far" + (f" ({qstate.lower()})" if qstate != "RUNNING" else "")


def task_state(d, rec, m, queue, acct):
    """One task's row: pending or running (squeue lists it), done (complete on disk), else failed."""
    disk = task_results(d, rec, m)
    attempt = last_attempt(d, m["task"])
    done_n, total = len(disk["done_points"]), m["count"]
    row = {"task": m["task"], "launch": m["launch"], "slice": m["slice"], "points": total,
           "done_points": done_n, "complete": disk["complete"], "problems": disk["problems"],
           "attempt": attempt, "disk": disk}
    if queue and m["task"] in queue:
        qstate, reason = queue[m["task"]]
        row["state"] = "pending" if qstate == "PENDING" else "running"
        row["detail"] = _queued_detail(row["state"], qstate, reason, done_n, total)
    elif disk["complete"]:
        row["state"], row["detail"] = "done", f"{total}/{total} points"
    elif queue is None and attempt is None:
        row["state"], row["detail"] = "pending", "not started yet, or cancelled (no squeue to tell which)"
    else:
        row["state"], row["detail"] = "failed", _failure_detail(m, rec, disk, attempt, acct)
    return row


def task_states(d, rec, queue, acct):
    """Every task's row (see task_state); queue and acct as submit.queue_state/sacct_state give them."""
    return [task_state(d, rec, m, queue, acct) for m in rec["mapping"]]


def summarize(states):
    """{pending, running, done, failed: count}."""
    counts = {k: 0 for k in ("pending", "running", "done", "failed")}
    for s in states:
        counts[s["state"]] += 1
    return counts


# ------------------------------------------------------------------ completeness

def collect_one(d, rec):
    """Verify one submission directory: every (point, launch) pair exactly once."""
    states = [task_results(d, rec, m) for m in rec["mapping"]]
    problems = []
    pairs = {}
    for st in states:
        for p in st.get("pairs", []):
            pairs[p] = pairs.get(p, 0) + 1
        problems += [f"task {st['task']}: {p}" for p in st["problems"]]
    dups = sorted(p for p, c in pairs.items() if c > 1)
    if dups:
        problems.append(f"(point, launch) pairs measured twice: {dups[:10]}")
    expected_names = set()
    for st in states:
        expected_names |= {Path(f).name for f in st["files"].values()}
    for name in stray_result_files(d, expected_names):
        problems.append(f"{name} is not part of this submission's mapping (another run's file?): move it away")
    fps = {st.get("fingerprint") for st in states if st.get("fingerprint")}
    if len(fps) > 1:
        problems.append(f"tasks ran different configurations (fingerprints {sorted(fps)})")
    missing = []
    for st in states:
        present = set(st["final_points"])
        missing += [(p, st["launch"], st["task"]) for p in st["expected"] if p not in present]
    return states, problems, missing


def missing_by_task(missing):
    """[(point, launch, task)] -> [{task, launch, points}] sorted by task."""
    by_task = {}
    for p, l, t in missing:
        by_task.setdefault((t, l), []).append(p)
    return [{"task": t, "launch": l, "points": pts} for (t, l), pts in sorted(by_task.items())]
