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
  run     [--out DIR] [--mpi openmpi|mpich] [--nps 2,4,8,16] [--methods a,b] [--launches N]
          [--later S]   runs what is missing (resumable: collrun resumes launches, residual
                        files that exist are kept), with a progress line and ETA per block
  report  DIR [-o OUT]  study.csv, residuals.csv, study.md and spread.png from a run's DIR

Runs of more processes than cores are flagged in every table (`oversubscribed`): their
spread says more about the scheduler than about the method.
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import time

from . import launch

REPO = launch.REPO
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
    return launch.collrun(argv + [CONFIG, "--", "--quiet"] + _sets(method))


def _clock_check(opts, kind, np_):
    path = os.path.join(opts.out, "residual", f"{kind}-np{np_}.json")
    if os.path.exists(path):
        return 0
    exe = os.path.join(opts.build_dir or os.path.join(REPO, "build", opts.mpi), "bench", "collbench")
    runner = launch.Launcher(opts.mpi, oversubscribe=True)
    env = launch.mpi_environment(opts.mpi, oversubscribed=np_ > len(os.sched_getaffinity(0)))
    cmd = runner.command(np_, [exe, CONFIG, "--quiet", "--set", f"timing.clock_sync={kind}",
                               "--clock-check", str(opts.later)])
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
    if proc.returncode != 0 or len(lines) != 1:
        _say(f"clock check {kind} at {np_} processes failed (exit {proc.returncode})")
        return proc.returncode or 1
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(lines[0] + "\n")
    os.replace(tmp, path)
    return 0


def run(opts):
    blocks = [("sweep", m, n) for n in opts.nps for m in opts.methods]
    blocks += [("check", k, n) for n in opts.nps for k in CLOCK_SYNCS]
    start = time.monotonic()
    for i, (what, name, np_) in enumerate(blocks):
        t0 = time.monotonic()
        rc = _run_block(opts, name, np_) if what == "sweep" else _clock_check(opts, name, np_)
        if rc != 0:
            _say(f"stopped at {what} {name} np{np_} (exit {rc}); re-run to resume")
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


