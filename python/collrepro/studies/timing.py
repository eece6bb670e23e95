"""The synchronization-method study: how reproducible is each way of starting a repetition?

For each process-synchronization method (barrier, double-barrier, window with the linear or
the hierarchical clock synchronization, round-time) and each process count, the same
experiment (configs/timing/sync-methods.yaml: native inter- and intra-communicator
MPI_Allgather at 1 KiB, 64 KiB and 1 MiB) runs as separate launches. What is compared:

- spread: max / min of the per-launch medians of a point (1.0 = every launch agreed);
- invalid: the share of repetitions a late start invalidated (global-clock methods);
- sync_s: what the clock synchronization cost at the start of a launch (median over launches);
- residual: every rank's offset to rank 0 measured right after a synchronization and again
  `--later` seconds after it (collbench --clock-check), per clock-synchronization algorithm.

Commands (bench/timing-study is the wrapper):
  run     [--out DIR] [--mpi openmpi|mpich|NAME] [--nps 2,4,8,16] [--methods a,b] [--launches N]
          [--later S]   runs what is missing (resumable: collrun resumes launches, residual
                        files that exist are kept), with a progress line and ETA per block
  sim     [--out DIR] [--np 1024] [--ppn 1] [--platform XML]   both clock synchronizations in
          SimGrid (the smpi build): their simulated time, messages and rounds
  report  DIR [-o OUT]  study.csv, residuals.csv, study.md and spread.png (and sim.csv, sim.md)
                        into OUT (default DIR/report), a directory replaced whole

Runs of more processes than cores are flagged in every table (`oversubscribed`): their
spread says more about the scheduler than about the method.
"""

import contextlib
import glob
import io
import os
import subprocess
import sys
import time

from collrepro import paths, resultfiles, safeio
from collrepro.launch import collrun, runs
from collrepro.launch.launcher import exit_code
from collrepro.sim.running import run as sim_module
from collrepro.cliargs import ArgumentParser
from collrepro.safeio import UserError

REPO = paths.REPO
CONFIG = os.path.join(REPO, "configs", "timing", "sync-methods.yaml")
METHODS = {
    "barrier": ["timing.sync=barrier"],
    "double-barrier": ["timing.sync=double-barrier"],
    "window-linear": ["timing.sync=window", "timing.clock_sync=linear"],
    "window-hierarchical": ["timing.sync=window", "timing.clock_sync=hierarchical"],
    "round-time": ["timing.sync=round-time", "timing.clock_sync=hierarchical"],
}
CLOCK_SYNCS = ("linear", "hierarchical")
DEFAULT_NPS = (2, 4, 8, 16)
JSON_LIMIT = 16 * safeio.MIB   # a launch's metadata or a --clock-check record: a few KiB


def _say(message):
    print(f"[timing-study] {message}", file=sys.stderr, flush=True)


def _duration(seconds):
    seconds = int(round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def _sets(method):
    out = []
    for s in METHODS[method]:
        out += ["--set", s]
    return out


def _run_block(opts, method, np_):
    out = os.path.join(opts.out, method, f"np{np_}")
    argv = ["--mpi", opts.mpi, "--np", str(np_), "--launches", str(opts.launches), "--out", out]
    if opts.build_dir:
        argv += ["--build-dir", opts.build_dir]
    return collrun.collrun(argv + [CONFIG, "--", "--quiet"] + _sets(method))


def _clock_check(opts, kind, np_):
    path = os.path.join(opts.out, "residual", f"{kind}-np{np_}.json")
    if os.path.exists(path):
        return 0
    run = runs.collbench_run(opts.mpi, np_, opts.build_dir)
    cmd = run.launcher.command(np_, [run.exe, CONFIG, "--quiet", "--set", f"timing.clock_sync={kind}",
                                     "--clock-check", str(opts.later)])
    line, rc = _json_line(cmd, run.env)
    if line is None:
        _say(f"clock check {kind} at {np_} processes failed (exit {rc})")
        return rc or safeio.EXIT_INCOMPLETE
    safeio.write_text(path, line + "\n")
    return 0


def _json_line(cmd, env=None):
    """The one JSON line a --clock-check run prints, or None; and the exit code."""
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True)
    rc = exit_code(proc.returncode)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
    if rc != 0 or len(lines) != 1:
        return None, rc
    try:
        safeio.parse_json(lines[0], "the --clock-check line")
    except UserError:
        return None, rc
    return lines[0], rc


