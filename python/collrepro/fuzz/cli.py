"""collrepro-py fuzz: the differential fuzzer for inter-group collectives.

  collrepro-py fuzz [--seed S] [--cases N] [--minutes M] [--max-np P] [--timeout SEC]
                    [--installations A,B] [--algorithms X,Y] [--pmpi PATH] [--out DIR]
  collrepro-py fuzz --replay fuzz/regressions [--installations A,B] [--pmpi PATH]

Case i of seed S (cases.py) runs on every installed MPI library (the registry's, derived copies
aside; --installations narrows it) through the library's own call (`native`), and, where this
clone has the PMPI library built for it, through the library's defaults and every algorithm
that offers the case's form (COLLREPRO_PMPI_FORCE). Every received byte is checked against a
reference computed without MPI (fuzz/intercase.c); a launch that does not end within --timeout
is a hang. A failure that is not a known fault of an MPI library (fuzz/known_faults.json) is
minimised and written as a standalone C reproducer (DIR/findings/<id>/repro.c); when the MPI
library's own call passes the same case, the fault is the project's and the minimised case is
also written to fuzz/regressions/ (replayed by the tests: --replay). The run stops after N
cases or M minutes; the same command resumes it (DIR/runs.jsonl). Exit 0: no new finding;
1: new findings (DIR/summary.md); 2: bad input.
"""

import datetime
import functools
import glob
import json
import os
import shlex
import sys
import time

from .. import safeio
from ..cliargs import ArgumentParser
from ..installations import collbench, registry
from ..safeio import UserError
from . import cases, minimise, reproducer, run
from .store import Store

KNOWN_FAULTS = os.path.join(run.REPO, "fuzz", "known_faults.json")
REGRESSIONS = os.path.join(run.REPO, "fuzz", "regressions")


def _bounded(kind, low, high, what):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise UserError(f"{what} {text!r} is not a number: give {low} to {high}") from None
        if not low <= value <= high:
            raise UserError(f"{what} {text}: give {low} to {high}")
        return value
    return parse


def _forms(text):
    forms = [f.strip() for f in text.split(",") if f.strip()]
    bad = [f for f in forms if f not in cases.FORMS]
    if bad or not forms:
        raise UserError(f"--forms {text!r}: unknown form {', '.join(bad) or '(none given)'}: "
                        f"use {', '.join(cases.FORMS)}")
    return set(forms)


def parser():
    p = ArgumentParser(prog="collrepro-py fuzz", description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=_bounded(int, 0, 2**31 - 1, "--seed"), default=1)
    p.add_argument("--cases", type=_bounded(int, 1, 100000, "--cases"), default=40,
                   help="cases to draw (default 40)")
    p.add_argument("--minutes", type=_bounded(float, 0.1, 10080, "--minutes"), default=30.0,
                   help="stop after this much wall time (default 30); the same command resumes")
    p.add_argument("--max-np", type=_bounded(int, 2, cases.MAX_NP, "--max-np"), default=6,
                   help="the largest world size drawn (default 6: this machine oversubscribes beyond its cores)")
    p.add_argument("--timeout", type=_bounded(float, 5, 3600, "--timeout"), default=60.0,
                   help="seconds one launch may take before it counts as a hang (default 60)")
    p.add_argument("--installations", default="",
                   help="comma-separated installation names (bench/collmpi list; openmpi and mpich name "
                        "Debian's); default: every one but the derived copies")
    p.add_argument("--algorithms", default="", help="comma-separated targets: native, defaults, algorithm names")
    p.add_argument("--forms", type=_forms, default=None,
                   help=f"comma-separated call forms to keep ({', '.join(cases.FORMS)}; default all)")
    p.add_argument("--regressions", default=REGRESSIONS,
                   help="where a fault of the project's is written as a regression case (default fuzz/regressions)")
    p.add_argument("--pmpi", default=None, help="the PMPI library to preload (one installation only)")
    p.add_argument("--out", default=None, help="the run's directory (default results/local/fuzz/seed-S)")
    p.add_argument("--no-minimise", action="store_true", help="write findings as drawn, without minimising")
    p.add_argument("--replay", default=None, metavar="DIR", help="replay the regression cases in DIR instead")
    return p


def installations(names):
    if names:
        return [registry.resolve(n.strip()) for n in names.split(",") if n.strip()]
    return [i for i in registry.all_installations() if i.origin != "derived" and os.access(i.mpicc, os.X_OK)]


