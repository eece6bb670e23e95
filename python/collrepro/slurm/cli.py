"""collslurm: run a collbench experiment as Slurm job arrays.

  collslurm plan     CONFIG [--np N] [--launches L] [--slices S] [options] [--format text|json]
  collslurm submit   CONFIG --out DIR [--mpi openmpi|mpich|openmpi,mpich] [options] [--dry-run]
  collslurm status   DIR [--wait [--timeout S]] [--format text|json]
  collslurm collect  DIR [--into OUT] [--partial] [--force] [--format text|json]
  collslurm resubmit DIR [--time T] [--partition P] [--account A] [--qos Q] [--throttle N]
                         [--sbatch-extra "..."] [--tasks LIST] [--include-errors] [--dry-run]

One array task = one launch (one srun/mpirun of collbench) over one slice of the experiment's
deterministic point list; tasks = launches x slices; task t runs launch t // S, slice t % S
(t = launch * S + slice). Results of library M go to DIR/M (raw/summary/meta-L<l>[-S<s>]),
the directory analysis/analyze reads. See slurm/README.md.

Options of plan and submit (they override the config's `slurm:` section; --set slurm.KEY=V too):
  --np N                 processes per launch (= nodes x ntasks_per_node)
  --nodes N              nodes per task           --ntasks-per-node N
  --time T               time limit per task (Slurm format: MM, HH:MM:SS, D-HH:MM, ...)
  --launches L           --slices S (slices per launch)
  --partition P          --account A              --qos Q
  --throttle N           at most N tasks run at once (sbatch --array=...%N; 0 = no limit)
  --sbatch-extra="..."   more sbatch flags (shell words; write --sbatch-extra=--exclusive with `=`)
  --launcher mpirun|srun --srun-mpi PLUGIN (srun --mpi=..., default pmix for Open MPI, pmi2 for MPICH)
  --overcommit           more processes than CPUs (sbatch --overcommit, mpirun --oversubscribe)
  --mpi LIB              openmpi (default) or mpich, or a comma list: one array per library
  --build-dir DIR        the CMake build holding bench/collbench (default build/<LIB>)
  --collbench PATH       the collbench executable (default <build-dir>/bench/collbench)
  --set KEY=VALUE        config override: slurm.* keys here, the others go to collbench --set

Exit codes (the exit-code table; every error is one line on stderr): 0 ok; 2 usage,
configuration or a damaged record; 4 incomplete (collect, status: pairs missing or tasks not
done; status --wait timed out); 5 a Slurm command or the collbench build missing or failing, or
a write refused (no space, permission); 130/143 interrupted.
"""

import argparse
import filecmp
import json
import shlex
import shutil
import sys
import time
from pathlib import Path

from collrepro import safeio
from collrepro.cliargs import ArgumentParser
from collrepro.slurm.experiment import Setup
from collrepro.slurm.plan import (SCHEMA, Fail, array_spec, check_value, compress, expand, parse_mpis, point_text,
                                  ranges_text, sbatch_flags)
from collrepro.slurm.state import (SUBMISSION, collect_one, exit_text, load_submission, missing_by_task, read_json,
                                   submission_dirs, summarize, task_states, update_index, utc_now, write_json)
from collrepro.slurm.submit import (check_results_dir, max_array_size, queue_state, render_script,
                                    require_slurm_command, run_sbatch, sacct_state, sbatch_command)


def say(msg):
    """A message for the user on stderr."""
    print(msg, file=sys.stderr)


def observe(d, rec):
    """(task rows, squeue's view) of one submission directory now."""
    queue = queue_state(rec)
    return task_states(d, rec, queue, sacct_state(rec)), queue


# ------------------------------------------------------------------ plan

