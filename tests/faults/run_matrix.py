#!/usr/bin/python3
"""The fault matrix (issue 29; tests/faults/README.md): every writer of collrepro stopped by
SIGTERM and SIGKILL at several moments of its run and by a full disk at several fill levels,
then checked: the previous output intact or the new one whole, nothing mixed, no temporary
left after the next successful run, the exit code and the one error line of the table; for
collbench a resumed sweep that loses and duplicates no row.

  tests/faults/run_matrix.py                     every writer (ctest: faults.matrix)
  tests/faults/run_matrix.py -w report -w tune   writers whose name contains these words
  tests/faults/run_matrix.py --list              the writers
  tests/faults/run_matrix.py --points 6 --disk-points 5 --mode exec   more cells, real commands only

Environment (set by ctest; else found under build/openmpi): COLLBENCH, TEST_COLLBENCH (the
build's collbench_test, whose test-slow algorithm makes a sweep reliably interruptible),
MPIEXEC, MPIEXEC_EXTRA. Mounting the tmpfs needs root (CAP_SYS_ADMIN); without it the disk
cells are skipped with a message.

Exit 0 when every cell passed; 1 on any failure (a mixed output, a lost or duplicated row, a
surviving temporary, a wrong exit code or error line, or a writer whose reference run failed)."""

import argparse
import contextlib
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import faultlib as F  # noqa: E402
import writers as W  # noqa: E402  (puts the repository's python/ on the path)
from collrepro.mpienv import ci_environment  # noqa: E402

REPO = F.REPO
SIGNAME = {signal.SIGTERM: "SIGTERM", signal.SIGKILL: "SIGKILL"}
DISK_FRACTIONS = (0.0, 0.25, 0.5, 0.75, 0.9, 0.97)


@dataclass
class Setup:
    work: Path
    mode: str
    points: int
    disk_points: int
    collbench: str = None
    test_collbench: str = None
    mpiexec: str = None
    mpiexec_extra: list = field(default_factory=list)
    verbose: bool = False
    trace: bool = False


@dataclass
class Tally:
    name: str
    injected: dict = field(default_factory=lambda: {"SIGTERM": 0, "SIGKILL": 0, "disk": 0})
    missed: int = 0          # a signal that came after the run ended, a disk that was not full enough
    mixed: int = 0
    lost: object = "-"       # rows: collbench only
    dup: object = "-"
    strays: int = 0
    wrong_exit: int = 0
    bad_lines: int = 0
    errors: list = field(default_factory=list)      # harness problems (a reference run failed, ...)
    failures: list = field(default_factory=list)    # one line per failed cell
    skipped: str = None
    seconds: float = 0.0
    cpu: float = 0.0

    def failed(self):
        rows = (self.lost if isinstance(self.lost, int) else 0) + (self.dup if isinstance(self.dup, int) else 0)
        # a writer whose signals all came too late was never tested: that fails too
        untested = not self.skipped and self.injected["SIGTERM"] + self.injected["SIGKILL"] == 0
        return bool(self.mixed or rows or self.strays or self.wrong_exit or self.bad_lines or self.errors or untested)


def say(text):
    print(text, flush=True)


def slug(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def last_line(text):
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1][:200] if lines else "(no output)"


# ------------------------------------------------------------------ the checks of one cell

def classify(root, units, old, new):
    """'old', 'new' or 'mixed: <how>' for the output units under root."""
    verdicts = []
    for unit in units:
        state = F.unit_state(root / unit)
        if state == old[unit]:
            verdicts.append("old")
        elif state == new[unit]:
            verdicts.append("new")
        else:
            return f"mixed: {unit}: against the new output {F.state_diff(new[unit], state)}; " \
                   f"against the previous {F.state_diff(old[unit], state)}"
    return verdicts[0] if len(set(verdicts)) == 1 else "per unit " + "/".join(verdicts)