def _block_rows(directory, method, np_):
    import pandas as pd

    summaries = sorted(glob.glob(os.path.join(directory, "summary-L*.csv")))
    metas = sorted(glob.glob(os.path.join(directory, "meta-L*.json")))
    if not summaries:
        return []
    s = pd.concat([pd.read_csv(p) for p in summaries], ignore_index=True)
    sync_s, oversub = [], False
    for p in metas:
        with open(p, encoding="utf-8") as f:
            m = json.load(f)
        sync_s.append(m["sync"]["sync_cost"]["seconds"])
        oversub = oversub or _oversubscribed(m.get("oversubscription"))
    rows = []
    for (coll, size), g in s.groupby(["collective", "msg_bytes"]):
        med = g["median"].astype(float)
        reps = g["n"].astype(int).sum() + g["n_invalid"].astype(int).sum()
        rows.append({"method": method, "nprocs": np_, "collective": coll, "msg_bytes": int(size),
                     "launches": len(g), "median_s": float(med.median()), "spread": float(med.max() / med.min()),
                     "invalid_rate": float(g["n_invalid"].astype(int).sum() / reps) if reps else 0.0,
                     "sync_s": float(sorted(sync_s)[len(sync_s) // 2]) if sync_s else float("nan"),
                     "oversubscribed": int(oversub)})
    return rows


def _residual_rows(directory):
    rows = []
    for path in sorted(glob.glob(os.path.join(directory, "residual", "*.json"))):
        with open(path, encoding="utf-8") as f:
            j = json.load(f)
        rows.append({"clock_sync": j["clock_sync"], "nprocs": j["nprocs"], "clock": j["clock"],
                     "sync_s": j["sync_cost"]["seconds"], "sync_messages": j["sync_cost"]["messages"],
                     "sync_rounds": j["sync_cost"]["rounds"],
                     "residual_after_s": j["after_sync"]["max_abs_offset_s"],
                     "check_error_after_s": j["after_sync"]["max_error_s"],
                     "later_s": j["later_s"], "residual_later_s": j["later"]["max_abs_offset_s"],
                     "check_error_later_s": j["later"]["max_error_s"],
                     "drift_residual": j["drift_residual"], "drift_resolution": j["drift_resolution"]})
    return rows


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
        for np_ in sorted(part["nprocs"].unique()):
            for coll, marker in markers.items():
                g = part[(part["nprocs"] == np_) & (part["collective"] == coll)].set_index("method").reindex(methods)
                ax.plot(range(len(methods)), g["spread"], marker=marker, linestyle="-" if coll == "allgather" else ":",
                        color=f"C{sorted(part['nprocs'].unique()).index(np_)}",
                        label=f"{np_} ranks, {'inter' if coll == 'allgather' else 'intra'}")
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

    lines = ["| method | ranks | collective | size | launches | median | spread | invalid | sync time |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in study.sort_values(["nprocs", "collective", "msg_bytes", "method"]).itertuples():
        flag = " (oversubscribed)" if r.oversubscribed else ""
        size = f"{r.msg_bytes >> 20} MiB" if r.msg_bytes >= 1 << 20 else f"{r.msg_bytes >> 10} KiB"
        lines.append(f"| {r.method} | {r.nprocs}{flag} | {r.collective} | {size} | {r.launches} | "
                     f"{r.median_s * 1e6:.1f} us | {r.spread:.2f} | {100 * r.invalid_rate:.1f} % | {r.sync_s * 1e3:.2f} ms |")
    if len(residuals):
        lines += ["", "| clock sync | ranks | sync time | messages | rounds | residual after sync (check error) "
                  "| seconds later | residual then (check error) | drift residual (s/s) |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in residuals.sort_values(["nprocs", "clock_sync"]).itertuples():
            drift = "n/a" if pd.isna(r.drift_residual) else f"{r.drift_residual:.1e} (resolution {r.drift_resolution:.1e})"
            lines.append(f"| {r.clock_sync} | {r.nprocs} | {r.sync_s * 1e3:.2f} ms | {r.sync_messages} | {r.sync_rounds} | "
                         f"{r.residual_after_s * 1e6:.1f} us ({r.check_error_after_s * 1e6:.1f} us) | {r.later_s:.1f} | "
                         f"{r.residual_later_s * 1e6:.1f} us ({r.check_error_later_s * 1e6:.1f} us) | {drift} |")
    return "\n".join(lines) + "\n"


def report(directory, out):
    import pandas as pd

    rows = []
    for method in METHODS:
        for d in sorted(glob.glob(os.path.join(directory, method, "np*"))):
            rows += _block_rows(d, method, int(os.path.basename(d)[2:]))
    if not rows:
        _say(f"{directory}: no study results (run 'timing-study run --out {directory}' first)")
        return 2
    study = pd.DataFrame(rows)
    residuals = pd.DataFrame(_residual_rows(directory))
    os.makedirs(out, exist_ok=True)
    study.to_csv(os.path.join(out, "study.csv"), index=False)
    residuals.to_csv(os.path.join(out, "residuals.csv"), index=False)
    with open(os.path.join(out, "study.md"), "w", encoding="utf-8") as f:
        f.write(_markdown(study, residuals))
    _figure(study, os.path.join(out, "spread.png"))
    _say(f"wrote study.csv, residuals.csv, study.md and spread.png into {out}")
    return 0


def _list(text, kind, allowed=None):
    items = [t for t in text.split(",") if t]
    if allowed is not None:
        bad = [t for t in items if t not in allowed]
        if bad:
            raise SystemExit(f"timing-study: unknown {kind} {', '.join(bad)} (use {', '.join(allowed)})")
    return items


def main(argv=None):
    ap = argparse.ArgumentParser(prog="timing-study", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", default=os.path.join(REPO, "results", "local", "timing-study"))
    r.add_argument("--mpi", default="openmpi", choices=launch.MPIS)
    r.add_argument("--build-dir", default="")
    r.add_argument("--nps", default=",".join(map(str, DEFAULT_NPS)))
    r.add_argument("--methods", default=",".join(METHODS))
    r.add_argument("--launches", type=int, default=10)
    r.add_argument("--later", type=int, default=10, help="seconds between the two residual checks (0..600)")
    p = sub.add_parser("report")
    p.add_argument("dir")
    p.add_argument("-o", "--out", default="")
    opts = ap.parse_args(argv)
    if opts.cmd == "report":
        return report(opts.dir, opts.out or opts.dir)
    opts.methods = _list(opts.methods, "method", list(METHODS))
    try:
        opts.nps = [int(n) for n in _list(opts.nps, "process count")]
    except ValueError:
        raise SystemExit(f"timing-study: --nps {opts.nps}: want process counts like 2,4,8")
    if any(n < 2 or n > 256 for n in opts.nps):
        raise SystemExit("timing-study: --nps: each process count must be 2..256")
    if not 1 <= opts.launches <= 1000 or not 0 <= opts.later <= 600:
        raise SystemExit("timing-study: --launches must be 1..1000 and --later 0..600")
    return run(opts)


if __name__ == "__main__":
    sys.exit(main())