def _plan_lines(setup, verbose):
    s = setup.s
    yield (f"experiment {setup.experiment} ({setup.config_path}), {setup.mpi}: {len(setup.points)} points at "
           f"{setup.np} processes ({setup.skipped} combinations skipped by collbench)")
    yield (f"array: {setup.tasks} tasks = {setup.launches} launches x {setup.slices} slices; task t runs launch "
           f"t // {setup.slices}, slice t % {setup.slices} (t = launch * {setup.slices} + slice)"
           + (f" ({setup.launches_note})" if setup.launches_note else ""))
    yield (f"per task: {s['nodes']} node(s) x {s['ntasks_per_node']} tasks per node = {setup.np} processes, "
           f"time {s['time'] or '(partition default)'}, partition {s['partition'] or '(default)'}, "
           f"account {s['account'] or '(default)'}, qos {s['qos'] or '(default)'}"
           + (", overcommit" if s["overcommit"] else ""))
    launcher = (f"srun --mpi={s['srun_mpi']}" if s["launcher"] == "srun" else f"mpirun ({setup.mpiexec})")
    yield f"launcher: {launcher} {' '.join(s['launcher_flags'])}".rstrip() + f"; collbench {setup.collbench}"
    extra = " ".join(shlex.quote(x) for x in sbatch_flags(s))
    yield f"sbatch --array={array_spec(range(setup.tasks), s['throttle'])} {extra}".rstrip()
    yield " task  launch  slice  points"
    for m in setup.mapping:
        yield f"{m['task']:5d}  {m['launch']:6d}  {m['slice']:5d}  {m['first']}..{m['last']} ({m['count']})"
        if verbose:
            for p in setup.points[m["first"]:m["last"] + 1]:
                yield f"{'':21s}{p['point']:5d}  {point_text(p)}"
    yield (f"every (point, launch) pair is measured by exactly one task: {len(setup.points)} points x "
           f"{setup.launches} launches = {len(setup.points) * setup.launches} pairs")


def cmd_plan(args):
    mpis = parse_mpis(args.mpi)
    setups = [Setup(args, mpi, single=len(mpis) == 1) for mpi in mpis]
    if args.format == "json":
        docs = [st.plan_json() for st in setups]
        print(json.dumps(docs[0] if len(docs) == 1 else docs, indent=1))
        return 0
    for i, setup in enumerate(setups):
        if i:
            print()
        print("\n".join(_plan_lines(setup, args.verbose)))
    return 0


# ------------------------------------------------------------------ submit

def _check_out(out, mpis, dry_run):
    """Checks of --out and of Slurm before the (slow) collbench dry runs."""
    if not dry_run:
        require_slurm_command("sbatch")
    top = read_json(out / SUBMISSION, damaged_ok=True)  # a damaged index is rebuilt by update_index
    if isinstance(top, dict) and "mapping" in top:
        raise Fail(f"--out {out} is the {top.get('mpi')} directory of a submission: give its parent ({out.parent}); "
                   f"results go to --out/<mpi>")
    for mpi in mpis:  # fail before the (slow) dry run when the library is known
        if mpi:
            check_results_dir(out / mpi)


def _check_array_size(setups):
    limit = max_array_size()
    for st in setups:
        if limit is not None and st.tasks > limit:
            raise Fail(f"{st.tasks} tasks exceed the cluster's MaxArraySize ({limit}): use fewer --slices or "
                       f"--launches", 2)


def _write_submission_files(st, results):
    """logs/, tasks/, the stripped and the original config, the batch script; returns its path."""
    for sub in ("logs", "tasks"):
        (results / sub).mkdir(parents=True, exist_ok=True)
    safeio.write_text(results / "experiment.yaml", st.stripped_yaml())
    _copy_atomically(st.config_path, results / "config.orig.yaml")
    script = results / "collslurm.sbatch"
    safeio.write_text(script, render_script(st, results))
    script.chmod(0o755)
    return script


def _copy_atomically(source, target):
    """shutil.copyfile, but the target appears whole or not at all (safeio.atomic_file)."""
    with open(source, "rb") as src, safeio.atomic_file(target, "wb") as dst:
        shutil.copyfileobj(src, dst)