def one_error_line(outcome, prog, needle=None):
    """None when stderr is exactly one line starting with 'prog:' (holding `needle`), else why not."""
    lines = outcome.stderr_lines()
    if any("Traceback" in line for line in lines):
        return "a Python traceback on stderr"
    if len(lines) != 1:
        return f"{len(lines)} stderr lines, want 1: {' | '.join(line[:80] for line in lines[:3])}"
    if not lines[0].startswith(f"{prog}:"):
        return f"the stderr line does not start with '{prog}:': {lines[0][:120]}"
    if needle and needle not in lines[0]:
        return f"the stderr line lacks '{needle}': {lines[0][:160]}"
    return None


def judge_signal(tally, cell, outcome, sig, expect, verdict):
    """Exit code and stderr of a writer that got `sig`. A run that exited as a complete run does
    and left the new output ended before the signal came: not counted as a fault."""
    name = SIGNAME[sig]
    if outcome.timed_out:
        tally.errors.append(f"{cell}: did not end within the time limit")
        return
    hit = outcome.rc in (-sig, 128 + sig)
    if not hit and outcome.rc in expect and verdict == "new":
        tally.missed += 1
        return
    tally.injected[name] += 1
    if not hit:
        tally.wrong_exit += 1
        tally.failures.append(f"{cell}: exit {outcome.rc} after {name}, want {128 + sig} "
                              f"(or death by the signal): {last_line(outcome.stderr)}")
    if sig == signal.SIGTERM and "Traceback" in outcome.stderr:
        tally.bad_lines += 1
        tally.failures.append(f"{cell}: a Python traceback after SIGTERM: {last_line(outcome.stderr)}")


def judge_disk(tally, cell, outcome, prog, expect, verdict):
    """Exit code 5 and one line with the system's reason, unless the writer had room enough (it
    exited as a complete run does and left the new output)."""
    if outcome.timed_out:
        tally.errors.append(f"{cell}: did not end within the time limit")
        return
    if outcome.rc in expect and verdict == "new":
        tally.missed += 1
        return
    tally.injected["disk"] += 1
    if outcome.rc != 5:
        tally.wrong_exit += 1
        tally.failures.append(f"{cell}: exit {outcome.rc} on a full disk, want 5: {last_line(outcome.stderr)}")
    why = one_error_line(outcome, prog, F.ENOSPC_TEXT)
    if why:
        tally.bad_lines += 1
        tally.failures.append(f"{cell}: {why}")


# ------------------------------------------------------------------ a Python writer