def sim(opts):
    """Both clock synchronizations at opts.np simulated ranks: their simulated cost."""
    for kind in CLOCK_SYNCS:
        path = os.path.join(opts.out, "sim", f"{kind}-np{opts.np}.json")
        if os.path.exists(path):
            continue
        t0 = time.monotonic()
        cmd = [os.path.join(REPO, "bench", "sim", "simrun"), "--platform", opts.platform, "--np", str(opts.np),
               "--ppn", str(opts.ppn), CONFIG, "--", "--quiet", "--clock-check", "0",
               f"--set=timing.clock_sync={kind}"]
        line, rc = _json_line(cmd)
        if line is None:
            _say(f"simulated clock check {kind} at {opts.np} ranks failed (exit {rc})")
            return rc or safeio.EXIT_INCOMPLETE
        j = safeio.parse_json(line, "the --clock-check line")
        j["platform"], j["ppn"], j["wall_s"] = os.path.relpath(opts.platform, REPO), opts.ppn, time.monotonic() - t0
        safeio.write_json(path, j, indent=None)
        _say(f"{kind} at {opts.np} simulated ranks: {j['sync_cost']['seconds'] * 1e3:.3f} ms simulated, "
             f"{j['sync_cost']['messages']} messages, {j['sync_cost']['rounds']} rounds ({_duration(j['wall_s'])} wall)")
    return 0


def run(opts):
    blocks = [("sweep", m, n) for n in opts.nps for m in opts.methods]
    blocks += [("check", k, n) for n in opts.nps for k in CLOCK_SYNCS]
    start = time.monotonic()
    for i, (what, name, np_) in enumerate(blocks):
        t0 = time.monotonic()
        rc = _run_block(opts, name, np_) if what == "sweep" else _clock_check(opts, name, np_)
        if rc != 0:
            then = ("fix what the line above says, then re-run: finished blocks are kept"
                    if rc in (safeio.EXIT_BAD_INPUT, safeio.EXIT_VALIDATION) else "re-run to resume")
            _say(f"stopped at {what} {name} np{np_} (exit {rc}); {then}")
            return rc
        done = i + 1
        eta = (time.monotonic() - start) / done * (len(blocks) - done)
        _say(f"{done}/{len(blocks)} {what} {name} np{np_} in {_duration(time.monotonic() - t0)}, ETA {_duration(eta)}")
    _say(f"complete in {_duration(time.monotonic() - start)}: analyse with 'timing-study report {opts.out}'")
    return 0


# ------------------------------------------------------------------ report

def _oversubscribed(record):
    """The metadata's oversubscription record (one node's map, or a list of them)."""
    records = record if isinstance(record, list) else [record or {}]
    return any(bool(r.get("oversubscribed")) for r in records)


REDO = "move it away and re-run 'timing-study run' with the same options: that block runs again"


@contextlib.contextmanager
def _reading(path):
    """Turns a result file that lacks what the report needs into one UserError line naming it."""
    try:
        yield
    except UserError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ZeroDivisionError) as err:
        what = f"{type(err).__name__}: {safeio.excerpt(err)}"
        raise UserError(f"{path}: not a result the report can read ({what}); {REDO}") from None


def _read_json(path):
    record = safeio.parse_json(resultfiles.read_text(path, JSON_LIMIT, "a timing-study record"), path)
    if not isinstance(record, dict):
        raise UserError(f"{path}: not a JSON object; {REDO}")
    return record


def invalid_share(repetitions, invalid):
    """The share of the repetitions that were invalid; collbench's n counts every repetition,
    valid or not, so the invalid ones are part of it, never added to it."""
    return float(invalid / repetitions) if repetitions else 0.0


def launches_under_half(n, invalid):
    """How many launches kept fewer than half of their repetitions (their median rests on a
    minority of what was measured: the point is flagged in the summary and the report)."""
    return int(((n - invalid) * 2 < n).sum())