def libraries(args, cache_dir):
    insts = installations(args.installations)
    if not insts:
        raise UserError("no MPI installation found (bench/collmpi list); install one with ./collrepro deps")
    if args.pmpi is not None:
        if len(insts) != 1:
            raise UserError("--pmpi names one library: give --installations with one installation")
        if not os.path.isfile(args.pmpi):
            raise UserError(f"--pmpi {args.pmpi}: no such file (build it: cmake --build build/<preset> "
                            "--target collrepro_pmpi)")
    libs = [run.library(i, cache_dir, args.pmpi) for i in insts]
    for lib in libs:
        if not lib.pmpi:
            print(f"fuzz: {lib.name}: no PMPI library built in this clone, so only its native calls are tested "
                  f"(build it: bench/collmpi collbench {lib.name} --pmpi)", file=sys.stderr)
    return libs


def algorithm_list():
    for inst in registry.all_installations():
        exe = collbench.executable(inst)
        if exe:
            return run.algorithms(exe)
    raise UserError("no collbench built in this clone to list the algorithms: run ./collrepro first")


def targets_asked(text, algos):
    """(algos, the targets --algorithms keeps or None for all). A name the catalogue does not
    know must say its collective, NAME@COLLECTIVE (a test variant's algorithm, blocking only)."""
    names = [a.strip() for a in text.split(",") if a.strip()]
    known = {run.NATIVE, run.DEFAULTS} | {n for listed in algos.values() for n, _, _ in listed}
    algos = {c: list(v) for c, v in algos.items()}
    only = set()
    for name in names:
        if "@" in name:
            name, _, coll = name.partition("@")
            if coll not in cases.COLLECTIVES:
                raise UserError(f"--algorithms {name}@{coll}: the collective is one of {', '.join(cases.COLLECTIVES)}")
            algos.setdefault(coll, []).append((name, ["blocking"], "both"))
        elif name not in known:
            raise UserError(f"--algorithms: unknown algorithm {safeio.excerpt(name, 40)!r}: use native, defaults, "
                            f"one of collbench --list-algorithms, or NAME@COLLECTIVE for a test variant's")
        only.add(name)
    return algos, only or None


@functools.lru_cache(maxsize=1)
@functools.lru_cache(maxsize=None)
def _known_faults():
    with open(KNOWN_FAULTS, encoding="utf-8") as f:
        return json.load(f)["faults"]


def known_fault(lib, case, target):
    """The known fault of an MPI library this failure is, or ''."""
    faults = _known_faults()
    words = set(cases.to_line(case).split())
    for k in faults:
        if (k["kind"] == lib.inst.kind and lib.inst.version in k["versions"] and k["coll"] == case["coll"]
                and case["form"] in k["forms"] and target in k["targets"] and words.issuperset(k.get("case_words", []))):
            return k["what"]
    return ""


def _record(index, case, lib, target, outcome, batch):
    return {"type": "case", "index": index, "case": cases.to_line(case), "np": case["np"], "coll": case["coll"],
            "form": case["form"], "installation": lib.name, "version": lib.inst.version, "target": target,
            "outcome": outcome.kind, "seconds": round(outcome.seconds, 3), "batch": batch,
            "detail": outcome.detail}


def write_finding(store, index, case, lib, target, outcome, native_ok, args, batch=None):
    """Minimise a failure, write its reproducer (and a regression case when the fault is the
    project's); the finding's dict. A failure that passes alone (`batch`: the cases of its
    launch up to it) is written as drawn with them (batch.txt: intercase -f batch.txt), its
    fault undetermined."""
    batch_only = batch is not None
    fid = f"{lib.name}-{target}-{case['coll']}-{case['form']}-{outcome.kind}-c{index}" + ("-batch" if batch_only else "")
    small, launches = case, 0
    if not args.no_minimise and not batch_only:
        def fails(c):
            return run.launch_one(c, lib, target, args.timeout).kind == outcome.kind
        small, launches = minimise.minimise(case, fails)
    fault = ("undetermined: it failed after the earlier cases of its launch and passes alone" if batch_only else
             "the MPI library's" if target == run.NATIVE else
             "the project's (the MPI library's own call passes it)" if native_ok else
             "the MPI library's too (native fails)")
    finding = {"id": fid, "index": index, "installation": lib.name, "version": lib.inst.version, "target": target,
               "outcome": outcome.kind, "detail": outcome.detail, "fault": fault, "case": cases.to_line(small),
               "np": small["np"], "coll": small["coll"], "form": small["form"], "case_text": cases.describe(small),
               "drawn": cases.to_line(case), "minimise_launches": launches, "batch_only": batch_only,
               "known": known_fault(lib, small, target)}
    where = store.finding_dir(fid)
    with open(run.SOURCE, encoding="utf-8") as f:
        source = f.read()
    safeio.write_text(os.path.join(where, "repro.c"), reproducer.reproducer(source, small, finding))
    safeio.write_text(os.path.join(where, "case.txt"), f"np={small['np']} {cases.to_line(small)}\n")
    if batch_only:
        safeio.write_text(os.path.join(where, "batch.txt"), "".join(cases.to_line(c) + "\n" for c in batch))
    if native_ok and target != run.NATIVE and not batch_only:
        regression = {"np": small["np"], "case": cases.to_line(small), "target": target, "found_on": lib.name,
                      "found": datetime.date.today().isoformat(), "outcome": outcome.kind, "detail": outcome.detail}
        path = os.path.join(args.regressions, f"{fid}.json")
        safeio.write_json(path, regression)
        finding["regression"] = path
    safeio.write_json(os.path.join(where, "finding.json"), finding)
    return finding