def run_writer(w, setup):
    tally = Tally(w.name)
    why = w.available(setup)
    if why:
        tally.skipped = why
        return tally
    ws = setup.work / slug(w.name)
    inputs = ws / "inputs"
    inputs.mkdir(parents=True)
    ctx = w.prepare(inputs, setup)
    if setup.mode == "fork":
        F.preload(w.preload)
    logs = ws / "logs"

    def run(cmd, label, mode=None, **kw):
        cmd.cwd = cmd.cwd or ws
        outcome = F.run(cmd, logs / label, mode=mode or setup.mode, **kw)
        if setup.verbose:
            say(f"    {label}: exit {outcome.rc} after {outcome.seconds:.2f} s; {last_line(outcome.stderr)}")
        return outcome

    with F.Tmpfs(ws / "disk", w.tmpfs_mib) as fs:
        root = (fs.path if fs.ok else ws) / "root"
        root.mkdir()
        # The previous output (A) and the reference run (B over A): the two acceptable states.
        first = w.make_previous(ctx, root, lambda cmd: run(cmd, "reference-A"))
        if first.rc not in w.expect:
            tally.errors.append(f"the reference run on input A exited {first.rc}: {last_line(first.stderr)}")
            return tally
        saved = ws / "previous"
        for unit in w.units:
            if (root / unit).exists():
                F.copy_entry(root / unit, saved / unit)
        old = {u: F.unit_state(root / u) for u in w.units}
        trace = ws / "reference-B.strace" if setup.trace else None
        ref = run(w.command(ctx, "B", root), "reference-B", watch=root, trace=trace)
        if ref.rc not in w.expect:
            tally.errors.append(f"the reference run on input B exited {ref.rc}: {last_line(ref.stderr)}")
            return tally
        expect = (ref.rc,)
        new = {u: F.unit_state(root / u) for u in w.units}
        for unit in w.units:
            if new[unit] is None or old[unit] == new[unit]:
                tally.errors.append(f"{unit}: inputs A and B give the same output (or none): the matrix could "
                                    "not tell them apart")
        if tally.errors:
            return tally
        expected_listing = {p for p in F.listing(root) if not any(F.is_temporary(x.rstrip("/")) for x in p.split("/"))}
        need = F.tree_size_pages([root / u for u in w.units])
        start = ref.first_change if ref.first_change is not None else 0.0
        span = max(ref.seconds - start, 0.05)
        moments = F.trace_moments(trace, root) if trace is not None else []
        say(f"  {w.name}: reference run {ref.seconds:.2f} s ({setup.mode}{', traced' if trace else ''}), "
            f"output from {start:.2f} s, {need} pages, "
            + (f"{len(moments)} file system calls under its root" if moments else "faults timed from its first write")
            + f"; {'tmpfs' if fs.ok else 'no tmpfs: ' + fs.why}")

        def restore():
            for unit in w.units:
                F.restore_unit(saved / unit, root / unit)

        def check_output(cell):
            verdict = classify(root, w.units, old, new)
            if verdict.startswith("mixed"):
                tally.mixed += 1
                tally.failures.append(f"{cell}: {verdict}")
            return verdict

        # The moments, spread over the writing: with strace, the reference run's system calls that
        # change something under the root, the signal delivered as the writer enters one of them;
        # without, over the time the reference run spent writing, counted from the first change
        # this run makes under the root (its first write, or its staging directory).
        for sig, offset in ((signal.SIGTERM, 0.2), (signal.SIGKILL, 0.6)):
            for k in range(setup.points):
                restore()
                label = f"{SIGNAME[sig]}-{k}"
                if moments:
                    i = min(int((k + offset) / setup.points * len(moments)), len(moments) - 1)
                    name, nth = moments[i]
                    cell = f"{w.name}: {SIGNAME[sig]} entering {name} #{nth} (file call {i + 1} of {len(moments)})"
                    outcome = run(w.command(ctx, "B", root), label, inject=(name, nth, sig))
                elif span >= 0.2:
                    delay = (k + offset) / setup.points * span
                    cell = f"{w.name}: {SIGNAME[sig]} {delay:.2f} s after its first write"

                    def due(now, first, delay=delay):
                        return first is not None and now >= first + delay

                    outcome = run(w.command(ctx, "B", root), label, fault=(due, sig), watch=root)
                else:  # too short a write to aim at by the clock: moments over the whole run
                    at = (k + offset) / setup.points * ref.seconds
                    cell = f"{w.name}: {SIGNAME[sig]} {at:.2f} s into its run"
                    outcome = run(w.command(ctx, "B", root), label, fault=(at, sig))
                verdict = check_output(cell)
                judge_signal(tally, cell, outcome, sig, expect, verdict)
                if setup.verbose:
                    say(f"      {cell}: {verdict}")

        if fs.ok:
            leaves = sorted({int(need * f) for f in DISK_FRACTIONS[:setup.disk_points]})
            for leave in leaves:
                restore()
                left = fs.fill(leave)
                try:
                    outcome = run(w.command(ctx, "B", root), f"disk-{leave}")
                finally:
                    fs.unfill()
                cell = f"{w.name}: full disk, {left} of {need} pages free"
                verdict = check_output(cell)
                judge_disk(tally, cell, outcome, w.prog, expect, verdict)
                if setup.verbose:
                    say(f"      {cell}: {verdict}")
        else:
            say(f"  {w.name}: disk cells skipped: cannot mount a tmpfs ({fs.why})")

        # The next successful run, as the real command: the new output, nothing left over.
        restore()
        final = run(w.command(ctx, "B", root), "final", mode="exec")
        if final.rc not in expect:
            tally.errors.append(f"the run after the faults exited {final.rc}, want {ref.rc}: {last_line(final.stderr)}")
        for unit in w.units:
            state = F.unit_state(root / unit)
            if state != new[unit]:
                tally.mixed += 1
                tally.failures.append(f"{w.name}: after the next successful run {unit} is not the new output: "
                                      f"{F.state_diff(new[unit], state)}")
        extra = sorted(F.listing(root) - expected_listing)
        top = [p for p in extra if not any(p.startswith(q) and q.endswith("/") and q != p for q in extra)]
        if top:
            tally.strays += len(top)
            tally.failures.append(f"{w.name}: {len(top)} temporar{'y' if len(top) == 1 else 'ies'} left after the "
                                  f"next successful run: {', '.join(top[:4])}{' ...' if len(top) > 4 else ''}")
        missing = sorted(expected_listing - F.listing(root))
        if missing and final.rc in expect:
            tally.mixed += 1
            tally.failures.append(f"{w.name}: after the next successful run missing: {', '.join(missing[:4])}")
    return tally