def _submit_one(st, results, dry_run):
    script = _write_submission_files(st, results)
    spec = array_spec(range(st.tasks), st.s["throttle"])
    cmd = sbatch_command(spec, st.s, script)
    record = st.plan_json()
    record.pop("point_list")
    record.update({"version": 1, "results": str(results), "script": str(script),
                   "collbench_config": str(results / "experiment.yaml"), "submissions": []})
    if dry_run:
        write_json(results / "slurm-plan.json", record)
        print(f"{st.mpi}: wrote {script} (dry run, not submitted): {' '.join(shlex.quote(c) for c in cmd)}")
        return
    job = run_sbatch(cmd, results)
    record["submissions"].append({"job_id": job, "array": spec, "tasks": list(range(st.tasks)),
                                  "utc": utc_now(), "sbatch": cmd, "kind": "submit"})
    write_json(results / SUBMISSION, record)
    update_index(results, record)
    print(f"{st.mpi}: submitted job {job}: {st.tasks} tasks ({st.launches} launches x {st.slices} slices) "
          f"of {len(st.points)} points at {st.np} processes, --array={spec}; results in {results}"
          + (f" ({st.launches_note})" if st.launches_note else ""))


def cmd_submit(args):
    mpis = parse_mpis(args.mpi)
    out = Path(args.out).resolve()
    _check_out(out, mpis, args.dry_run)
    setups = [Setup(args, mpi, single=len(mpis) == 1) for mpi in mpis]
    if not args.dry_run:
        _check_array_size(setups)
    for st in setups:
        check_results_dir(out / st.mpi)
    for st in setups:
        _submit_one(st, out / st.mpi, args.dry_run)
    if len(setups) > 1 and not args.dry_run:
        print(f"compare the libraries when done: analysis/analyze compare {out / setups[0].mpi} {out / setups[1].mpi}")
    return 0


# ------------------------------------------------------------------ status

def _status_reports(dirs):
    reports = []
    for d in dirs:
        rec = load_submission(d)
        states, queue = observe(d, rec)
        reports.append((d, rec, states, summarize(states), queue))
    return reports


def cmd_status(args):
    dirs = submission_dirs(args.dir)
    deadline = time.monotonic() + args.timeout if args.wait else None
    while True:
        reports = _status_reports(dirs)
        busy = any(c["pending"] + c["running"] > 0 for _, _, _, c, _ in reports)
        if not args.wait or not busy:
            break
        if time.monotonic() > deadline:
            print_status(reports, args)
            raise Fail(f"status --wait: tasks still pending or running after {args.timeout} s; run "
                       "`collslurm status` again later", safeio.EXIT_INCOMPLETE)
        time.sleep(args.interval)
    print_status(reports, args)
    all_done = all(c["done"] == len(st) for _, _, st, c, _ in reports)
    return safeio.EXIT_OK if all_done else safeio.EXIT_INCOMPLETE


def _status_json(reports):
    out = []
    for d, rec, states, counts, queue in reports:
        out.append({"dir": str(d), "mpi": rec["mpi"], "experiment": rec["experiment"],
                    "jobs": [s["job_id"] for s in rec.get("submissions", [])], "counts": counts,
                    "squeue": queue is not None,
                    "tasks": [{k: s[k] for k in ("task", "launch", "slice", "state", "detail", "points",
                                                  "done_points")} for s in states]})
    return json.dumps(out, indent=1)


def print_status(reports, args):
    if args.format == "json":
        print(_status_json(reports))
        return
    for d, rec, states, counts, queue in reports:
        jobs = ", ".join(str(s["job_id"]) for s in rec.get("submissions", []))
        print(f"{d}: {rec['experiment']} ({rec['mpi']}), jobs {jobs}: {len(states)} tasks: "
              + ", ".join(f"{v} {k}" for k, v in counts.items())
              + ("" if queue is not None else " (no squeue: from the files on disk)"))
        for s in states:
            if s["state"] != "done" or args.verbose:
                print(f"  task {s['task']:4d} (launch {s['launch']}, slice {s['slice']}): {s['state']}: {s['detail']}")