def _eta_seconds(started, done, left):
    """Seconds for `left` more cases at this invocation's rate (`done` cases so far)."""
    return (time.monotonic() - started) / done * left if done else 0.0


def _clock(seconds):
    return f"{int(seconds // 3600)}:{int(seconds % 3600 // 60):02d}:{int(seconds % 60):02d}"


PROGRESS_S = 20  # a launch that took longer gets its own progress line
ROUND = 1000  # cases drawn at a time; each (library, target, world size) of a round is one batch


def run_round(store, libs, algos, only, indices, args, seen, done):
    """Runs cases `indices` on every library and target, in batches; returns (new findings that
    are not known faults, failures)."""
    drawn = {i: cases.draw(args.seed, i, args.max_np) for i in indices}
    drawn = {i: c for i, c in drawn.items() if args.forms is None or c["form"] in args.forms}
    new = failures = 0
    for lib in libs:
        native_ok = {}
        plan = {}  # (target, np) -> [case indices]
        for i, case in drawn.items():
            for target in run.targets(case, lib, algos, only):
                if (i, lib.name, target) not in done:
                    plan.setdefault((target, case["np"]), []).append(i)
        for r in store.case_records():  # what an earlier, interrupted run already knows of native
            if r["installation"] == lib.name and r["target"] == run.NATIVE and r["index"] in drawn:
                native_ok[r["index"]] = r["outcome"] == run.OK
        for (target, np), batch in sorted(plan.items(), key=lambda kv: (kv[0][0] != run.NATIVE, kv[0])):
            result = run.launch([drawn[i] for i in batch], lib, target, args.timeout)
            bid = f"{lib.name}/{target}/np{np}/{batch[0]}-{batch[-1]}"
            if result.seconds > PROGRESS_S:  # a round can take half an hour on a busy-polling MPI
                print(f"fuzz:   {bid}: {len(batch)} cases in {result.seconds:.0f} s", file=sys.stderr)
            store.add({"type": "batch", "batch": bid, "installation": lib.name, "target": target, "np": np,
                       "cases": len(batch), "launches": result.launches, "seconds": round(result.seconds, 3),
                       "served": result.served})
            for i, outcome in zip(batch, result.outcomes):
                case = drawn[i]
                batch_only = False
                failed = outcome.kind in run.FAILURES
                if failed and known_fault(lib, case, target):  # already characterised: a launch alone adds nothing
                    outcome = run.Outcome(outcome.kind, outcome.seconds,
                                          f"{outcome.detail} (a known fault: not run again alone)")
                elif failed and len(batch) > 1:  # confirm alone, in a fresh launch
                    alone = run.launch_one(case, lib, target, args.timeout)
                    batch_only = alone.kind == run.OK
                    if alone.kind != outcome.kind:
                        outcome = run.Outcome(outcome.kind, outcome.seconds,
                                              f"{outcome.detail} (alone, in a launch of its own: {alone.kind})")
                store.add(_record(i, case, lib, target, outcome, bid))
                if target == run.NATIVE:
                    native_ok[i] = outcome.kind == run.OK
                if outcome.kind not in run.FAILURES:
                    continue
                failures += 1
                key = (lib.name, target, outcome.kind, case["coll"], case["form"], batch_only)
                if key in seen:
                    continue
                seen.add(key)
                before = [drawn[j] for j in batch[:batch.index(i) + 1]] if batch_only else None
                finding = write_finding(store, i, case, lib, target, outcome, native_ok.get(i, False), args,
                                        before)
                new += 0 if finding["known"] else 1
                print(f"fuzz: FINDING {finding['id']}: {outcome.kind}, {finding['fault']}"
                      f"{'; known: ' + finding['known'][:80] if finding['known'] else ''}: {finding['case_text']}: "
                      f"{outcome.detail[:160]}", file=sys.stderr)
    return new, failures