# ------------------------------------------------------------------ collbench: a resumed sweep

CB_REPS = 5


def cb_sets(points):
    """quick.yaml reduced to `points` points of test-slow (40 ms a repetition: 0.24 s a point)."""
    sizes = ", ".join(f"{k}KiB" for k in range(1, points + 1))
    return ["--set", "groups.ratios=[1/1]", "--set", "blocks=[1:1]", "--set", "algorithms=[test-slow]",
            "--set", f"sizes=[{sizes}]", "--set", f"timing.reps={CB_REPS}", "--set", "timing.warmup=1"]
CB_FINAL = ("raw-L0.csv", "summary-L0.csv", "meta-L0.json")
# Pages a full disk leaves beyond what the resume needs to start (None: none at all): it fails
# at its first metadata write, then at the appends of the next point or of a few points later.
CB_DISK_LEAVES = (None, 0, 1, 0, 2, 1)
MPI_ENV = ci_environment()  # the tests' MPI environment (python/collrepro/mpienv.py)


def _complete_lines(path):
    try:
        data = Path(path).read_bytes().decode(errors="replace")
    except OSError:
        return []
    lines = data.split("\n")
    return lines[:-1]  # the last element is '' or an unterminated line


def read_points(res):
    """The finished points of a results directory: {point: (summary line, sorted raw lines)} from
    the final files and the .tmp files (either may hold a point), and the duplicates found (a
    point's summary line twice in one file, a (point, rep) twice in one raw file)."""
    found, dups = {}, []
    for raw_name, summary_name in (("raw-L0.csv.tmp", "summary-L0.csv.tmp"), ("raw-L0.csv", "summary-L0.csv")):
        raw, summary = _complete_lines(res / raw_name), _complete_lines(res / summary_name)
        if len(raw) < 1 or len(summary) < 1:
            continue
        rh, sh = next(csv.reader([raw[0]])), next(csv.reader([summary[0]]))
        if "point" not in rh or "point" not in sh or "rep" not in rh:
            continue
        rp, rr, sp = rh.index("point"), rh.index("rep"), sh.index("point")
        by_point, seen = {}, set()
        for line in raw[1:]:
            row = next(csv.reader([line]))
            if len(row) != len(rh):
                continue
            key = (row[rp], row[rr])
            if key in seen:
                dups.append(f"{raw_name}: point {row[rp]} rep {row[rr]} twice")
            seen.add(key)
            by_point.setdefault(row[rp], []).append(line)
        seen_points = set()
        for line in summary[1:]:
            row = next(csv.reader([line]))
            if len(row) != len(sh):
                continue
            p = row[sp]
            if p in seen_points:
                dups.append(f"{summary_name}: point {p} twice")
            seen_points.add(p)
            rows = sorted(by_point.get(p, []))
            if len(rows) > CB_REPS:
                dups.append(f"{raw_name}: point {p} has {len(rows)} raw rows, want {CB_REPS}")
            if len(rows) == CB_REPS and p not in found:
                found[p] = (line, rows)
    return found, dups


def lost_rows(kept, now):
    """Rows of points finished before that are now missing or changed."""
    lost, names = 0, []
    for p, (summary, raw) in kept.items():
        have = now.get(p)
        if have is None:
            lost += 1 + len(raw)
            names.append(p)
        elif have != (summary, raw):
            lost += (have[0] != summary) + len(set(raw) - set(have[1]))
            names.append(p)
    return lost, names