# ------------------------------------------------------------------ collect

def _collect_json(reports):
    return json.dumps([{"dir": str(d), "mpi": rec["mpi"], "complete": complete, "problems": problems,
                        "missing": [[p, l] for p, l, _ in missing],
                        "missing_by_task": missing_by_task(missing),
                        "missing_tasks": sorted({t for _, _, t in missing}),
                        "pairs": sum(len(st.get("pairs", [])) for st in states)}
                       for d, rec, states, problems, missing, complete in reports], indent=1)


def _print_collect(reports):
    for d, rec, states, problems, missing, complete in reports:
        npairs = rec["points"] * rec["launches"]
        print(f"{d}: {rec['experiment']} ({rec['mpi']}): {rec['points']} points x {rec['launches']} launches = "
              f"{npairs} (point, launch) pairs in {rec['tasks']} tasks: "
              f"{npairs - len(missing)} present, {len(missing)} missing")
        for p in problems:
            print(f"  error: {p}")
        for m in missing_by_task(missing):
            print(f"  missing: launch {m['launch']}, points {ranges_text(m['points'])} (task {m['task']})")


def cmd_collect(args):
    reports = []
    for d in submission_dirs(args.dir):
        rec = load_submission(d)
        states, problems, missing = collect_one(d, rec)
        reports.append((d, rec, states, problems, missing, not problems and not missing))
    if args.format == "json":
        print(_collect_json(reports))
    else:
        _print_collect(reports)
    if args.into:
        copy_results(reports, Path(args.into), args)
    if all(r[5] for r in reports):
        return 0
    tasks = sum(len({t for _, _, t in r[4]}) for r in reports)
    say(f"collslurm: incomplete: {sum(len(r[4]) for r in reports)} (point, launch) pairs missing in {tasks} "
        f"task(s)" + (f", {sum(len(r[3]) for r in reports)} problem(s)" if any(r[3] for r in reports) else "")
        + f": run `collslurm status {args.dir}`, then `collslurm resubmit {args.dir}`")
    return safeio.EXIT_INCOMPLETE


def _copy_task_files(states, dest, force):
    copied = 0
    for st in states:
        if not st["complete"]:
            continue
        for f in map(Path, st["files"].values()):
            target = dest / f.name
            if target.exists() and not filecmp.cmp(f, target, shallow=False) and not force:
                raise Fail(f"{target} exists with different content: remove it or pass --force")
            _copy_atomically(f, target)
            copied += 1
    return copied


def copy_results(reports, into, args):
    for d, rec, states, problems, missing, complete in reports:
        if not complete and not args.partial:
            say(f"collslurm: not copying {d} into {into}: incomplete (use --partial to copy the complete tasks)")
            continue
        dest = into / rec["mpi"] if len(reports) > 1 else into
        dest.mkdir(parents=True, exist_ok=True)
        copied = _copy_task_files(states, dest, args.force)
        _copy_atomically(d / SUBMISSION, dest / SUBMISSION)
        print(f"copied {copied} result files of {d} into {dest}")


# ------------------------------------------------------------------ resubmit

def _named_tasks(args, rec, states, queued):
    """--tasks LIST: those of them that are not complete; Fail on ids outside or still queued."""
    try:
        wanted = expand(args.tasks)
    except ValueError:
        raise Fail(f"--tasks {args.tasks!r}: want a list like 0-3,7") from None
    bad = [t for t in wanted if t >= rec["tasks"]]
    if bad:
        raise Fail(f"--tasks: {bad} are outside this array (0..{rec['tasks'] - 1})")
    busy = sorted(set(wanted) & queued)
    if busy:
        raise Fail(f"tasks {compress(busy)} are still pending or running: wait, or scancel them first")
    return [t for t in wanted if not states[t]["complete"]]