def fuzz(args):
    out = args.out or os.path.join(run.REPO, "results", "local", "fuzz", f"seed-{args.seed}")
    settings = {"seed": args.seed, "max_np": args.max_np, "host": _host(),
                "command": "collrepro-py fuzz " + " ".join(shlex.quote(a) for a in argv_of(args))}
    libs = libraries(args, os.path.join(run.REPO, "build", "fuzz"))
    settings["idle_yield"] = [lib.name for lib in libs if lib.idle_yield]
    algos, only = targets_asked(args.algorithms, algorithm_list())
    store = Store(out, settings)
    done = store.done()
    seen = {(f["installation"], f["target"], f["outcome"], f["coll"], f["form"], f.get("batch_only", False))
            for f in store.findings()}
    started, deadline = time.monotonic(), time.monotonic() + args.minutes * 60
    new = failures = fresh = 0
    stopped = ""
    print(f"fuzz: seed {args.seed}, {args.cases} cases on {', '.join(lib.name for lib in libs)}; "
          f"{len(done)} case runs already in {out}", file=sys.stderr)
    for first in range(0, args.cases, ROUND):
        if time.monotonic() > deadline:
            stopped = f"--minutes {args.minutes:g} reached after {first} cases"
            break
        indices = range(first, min(first + ROUND, args.cases))
        resumed = all((i, lib.name, run.NATIVE) in done for i in indices for lib in libs)
        n, f = run_round(store, libs, algos, only, indices, args, seen, done)
        new, failures = new + n, failures + f
        fresh += 0 if resumed else len(indices)
        left = min(_eta_seconds(started, fresh, args.cases - indices[-1] - 1), max(0.0, deadline - time.monotonic()))
        print(f"fuzz: {indices[-1] + 1}/{args.cases} cases{' (already run)' if resumed else ''}, {failures} failures, "
              f"{new} new findings ({int(time.monotonic() - started)} s, ETA {_clock(left)})", file=sys.stderr)
    found = store.summary(settings, stopped)
    unknown = [f for f in found if not f.get("known")]
    print(f"fuzz: {len(store.case_records())} case runs, {len(found)} findings ({len(unknown)} not known faults)"
          f"{'; ' + stopped if stopped else ''}: {os.path.join(out, 'summary.md')}", file=sys.stderr)
    return 1 if new else 0


def argv_of(args):
    return args.argv


def _host():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            model = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "?")
    except OSError:
        model = "?"
    return f"{model}, {os.cpu_count()} cores"


def replay(args):
    """Every regression case in args.replay on every selected installation with a PMPI library:
    all must pass. Exit 1 naming the ones that do not."""
    files = sorted(glob.glob(os.path.join(args.replay, "*.json"))) if os.path.isdir(args.replay) else [args.replay]
    if not files or not all(os.path.isfile(f) for f in files):
        raise UserError(f"--replay {args.replay}: no regression cases (*.json) there")
    libs = [lib for lib in libraries(args, os.path.join(run.REPO, "build", "fuzz")) if lib.pmpi]
    if not libs:
        raise UserError("--replay needs a PMPI library: build it (./collrepro test) or give --pmpi")
    failed = 0
    for path in files:
        reg = safeio.load_json_file(path, 1 << 20, "a regression case")
        try:
            case = cases.from_line(reg["case"], reg["np"])
        except (KeyError, ValueError) as err:
            raise UserError(f"{path}: not a regression case: {err}") from None
        for lib in libs:
            result = run.launch([case], lib, reg["target"], args.timeout)
            outcome = result.outcomes[0]
            failed += outcome.kind != run.OK
            print(f"fuzz replay: {os.path.basename(path)} on {lib.name} through {reg['target']}: {outcome.kind}"
                  f" ({outcome.detail[:160]}; served {result.served.get(case['coll'], {})})")
    print(f"fuzz replay: {len(files)} cases x {len(libs)} libraries, {failed} failed")
    return 1 if failed else 0


def main(argv=None):
    args = parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return replay(args) if args.replay else fuzz(args)