def _resume_pages(res):
    """Pages a resume of res needs before its first new point: new .tmp copies of the final
    files when there are no .tmp files (a resume truncates and rewrites those it finds), and
    the metadata written beside the old one."""
    meta = F.tree_size_pages([res / "meta-L0.json"]) or 2
    if (res / "raw-L0.csv.tmp").exists():
        return meta
    return meta + F.tree_size_pages([res / "raw-L0.csv", res / "summary-L0.csv"])


def run_collbench(setup):
    tally = Tally("collbench (sweep + resume)")
    tally.lost, tally.dup = 0, 0
    exe = setup.test_collbench
    if not exe or not Path(exe).is_file():
        tally.skipped = "collbench_test is not built (cmake --build --preset openmpi --target collbench_test)"
        return tally
    if not setup.mpiexec:
        tally.skipped = "no MPI launcher (MPIEXEC)"
        return tally
    ws = setup.work / "collbench"
    ws.mkdir(parents=True)
    cfg = REPO / "configs" / "quick.yaml"
    launcher = [setup.mpiexec, "-n", "2", *setup.mpiexec_extra, exe, cfg]

    rank_name = Path(exe).name
    per_point = (CB_REPS + 1) * 0.040

    with F.Tmpfs(ws / "disk", 16) as fs:
        res = (fs.path if fs.ok else ws) / "res"
        faults = []
        for k in range(max(setup.points, setup.disk_points)):
            if k < setup.points:
                faults.append(("SIGTERM", (k + 0.2) / setup.points))
                faults.append(("SIGKILL", (k + 0.7) / setup.points))
            if fs.ok and k < setup.disk_points:
                faults.append(("disk", CB_DISK_LEAVES[k % len(CB_DISK_LEAVES)]))
        if not fs.ok:
            say(f"  collbench: disk cells skipped: cannot mount a tmpfs ({fs.why})")
        sets = cb_sets(max(24, 8 + 3 * len(faults)))  # a fault takes a point or two, a full disk a few

        def command(*args):
            return F.Command(program=launcher, args=list(args) + sets, prog="collbench", env=MPI_ENV, cwd=ws)

        plan = F.run(command("--dry-run", "--format", "csv"), ws / "logs" / "plan", mode="exec")
        if plan.rc != 0:
            tally.errors.append(f"the dry run exited {plan.rc}: {last_line(plan.stderr)}")
            return tally
        (ws / "plan.csv").write_text(plan.stdout)
        points = sum(r["supported"] == "1" for r in csv.DictReader(plan.stdout.splitlines()))
        say(f"  collbench: {points} points x {CB_REPS} repetitions at 2 processes, {len(faults)} faults into one "
            f"sweep, then a resume")
        kept = {}
        for n, (kind, arg) in enumerate(faults):
            before, _ = read_points(res)
            if len(before) >= points - 1:
                tally.failures.append(f"collbench: the sweep finished before fault {n + 1} of {len(faults)}: "
                                      "enlarge it (cb_sets)")
                tally.errors.append("sweep too short for the faults")
                break
            cell = f"collbench: fault {n + 1} ({kind}"
            if kind == "disk":
                start = _resume_pages(res)
                left = fs.fill(0 if arg is None else start + arg)
                cell += f", {left} pages free, the resume needs {start} to start, {len(before)} points done)"
                try:
                    outcome = F.run(command("--out", res, "--quiet"), ws / "logs" / f"{n}-disk", mode="exec")
                finally:
                    fs.unfill()
                if outcome.rc == 0:
                    tally.missed += 1
                else:
                    tally.injected["disk"] += 1
                    if outcome.rc != 5:
                        tally.wrong_exit += 1
                        tally.failures.append(f"{cell}: exit {outcome.rc} on a full disk, want 5: "
                                              f"{_collbench_line(outcome)}")
                    why = _one_collbench_line(outcome, F.ENOSPC_TEXT)
                    if why:
                        tally.bad_lines += 1
                        tally.failures.append(f"{cell}: {why}")
            else:
                sig = signal.SIGTERM if kind == "SIGTERM" else signal.SIGKILL
                base = len(before)
                state = {"ready": None}

                def due(now, first, base=base, phase=arg, state=state):
                    if state["ready"] is None:
                        done, _ = read_points(res)
                        if len(done) > base:
                            state["ready"] = now
                        return False
                    return now >= state["ready"] + phase * per_point

                cell += f" after point {base + 1} + {arg:.2f} of a point)"
                outcome = F.run(command("--out", res, "--quiet"), ws / "logs" / f"{n}-{kind}", mode="exec",
                                fault=(due, sig), target_pids=lambda pid: F.descendants(pid, rank_name), timeout=120)
                if not outcome.signal_sent:
                    tally.missed += 1
                else:
                    tally.injected[kind] += 1
                    if kind == "SIGTERM" and outcome.rc != 143:
                        tally.wrong_exit += 1
                        tally.failures.append(f"{cell}: exit {outcome.rc} after SIGTERM, want 143: "
                                              f"{_collbench_line(outcome)}")
                    if kind == "SIGKILL" and outcome.rc == 0:
                        tally.wrong_exit += 1
                        tally.failures.append(f"{cell}: exit 0 after the ranks were killed")
            if outcome.timed_out:
                tally.errors.append(f"{cell}: did not end within the time limit")
            now, dups = read_points(res)
            lost, which = lost_rows(kept, now)
            if lost:
                tally.lost += lost
                tally.failures.append(f"{cell}: {lost} rows of finished points lost or changed "
                                      f"(points {', '.join(sorted(which, key=int)[:6])})")
            if dups:
                tally.dup += len(dups)
                tally.failures.append(f"{cell}: duplicated rows: {'; '.join(dups[:3])}")
            kept.update({p: v for p, v in now.items() if p not in kept or p in which})
            if setup.verbose:
                say(f"    {cell}: exit {outcome.rc}, {len(now)} points on disk; {_collbench_line(outcome)}")

        final = F.run(command("--out", res, "--quiet"), ws / "logs" / "final", mode="exec")
        if final.rc != 0:
            tally.errors.append(f"the resume after the faults exited {final.rc}: {_collbench_line(final)}")
        now, dups = read_points(res)
        lost, which = lost_rows(kept, now)
        missing = points - len(now)
        if lost or missing > 0:
            tally.lost += lost + max(missing, 0) * (CB_REPS + 1)
            tally.failures.append(f"collbench: after the resume {lost} rows of earlier points lost or changed, "
                                  f"{max(missing, 0)} points missing")
        if dups:
            tally.dup += len(dups)
            tally.failures.append(f"collbench: after the resume duplicated rows: {'; '.join(dups[:3])}")
        check = subprocess.run([F.PY, REPO / "tests" / "driver" / "check_results.py", res, "--plan", ws / "plan.csv",
                                "--reps", str(CB_REPS), "--launches", "1"], capture_output=True, text=True)
        if check.returncode != 0:
            problems = [line for line in check.stderr.splitlines() if line.startswith("FAIL")]
            tally.errors.append(f"check_results.py after the resume: {len(problems)} problem(s): "
                                f"{problems[0][:200] if problems else last_line(check.stderr)}")
        strays = sorted(set(os.listdir(res)) - set(CB_FINAL)) if res.is_dir() else []
        if strays:
            tally.strays += len(strays)
            tally.failures.append(f"collbench: left after the resume: {', '.join(strays)}")
    return tally