def _failed_tasks(d, states, include_errors):
    """The failed tasks worth another run; says why the others are left out."""
    todo, skipped = [], []
    for s in states:
        if s["state"] != "failed":
            continue
        if s["problems"] and not s["disk"].get("interrupted"):  # collbench sees it complete
            files = ", ".join(Path(f).name for f in s["disk"]["files"].values())
            say(f"collslurm: {d.name}: not resubmitting task {s['task']}: its results are inconsistent "
                f"({s['problems'][0]}); collbench would not redo them: move {files} away first")
            continue
        code = (s["attempt"] or {}).get("exit_code")
        if code in (2, 3) and not include_errors:
            skipped.append((s["task"], code))
            continue
        todo.append(s["task"])
    for t, code in skipped:
        say(f"collslurm: {d.name}: not resubmitting task {t}: it failed with {exit_text(code)}, which a "
            f"retry repeats; fix the cause (see logs/task-{t}.job-*.out), then resubmit --include-errors")
    return todo


def _tasks_to_resubmit(args, d, rec):
    states, queue = observe(d, rec)
    if args.tasks:
        return _named_tasks(args, rec, states, set(queue or {})), states  # squeue's view, never a guess
    if queue is None:
        raise Fail(f"{d}: squeue is unavailable or failed, so queued tasks cannot be told from lost ones: "
                   f"check `squeue` (SLURM_CONF?), or name the tasks with --tasks LIST", safeio.EXIT_ENVIRONMENT)
    return _failed_tasks(d, states, args.include_errors), states


def _resubmit_settings(args, rec):
    """The record's sbatch settings with the resubmit options applied."""
    s = dict(rec)
    cli = {"time": args.time, "partition": args.partition, "account": args.account, "qos": args.qos,
           "throttle": args.throttle, "sbatch_extra": args.sbatch_extra}
    for key, value in cli.items():
        if value is not None:
            s[key] = check_value(key, SCHEMA[key][0], value, "--")
    return s


def _resubmit_one(args, d, rec):
    todo, states = _tasks_to_resubmit(args, d, rec)
    if not todo:
        counts = summarize(states)
        print(f"{d}: nothing to resubmit ({counts['done']} done, {counts['pending'] + counts['running']} "
              f"pending or running, {counts['failed']} failed)")
        return
    s = _resubmit_settings(args, rec)
    spec = array_spec(todo, s["throttle"])
    cmd = sbatch_command(spec, s, rec["script"], [f"--time={s['time']}"] if args.time else [])
    if args.dry_run:
        print(f"{d}: would resubmit tasks {compress(todo)}: {' '.join(shlex.quote(c) for c in cmd)}")
        return
    require_slurm_command("sbatch")
    job = run_sbatch(cmd, d)
    rec.setdefault("submissions", []).append({"job_id": job, "array": spec, "tasks": todo, "utc": utc_now(),
                                              "sbatch": cmd, "kind": "resubmit"})
    write_json(d / SUBMISSION, rec)
    update_index(d, rec)
    print(f"{d}: resubmitted tasks {compress(todo)} as job {job} (--array={spec})")


def cmd_resubmit(args):
    for d in submission_dirs(args.dir):
        _resubmit_one(args, d, load_submission(d))
    return 0


# ------------------------------------------------------------------ command line

class Parser(ArgumentParser):
    """argparse with its errors as one line (UserError, exit 2; collrepro.cliargs)."""