def _block_rows(directory, method, np_, notes):
    if not resultfiles.result_files(directory, ["summary"])["summary"]:   # plain or .gz
        return []
    from collrepro.analysis.loading import loader   # the contract's reader: checked columns, values, integrity

    results = loader.load_summaries(directory, notes)
    s = results.summary
    sync_s, oversub = [], False
    for m in results.metas:
        with _reading(m["_path"]):
            sync_s.append(float(m["sync"]["sync_cost"]["seconds"]))
            oversub = oversub or _oversubscribed(m.get("oversubscription"))
    rows = []
    with _reading(directory):
        for (coll, size), g in s.groupby(["collective", "msg_bytes"]):
            med = g["median"].astype(float)
            n, invalid = g["n"].astype(int), g["n_invalid"].astype(int)  # n counts every repetition
            rows.append({"method": method, "nprocs": np_, "collective": coll, "msg_bytes": int(size),
                         "launches": len(g), "median_s": float(med.median()), "spread": float(med.max() / med.min()),
                         "invalid_rate": invalid_share(n.sum(), invalid.sum()),
                         "launches_under_half": launches_under_half(n, invalid),
                         "sync_s": float(sorted(sync_s)[len(sync_s) // 2]) if sync_s else float("nan"),
                         "oversubscribed": int(oversub)})
    return rows


def _check_files(directory, sub):
    """(path, record) of the --clock-check records DIR/sub/*.json, in name order."""
    for path in sorted(glob.glob(os.path.join(directory, sub, "*.json"))):
        yield path, _read_json(path)


def _residual_rows(directory):
    rows = []
    for path, j in _check_files(directory, "residual"):
        with _reading(path):
            rows.append({"clock_sync": j["clock_sync"], "nprocs": j["nprocs"], "clock": j["clock"],
                         "sync_s": j["sync_cost"]["seconds"], "sync_messages": j["sync_cost"]["messages"],
                         "sync_rounds": j["sync_cost"]["rounds"],
                         "sync_bound_s": j["after_sync"]["max_sync_bound_s"],
                         "residual_after_s": j["after_sync"]["max_abs_offset_s"],
                         "check_error_after_s": j["after_sync"]["max_error_s"],
                         "later_s": j["later_s"], "residual_later_s": j["later"]["max_abs_offset_s"],
                         "check_error_later_s": j["later"]["max_error_s"],
                         "drift_residual": j["drift_residual"], "drift_resolution": j["drift_resolution"]})
    return rows


def _sim_rows(directory):
    rows = []
    for path, j in _check_files(directory, "sim"):
        with _reading(path):
            rows.append({"clock_sync": j["clock_sync"], "nprocs": j["nprocs"], "ppn": j["ppn"],
                         "platform": j["platform"], "simulated_sync_s": j["sync_cost"]["seconds"],
                         "messages": j["sync_cost"]["messages"], "rounds": j["sync_cost"]["rounds"],
                         "wall_s": j["wall_s"]})
    return rows


def _sim_markdown(rows):
    lines = ["| clock sync | ranks | platform | simulated sync time | messages | rounds | cost / hierarchical's |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    hier = {(r["nprocs"], r["platform"]): r["simulated_sync_s"] for r in rows if r["clock_sync"] == "hierarchical"}
    for r in sorted(rows, key=lambda r: (r["nprocs"], r["clock_sync"])):
        h = hier.get((r["nprocs"], r["platform"]))
        ratio = f"{r['simulated_sync_s'] / h:.1f}" if h else "n/a"
        lines.append(f"| {r['clock_sync']} | {r['nprocs']} x {r['ppn']} ppn | {r['platform']} | "
                     f"{r['simulated_sync_s'] * 1e3:.3f} ms | {r['messages']} | {r['rounds']} | {ratio} |")
    return "\n".join(lines) + "\n"


def _figure(study, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted(study["msg_bytes"].unique())
    methods = [m for m in METHODS if m in set(study["method"])]
    fig, axes = plt.subplots(1, len(sizes), figsize=(4.2 * len(sizes), 4), sharey=True, squeeze=False)
    markers = {"allgather": "o", "intra-allgather": "s"}
    for ax, size in zip(axes[0], sizes):
        part = study[study["msg_bytes"] == size]
        nps = sorted(part["nprocs"].unique())
        for np_ in nps:
            over = bool(part[part["nprocs"] == np_]["oversubscribed"].max())
            for coll, marker in markers.items():
                g = part[(part["nprocs"] == np_) & (part["collective"] == coll)].set_index("method").reindex(methods)
                # one rank per core drawn bold; oversubscribed (scheduler-bound) runs faded
                ax.plot(range(len(methods)), g["spread"], marker=marker, linestyle="-" if coll == "allgather" else ":",
                        color=f"C{nps.index(np_)}", alpha=0.45 if over else 1.0, linewidth=1.0 if over else 2.2,
                        label=f"{np_} ranks, {'inter' if coll == 'allgather' else 'intra'}{' (oversub.)' if over else ''}")
        ax.set_xticks(range(len(methods)))
        ax.set_xticklabels(methods, rotation=30, ha="right")
        ax.set_title(f"{size // 1024} KiB" if size < 1 << 20 else f"{size >> 20} MiB")
        ax.set_yscale("log")
        ax.axhline(1.1, color="grey", linewidth=0.7, linestyle="--")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("spread: max / min of the launch medians")
    axes[0][-1].legend(fontsize=7, ncol=2)
    over = sorted(study[study["oversubscribed"] == 1]["nprocs"].unique())
    note = f"oversubscribed (more ranks than cores, scheduler-bound): {', '.join(map(str, over))} ranks" if over else ""
    fig.suptitle("Native MPI_Allgather, per-launch median spread by synchronization method")
    if note:
        fig.text(0.01, 0.005, note, fontsize=8, color="firebrick")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _markdown(study, residuals):
    import pandas as pd

    lines = ["Invalid: the share of all repetitions dropped for a late start. Kept under half: the launches "
             "that kept fewer than half of their repetitions; their medians rest on a minority of what was "
             "measured (flagged **thin**).", "",
             "| method | ranks | collective | size | launches | median | spread | invalid | kept under half | sync time |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in study.sort_values(["nprocs", "collective", "msg_bytes", "method"]).itertuples():
        flag = " (oversubscribed)" if r.oversubscribed else ""
        size = f"{r.msg_bytes >> 20} MiB" if r.msg_bytes >= 1 << 20 else f"{r.msg_bytes >> 10} KiB"
        thin = f"**thin**: {r.launches_under_half} of {r.launches}" if r.launches_under_half else "0"
        lines.append(f"| {r.method} | {r.nprocs}{flag} | {r.collective} | {size} | {r.launches} | "
                     f"{r.median_s * 1e6:.1f} us | {r.spread:.2f} | {100 * r.invalid_rate:.1f} % | {thin} | "
                     f"{r.sync_s * 1e3:.2f} ms |")
    if len(residuals):
        lines += ["", "| clock sync | ranks | sync time | messages | rounds | claimed bound | residual after sync (check error) "
                  "| seconds later | residual then (check error) | drift residual (s/s) |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in residuals.sort_values(["nprocs", "clock_sync"]).itertuples():
            drift = "n/a" if pd.isna(r.drift_residual) else f"{r.drift_residual:.1e} (resolution {r.drift_resolution:.1e})"
            lines.append(f"| {r.clock_sync} | {r.nprocs} | {r.sync_s * 1e3:.2f} ms | {r.sync_messages} | {r.sync_rounds} | "
                         f"{r.sync_bound_s * 1e6:.1f} us | "
                         f"{r.residual_after_s * 1e6:.1f} us ({r.check_error_after_s * 1e6:.1f} us) | {r.later_s:.1f} | "
                         f"{r.residual_later_s * 1e6:.1f} us ({r.check_error_later_s * 1e6:.1f} us) | {drift} |")
    return "\n".join(lines) + "\n"


def _figure_png(study):
    """spread.png's bytes (drawn in memory, so that the file is written whole)."""
    buf = io.BytesIO()
    _figure(study, buf)
    return buf.getvalue()


def _write_file(path, data):
    path.write_bytes(data)


def _write_together(out, files):
    """Write {name: bytes} as the directory `out`, all or none: it is built aside and swapped in
    whole (safeio.atomic_dir), so a fault at any moment leaves the previous report as it was."""
    with safeio.atomic_dir(out, "timing-study report") as staging:
        for name, data in files.items():
            _write_file(staging / name, data)


def report(directory, out):
    """The report files of a study directory into `out`. Everything is read and drawn first, then
    written together as one directory (_write_together), so a fault leaves the previous report whole. Raises
    UserError (one line) when there is nothing to report or a result file is damaged."""
    import pandas as pd

    if not os.path.isdir(directory):
        raise UserError(f"{directory}: no such directory (give the --out of 'timing-study run')")
    rows, notes = [], []   # notes: blocks of an earlier contract version, read as the current one
    for method in METHODS:
        for d in sorted(glob.glob(os.path.join(directory, method, "np*"))):
            if os.path.basename(d)[2:].isdigit():
                rows += _block_rows(d, method, int(os.path.basename(d)[2:]), notes)
    sim_rows = _sim_rows(directory)
    if not rows and not sim_rows:
        raise UserError(f"{directory}: no study results (run 'timing-study run --out {directory}' first)")
    files = {}
    if sim_rows:
        files["sim.csv"] = pd.DataFrame(sim_rows).to_csv(index=False).encode()
        files["sim.md"] = _sim_markdown(sim_rows).encode()
    if rows:
        study = pd.DataFrame(rows)
        residuals = pd.DataFrame(_residual_rows(directory))
        files["study.csv"] = study.to_csv(index=False).encode()
        files["residuals.csv"] = residuals.to_csv(index=False).encode()
        files["study.md"] = _markdown(study, residuals).encode()
        files["spread.png"] = _figure_png(study)
    _write_together(out, files)
    if notes:   # one line for the whole study, after the report is safely written
        _say(f"note: {len(notes)} migration note(s) for blocks of an earlier contract version, read in memory "
             f"(`analysis/analyze migrate DIR` rewrites a block)")
    _say(f"wrote {', '.join(files)} into {out}"
         + ("" if rows else f" (no study results yet: run 'timing-study run --out {directory}')"))
    return 0


def _list(text, kind, allowed=None):
    items = [t for t in text.split(",") if t]
    if allowed is not None:
        bad = [t for t in items if t not in allowed]
        if bad:
            raise UserError(f"unknown {kind} {', '.join(bad)} (use {', '.join(allowed)})")
    return items


def _check_installation(opts):
    """Before any MPI work: the --mpi library or installation is known and collbench is built for
    it (UserError naming the installations known, exit 2; EnvironmentProblem, exit 5)."""
    runs.collbench_run(opts.mpi, max(opts.nps), opts.build_dir)


def main(argv=None):
    """timing-study's command line; raises UserError (exit 2) / EnvironmentProblem (exit 5):
    run it through safeio.run_cli."""
    ap = ArgumentParser(prog="timing-study", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", default=os.path.join(REPO, "results", "local", "timing-study"))
    r.add_argument("--mpi", default="openmpi", help="openmpi, mpich or an installation name (bench/collmpi list)")
    r.add_argument("--build-dir", default="")
    r.add_argument("--nps", default=",".join(map(str, DEFAULT_NPS)))
    r.add_argument("--methods", default=",".join(METHODS))
    r.add_argument("--launches", type=int, default=10)
    r.add_argument("--later", type=int, default=10, help="seconds between the two residual checks (0..600)")
    m = sub.add_parser("sim")
    m.add_argument("--out", default=os.path.join(REPO, "results", "local", "timing-study"))
    m.add_argument("--np", type=int, default=1024)
    m.add_argument("--ppn", type=int, default=1)
    m.add_argument("--platform", default=os.path.join(REPO, "configs", "platforms", "cori-dragonfly.xml"))
    p = sub.add_parser("report")
    p.add_argument("dir")
    p.add_argument("-o", "--out", default="")
    opts = ap.parse_args(argv)
    if opts.cmd == "report":
        return report(opts.dir, opts.out or os.path.join(opts.dir, "report"))
    if opts.cmd == "sim":
        if not 2 <= opts.np <= 1 << 16 or not 1 <= opts.ppn <= opts.np:
            raise UserError("sim --np must be 2..65536 and --ppn 1..np")
        sim_module.cluster_of(opts.platform)  # the platform file, checked (one line) before simrun starts
        return sim(opts)
    opts.methods = _list(opts.methods, "method", list(METHODS))
    try:
        opts.nps = [int(n) for n in _list(opts.nps, "process count")]
    except ValueError:
        raise UserError(f"--nps {opts.nps}: want process counts like 2,4,8") from None
    if not opts.nps or any(n < 2 or n > 256 for n in opts.nps):
        raise UserError("--nps: each process count must be 2..256")
    if not opts.methods:
        raise UserError(f"--methods: name at least one of {', '.join(METHODS)}")
    if not 1 <= opts.launches <= 1000 or not 0 <= opts.later <= 600:
        raise UserError("--launches must be 1..1000 and --later 0..600")
    _check_installation(opts)
    return run(opts)