def _collbench_lines(outcome):
    return [line for line in outcome.stderr_lines() if line.startswith("collbench")]


def _collbench_line(outcome):
    lines = _collbench_lines(outcome)
    return lines[0][:200] if lines else last_line(outcome.stderr)


def _one_collbench_line(outcome, needle):
    """collbench under mpirun: exactly one line of collbench's own (the launcher adds its own
    lines), holding `needle`."""
    lines = _collbench_lines(outcome)
    if len(lines) != 1:
        return f"{len(lines)} collbench lines on stderr, want 1: {' | '.join(line[:90] for line in lines[:3])}"
    if needle not in lines[0]:
        return f"the collbench line lacks '{needle}': {lines[0][:160]}"
    return None


# ------------------------------------------------------------------ the table

COLUMNS = ("writer", "SIGTERM", "SIGKILL", "disk", "missed", "mixed", "lost", "dup", "strays", "exit", "line", "s", "")


def print_table(tallies):
    rows = [COLUMNS]
    for t in tallies:
        if t.skipped:
            rows.append((t.name, "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", f"skipped: {t.skipped}"))
            continue
        rows.append((t.name, t.injected["SIGTERM"], t.injected["SIGKILL"], t.injected["disk"], t.missed, t.mixed,
                     t.lost, t.dup, t.strays, t.wrong_exit, t.bad_lines, f"{t.seconds:.0f}",
                     "FAIL" if t.failed() else "ok"))
    ran = [t for t in tallies if not t.skipped]
    total = ["total", *(sum(t.injected[k] for t in ran) for k in ("SIGTERM", "SIGKILL", "disk")),
             sum(t.missed for t in ran), sum(t.mixed for t in ran),
             sum(t.lost for t in ran if isinstance(t.lost, int)), sum(t.dup for t in ran if isinstance(t.dup, int)),
             sum(t.strays for t in ran), sum(t.wrong_exit for t in ran), sum(t.bad_lines for t in ran),
             f"{sum(t.seconds for t in ran):.0f}", ""]
    rows.append(tuple(total))
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(COLUMNS))]
    for i, r in enumerate(rows):
        cells = [str(c).ljust(widths[0]) if j == 0 else str(c).rjust(widths[j]) for j, c in enumerate(r[:-1])]
        say("  ".join(cells) + ("  " + r[-1] if r[-1] else ""))
        if i == 0 or i == len(rows) - 2:
            say("-" * (sum(widths[:-1]) + 2 * (len(widths) - 2)))
    return total