def shape_options(p):
    """The options plan and submit share."""
    p.add_argument("config", help="experiment configuration (YAML)")
    p.add_argument("--np", type=int, help="processes per launch (nodes x ntasks_per_node)")
    p.add_argument("--nodes", help="nodes per task")
    p.add_argument("--ntasks-per-node", dest="ntasks_per_node", help="processes per node")
    p.add_argument("--time", help="time limit per task (HH:MM:SS, D-HH:MM, ...)")
    p.add_argument("--launches", help="launches (default: slurm.launches, else the config's launches)")
    p.add_argument("--slices", help="slices per launch")
    p.add_argument("--partition")
    p.add_argument("--account")
    p.add_argument("--qos")
    p.add_argument("--throttle", help="at most N tasks running at once (0 = no limit)")
    p.add_argument("--sbatch-extra", dest="sbatch_extra", help="more sbatch flags, as shell words")
    p.add_argument("--launcher", help="mpirun (the build's own) or srun")
    p.add_argument("--srun-mpi", dest="srun_mpi", help="srun --mpi plugin (pmix, pmi2, ...)")
    p.add_argument("--overcommit", action="store_true", help="more processes than CPUs")
    p.add_argument("--mpi", help="openmpi, mpich, or openmpi,mpich")
    p.add_argument("--build-dir", dest="build_dir", action="append", metavar="[LIB=]DIR",
                   help="CMake build holding bench/collbench (LIB=DIR per library with several --mpi)")
    p.add_argument("--collbench", help="the collbench executable")
    p.add_argument("--job-name", dest="job_name")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="config override (slurm.KEY for this tool, others for collbench)")


def _add_plan_submit(sub):
    p = sub.add_parser("plan", help="print the array an experiment turns into")
    shape_options(p)
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("-v", "--verbose", action="store_true", help="list every task's points")
    p = sub.add_parser("submit", help="write the batch script and sbatch it")
    shape_options(p)
    p.add_argument("--out", required=True, help="results directory (DIR/<mpi> per library)")
    p.add_argument("--dry-run", action="store_true", help="write the script, do not submit")


def _add_status_collect(sub):
    p = sub.add_parser("status", help="pending/running/done/failed tasks")
    p.add_argument("dir")
    p.add_argument("--wait", action="store_true", help="wait until no task is pending or running")
    p.add_argument("--timeout", type=float, default=3600, help="with --wait: give up after S seconds (exit 124)")
    p.add_argument("--interval", type=float, default=2.0, help="with --wait: seconds between polls")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("-v", "--verbose", action="store_true", help="list done tasks too")
    p = sub.add_parser("collect", help="verify completeness; copy into a results directory")
    p.add_argument("dir")
    p.add_argument("--into", help="copy the verified files here (OUT/<mpi> for several libraries)")
    p.add_argument("--partial", action="store_true", help="with --into: copy the complete tasks of an incomplete run")
    p.add_argument("--force", action="store_true", help="with --into: overwrite differing files")
    p.add_argument("--format", choices=("text", "json"), default="text")


def _add_resubmit(sub):
    p = sub.add_parser("resubmit", help="submit the missing or failed tasks again")
    p.add_argument("dir")
    p.add_argument("--time")
    p.add_argument("--partition")
    p.add_argument("--account")
    p.add_argument("--qos")
    p.add_argument("--throttle")
    p.add_argument("--sbatch-extra", dest="sbatch_extra")
    p.add_argument("--tasks", help="resubmit exactly these tasks (e.g. 0-3,7) unless complete")
    p.add_argument("--include-errors", action="store_true",
                   help="also resubmit tasks that failed with a configuration (2) or validation (3) error")
    p.add_argument("--dry-run", action="store_true")


COMMANDS = {"plan": cmd_plan, "submit": cmd_submit, "status": cmd_status, "collect": cmd_collect,
            "resubmit": cmd_resubmit}


def main(argv=None):
    """Parse argv and run the command; returns the exit code (Fail propagates: run it through
    safeio.run_cli, as run() does)."""
    parser = Parser(prog="collslurm", description=__doc__.split("\n\n")[0],
                    formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    _add_plan_submit(sub)
    _add_status_collect(sub)
    _add_resubmit(sub)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if not args.command:
        raise Fail(f"give a command: {', '.join(COMMANDS)} (collslurm --help)")
    return COMMANDS[args.command](args)


def run(argv=None):
    """slurm/collslurm: main() through safeio.run_cli: every failure is one line and an exit code
    of the table (Fail carries its own; SIGTERM is 143, Ctrl-C 130, a closed pipe 0)."""
    return safeio.run_cli("collslurm", main, argv)