def summary_line(tallies, total):
    ran = [t for t in tallies if not t.skipped]
    injected = total[1] + total[2] + total[3]
    return (f"fault matrix: {len(ran)} writers, {injected} faults injected ({total[1]} SIGTERM, {total[2]} SIGKILL, "
            f"{total[3]} full disk; {total[4]} more came too late or found room enough); {total[5]} mixed outputs, "
            f"{total[6]} lost rows, {total[7]} duplicated rows, {total[8]} stray temporaries, {total[9]} wrong exit "
            f"codes, {total[10]} wrong error lines" + (f"; skipped: {', '.join(t.name for t in tallies if t.skipped)}"
                                                          if any(t.skipped for t in tallies) else ""))


# ------------------------------------------------------------------ main

# Rough CPU seconds of each writer's cells (for the order of the work: the longest first).
COST = {"analyze dashboard": 45, "analyze trend": 40, "analyze report": 40, "timing-study report": 20,
        "analyze guidelines": 20, "collbench (sweep + resume)": 10, "interpose/colltune": 9,
        "collmpi add (registry)": 6, "collslurm resubmit (state)": 4, "sim cori_platform": 2}


def run_one(name, setup):
    """One writer's cells (in a worker process with --jobs); its Tally."""
    t0, cpu0 = time.monotonic(), _cpu()
    try:
        if name.startswith("collbench"):
            tally = run_collbench(setup)
        else:
            tally = run_writer(next(w for w in W.WRITERS if w.name == name), setup)
    except Exception as err:  # noqa: BLE001 - a harness problem: reported, the others still run
        import traceback
        traceback.print_exc()
        tally = Tally(name)
        tally.errors.append(f"the harness failed: {type(err).__name__}: {err}")
    tally.seconds = time.monotonic() - t0
    tally.cpu = _cpu() - cpu0
    say(f"  {name}: {'skipped (' + tally.skipped + ')' if tally.skipped else ('FAIL' if tally.failed() else 'ok')}"
        f" in {tally.seconds:.0f} s ({tally.cpu:.0f} s of CPU)")
    return tally


def _cpu():
    import resource
    return sum(resource.getrusage(who).ru_utime + resource.getrusage(who).ru_stime
               for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))


def _find(env, *candidates):
    if os.environ.get(env):
        return os.environ[env]
    for c in candidates:
        if c and Path(c).is_file():
            return str(c)
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(prog="run_matrix", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("-w", "--writer", action="append", default=[], metavar="WORD",
                    help="only writers whose name contains WORD (repeatable; 'collbench' for the sweep)")
    ap.add_argument("--list", action="store_true", help="list the writers and exit")
    ap.add_argument("--points", type=int, default=3, help="moments per signal and writer (default 3)")
    ap.add_argument("--disk-points", type=int, default=3, help="fill levels per writer (default 3)")
    ap.add_argument("--mode", choices=("fork", "exec"), default="fork",
                    help="fork: Python writers forked from this preloaded interpreter (default; the "
                         "run after the faults is always the real command); exec: the real command every time")
    ap.add_argument("--work", type=Path, help="work directory (default: a new temporary one, removed unless --keep)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory (logs of every run)")
    ap.add_argument("--json", type=Path, help="also write the tallies as JSON")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per run")
    ap.add_argument("--no-strace", action="store_true", help="time the signals instead of placing them on system calls")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="writers run at once (default 2)")
    a = ap.parse_args(argv)
    names = [w.name for w in W.WRITERS] + ["collbench (sweep + resume)"]
    if a.list:
        print("\n".join(names))
        return 0
    if a.points < 1 or a.disk_points < 0 or a.disk_points > len(DISK_FRACTIONS):
        ap.error(f"--points must be >= 1 and --disk-points 0..{len(DISK_FRACTIONS)}")
    chosen = [n for n in names if not a.writer or any(word.lower() in n.lower() for word in a.writer)]
    if not chosen:
        ap.error(f"no writer matches {a.writer}; --list shows them")

    build = REPO / "build" / "openmpi"
    work = a.work or Path(tempfile.mkdtemp(prefix="collrepro-faults-"))
    if a.work:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
    os.environ.setdefault("MPLCONFIGDIR", str(work / "mplconfig"))
    setup = Setup(work=work, mode=a.mode, points=a.points, disk_points=a.disk_points, verbose=a.verbose,
                  collbench=_find("COLLBENCH", build / "bench" / "collbench"),
                  test_collbench=_find("TEST_COLLBENCH", build / "tests" / "collbench_test"),
                  mpiexec=_find("MPIEXEC", "/usr/bin/mpirun.openmpi", shutil.which("mpirun") or ""),
                  mpiexec_extra=os.environ.get("MPIEXEC_EXTRA", "").split())
    setup.trace, why = F.can_trace()
    if a.no_strace:
        setup.trace, why = False, "--no-strace"
    say(f"fault matrix: {len(chosen)} writers, {a.points} moments per signal, {a.disk_points} fill levels, "
        f"mode {a.mode}, work {work}; signals "
        + ("at system calls (strace)" if setup.trace else f"timed ({why}: strace makes them land on file system calls)"))
    t_all = time.monotonic()
    if any(n in chosen for n in ("analyze trend", "analyze guidelines", "analyze dashboard")):
        W.shared_inputs(setup)  # before the workers: they share these inputs
    order = sorted(chosen, key=lambda n: COST.get(n, 0), reverse=True)  # the longest first
    try:
        if a.jobs > 1 and len(order) > 1:
            import concurrent.futures
            import multiprocessing
            with concurrent.futures.ProcessPoolExecutor(max_workers=a.jobs,
                                                        mp_context=multiprocessing.get_context("fork")) as pool:
                done = dict(zip(order, pool.map(run_one, order, [setup] * len(order))))
        else:
            done = {name: run_one(name, setup) for name in order}
    finally:
        if not a.keep and not a.work:
            with contextlib.suppress(OSError):
                shutil.rmtree(work)
    tallies = [done[n] for n in chosen]
    say("")
    total = print_table(tallies)
    failures = [(t.name, line) for t in tallies for line in t.errors + t.failures]
    if failures:
        say("\nfailures:")
        for name, line in failures:
            say(f"  {line if line.startswith(name.split(' ')[0]) else name + ': ' + line}")
    say("\n" + summary_line(tallies, total)
        + f" ({time.monotonic() - t_all:.0f} s, {sum(t.cpu for t in tallies):.0f} s of CPU, {a.jobs} at a time)")
    if a.json:
        a.json.write_text(json.dumps([t.__dict__ for t in tallies], indent=1, default=str) + "\n")
    return 1 if any(t.failed() for t in tallies) else 0


if __name__ == "__main__":
    sys.exit(main())
