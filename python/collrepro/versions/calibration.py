"""calibration DIR -o OUT: the error rates of the version verdicts, measured on this machine.

DIR is what `collrepro versions --calibrate` wrote: one directory per experiment, holding one
result directory per installation: the base installation (e.g. openmpi-4.1.4), its A/A copy
(`<base>+aa`: the same library, launched separately, interleaved) and its synthetic releases,
made by two independent mechanisms (`mechanism` in summary.csv):
- pmpi-delay, `<base>+slowN`: the same library with the PMPI delay mode slowing chosen native
  calls by N % of their own duration (a derived installation, installations/derived.py);
- slowlib, `<base>+preloadN`: the same library with the preload slowdown library of tests/slowlib
  doing the same after the call returns (an ordinary added installation, installations/slowlib.py).
Each mechanism has a placebo, N = 0 (`+slow0`, `+preload0`): its interposition loaded, its calls
timed, nothing added. Where a placebo ran, the mechanism's injected settings are judged against it
(the interposition's own effect cancels), and the placebo's own row, against the base, is that
effect, per point in points.csv.gz.
Every setting is compared with the base exactly as a release is (the trend verdicts of two
installations), and per setting and experiment OUT/README.md gives:

- false changes: points flagged changed outside the injected subset (every point of A/A);
- detection: injected points flagged slower (a regression, or a change not comparable with a
  ratio above 1), out of the injected points;
- the noise floor: per point, the verdicts' own noise floor (the launch-to-launch spread their
  threshold is made of; without one, the same robust spread of the base's per-launch medians),
  its median and 90th percentile over the points, and the median threshold;
- the minimum detectable effect the verdict table reports (median over the points);
- the launches behind each number, the machine, the process count and the dates;
- both mechanisms side by side (detection at each injected percent), and the false discovery
  rate over the injected settings: flagged points outside the injected subset / flagged points;
- the power curve: per number of rounds N, the settings judged in disjoint blocks of N rounds
  (--launches NxB), injected points found slower overall and on the quiet ones (noise floor at
  most QUIET_FLOOR), beside the A/A false changes;
- the variance components of each experiment's base (analysis.verdicts.variance).

The injected subset of a setting is decided by the rule of its installation and its mechanism's
own predicate (which points a rule slows), never by the data. Every figure in
the README is computed here from DIR; nothing is typed in by hand.
"""

import functools
import gzip
import math
import os
import re
import sys
import time
from pathlib import Path

from collrepro import safeio
from collrepro.cliargs import ArgumentParser
from collrepro.versions.sequential import CHANGED_WORDS

PROG = "versions calibration"
AA = "aa"
SLOWDOWNS = (5, 10, 15, 25, 50)
TAG_RE = re.compile(r"^(?P<base>.+?)\+(?P<tag>aa|(?P<kind>slow|preload)(?P<pct>[0-9]+))$")
DELAY_VARIABLE = "COLLREPRO_PMPI_DELAY"
# The two injection mechanisms and the tag of their synthetic releases (`<base>+slow10`, `+preload10`).
MECHANISMS = {"pmpi-delay": "slow", "slowlib": "preload"}
NO_MECHANISM = "none"  # A/A
# The calibration's synthetic releases slow the native inter-group Allgather from 16 KiB on
# (collrepro.installations.delay: the `native` points of these sizes; smaller ones are
# scheduler-tick bound at 2 processes).
DELAY_SIZES = ">=16KiB"
SLOWER_WORDS = ("regression", "slower")
# The detection target is stated for the injected points whose verdict's noise floor is at most
# this (README: "quiet" points).
QUIET_FLOOR = 0.05
DEFAULT_DESIGNS = "5xall,10xall,16xall,all"
POINTS_FILE = "points.csv.gz"
SHIPPED_FILE = "shipped.csv"
FORECAST_FILE = "forecast.csv"


def installation_names(base="openmpi", mechanisms=tuple(MECHANISMS)):
    """The calibration's installations: the base, its A/A copy, and per mechanism its placebo
    (`+slow0`, `+preload0`: the same interposition injecting nothing) and injected slowdowns."""
    from collrepro.installations import registry
    name = registry.resolve(base).name if "+" not in base else base
    return [name, f"{name}+{AA}"] + [f"{name}+{MECHANISMS[m]}{p}" for m in mechanisms for p in (0,) + SLOWDOWNS]


def is_placebo(tag, pct):
    """A mechanism's placebo: its interposition loaded, 0 % injected (`slow0`, `preload0`)."""
    return tag != AA and pct == 0


def mechanisms_option(text):
    """--mechanisms: 'pmpi-delay,slowlib' -> the tuple; UserError (one line) for an unknown one."""
    chosen = tuple(dict.fromkeys(m.strip() for m in str(text).split(",") if m.strip()))
    unknown = [m for m in chosen if m not in MECHANISMS]
    if unknown or not chosen:
        raise safeio.UserError(f"--mechanisms {text!r}: want one or more of {', '.join(MECHANISMS)}, "
                               "separated by commas")
    return chosen


def delay_rule_for(pct):
    """The COLLREPRO_PMPI_DELAY rule of the calibration's `<base>+slow<pct>`."""
    return f"allgather:{DELAY_SIZES}:+{pct}%"


def base_of(name):
    """The installation a derived one (`<base>+<tag>`) derives from; the name itself otherwise."""
    m = TAG_RE.match(name)
    return m.group("base") if m else name


def setting_of(name):
    """(tag, injected percent) of a calibration installation name: ('aa', 0), ('slow10', 10),
    ('preload10', 10); None for the base."""
    m = TAG_RE.match(name)
    if not m:
        return None
    return m.group("tag"), int(m.group("pct") or 0)


def mechanism_of(tag):
    """The mechanism of a setting's tag: 'pmpi-delay' (slowN), 'slowlib' (preloadN), 'none' (aa)."""
    kind = re.match(r"[a-z]+", tag).group(0)
    return next((m for m, prefix in MECHANISMS.items() if prefix == kind), NO_MECHANISM)


def setting_title(tag, pct):
    if tag == AA:
        return "A/A (no change)"
    return f"placebo ({mechanism_of(tag)}, +0 %)" if is_placebo(tag, pct) else f"+{pct} % injected ({mechanism_of(tag)})"


# ------------------------------------------------------------------ the injected subset

def delay_rule(name, metas=()):
    """The delay rule a derived installation runs with: its metadata's record, else the
    installation registry's environment; '' for none (A/A, the base)."""
    for m in metas:
        record = m.get("mpi_installation") if isinstance(m, dict) else None
        if isinstance(record, dict) and isinstance(record.get("delay"), str) and record["delay"]:
            return record["delay"]  # a derived installation's record (installations/derived.py)
        env = record.get("env") if isinstance(record, dict) else None
        if isinstance(env, dict) and env.get(DELAY_VARIABLE):
            return str(env[DELAY_VARIABLE])
        for key in ("pmpi_delay", "delay"):
            if isinstance(m, dict) and isinstance(m.get(key), str) and m[key]:
                return m[key]
    from collrepro.installations import registry
    try:
        inst = registry.resolve(name)
    except registry.RegistryError:
        return ""
    return str(getattr(inst, "delay", "") or inst.env.get(DELAY_VARIABLE, ""))


def slowlib_rule(name, metas=()):
    """The COLLREPRO_SLOWLIB rules a preload installation runs with: its metadata's record (the
    installation's variables), else the registry's; '' for none."""
    from collrepro.installations import registry, slowlib
    for m in metas:
        record = m.get("mpi_installation") if isinstance(m, dict) else None
        if slowlib.rules_of(record):
            return slowlib.rules_of(record)
    try:
        return slowlib.rules_of(registry.resolve(name))
    except registry.RegistryError:
        return ""


def injection_rule(mechanism, name, metas=()):
    """The rule of a setting, read the way its mechanism records it."""
    return slowlib_rule(name, metas) if mechanism == "slowlib" else delay_rule(name, metas)


def default_predicate(mechanism="pmpi-delay"):
    """The mechanism's predicate: predicate(rule, row) -> does the rule slow this point."""
    module = "slowlib" if mechanism == "slowlib" else "delay"
    try:
        from importlib import import_module
        return import_module(f"collrepro.installations.{module}").affected
    except ImportError:
        raise safeio.EnvironmentProblem(
            f"the predicate of {mechanism} (collrepro.installations.{module}) is missing: it decides which points "
            "a rule slows; update the checkout") from None


# ------------------------------------------------------------------ per setting

def _finite(values):
    return [float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))
            and str(v) != "" and math.isfinite(float(v))]


def _quantile(values, q):
    import numpy as np
    values = _finite(values)
    return float(np.quantile(values, q)) if values else float("nan")


def noise_floor(per_base):
    """Per point of the base's per-launch medians (a frame with MATCH_KEY and `median`): the robust
    spread of the verdicts (stats.robust_scale of the log medians, as exp(s) - 1)."""
    import numpy as np
    from collrepro.analysis.verdicts import stats
    from collrepro.analysis.frames.aggregate import MATCH_KEY
    out = []
    for _, g in per_base.groupby(MATCH_KEY, dropna=False):
        x = g["median"].to_numpy(float)
        if len(x) < 2 or not np.min(x) > 0:
            continue
        out.append(float(np.expm1(stats.robust_scale(np.log(x)))))
    return out


def _is_changed(verdict):
    return str(verdict) in CHANGED_WORDS


def _is_slower(row):
    verdict = str(row.get("verdict"))
    if verdict in SLOWER_WORDS:
        return True
    if verdict == "changed-not-comparable":
        ratio = _finite([row.get("ratio")])
        return bool(ratio) and ratio[0] > 1.0
    return False


def first_launches(per, launches, block=0):
    """The per-launch medians of launches block*N+1 .. (block+1)*N of each side, N = `launches`
    (None: all), so that one calibration run also gives the error rates of a shorter run (e.g.
    the default design's rounds) over several disjoint blocks of its rounds."""
    if not launches:
        return per
    order = per.groupby("installation")["launch"].rank(method="dense")
    return per[(order > block * launches) & (order <= (block + 1) * launches)]


def verdict_table(base, other, alpha=0.05, threshold=0.05, launches=None, block=0, per=None):
    """The trend verdicts of `other` against `base` (two inventory entries, in this order), from
    launches block*N+1 .. (block+1)*N of each, N = `launches` (None: all). per: the two entries'
    per-launch medians (trend.per_installation), when already computed."""
    from collrepro.analysis.verdicts import trend
    from collrepro.analysis.verdicts import stats
    need = stats.min_launches(alpha)
    per = first_launches(trend.per_installation([base, other]) if per is None else per, launches, block)
    metas = [m for e in (base, other) for m in e.rs.metas]
    return trend.verdicts(per, alpha, threshold, need, metas, trend.metas_by_side([base, other])), per


def assess(table, rule, predicate, pct):
    """Count one setting's verdicts: a dict of points, injected, false changes (outside the
    injected subset), detected (injected points flagged slower) and their rates."""
    rows = table.to_dict("records")
    injected = [bool(rule) and pct > 0 and bool(predicate(rule, r)) for r in rows]
    outside = [r for r, hit in zip(rows, injected) if not hit]
    inside = [r for r, hit in zip(rows, injected) if hit]
    false = sum(_is_changed(r.get("verdict")) for r in outside)
    flagged = sum(_is_changed(r.get("verdict")) for r in rows)
    detected = sum(_is_slower(r) for r in inside)
    quiet = [r for r in inside if _quiet(r)]
    refused = sum(str(r.get("verdict")) in ("insufficient",) or
                  (str(r.get("verdict")) == "inconclusive" and "launch" in str(r.get("reason", ""))) for r in rows)
    return {"points": len(rows), "injected": len(inside), "outside": len(outside),
            "false_changes": false, "false_rate": false / len(outside) if outside else float("nan"),
            "detected": detected, "detection_rate": detected / len(inside) if inside else float("nan"),
            "flagged": flagged, "fdr": fdr(false, flagged) if inside else float("nan"),
            "injected_quiet": len(quiet), "detected_quiet": sum(_is_slower(r) for r in quiet),
            "refused": refused, "injected_flags": injected}


def _quiet(row):
    """Whether a point's verdict rests on a noise floor of at most QUIET_FLOOR (the points the
    detection target is stated for)."""
    floor = _finite([row.get("noise_floor")])
    return bool(floor) and floor[0] <= QUIET_FLOOR


def fdr(false_changes, flagged):
    """The false discovery rate of an injected setting: flagged points outside the injected subset
    over flagged points (nan when nothing is flagged)."""
    return false_changes / flagged if flagged else float("nan")


def _launch_counts(entry, launches=None):
    from collrepro.analysis.verdicts.compare import launch_medians
    per = launch_medians(entry.rs)
    n = int(per["launch"].nunique()) if "launch" in per.columns and len(per) else len(entry.rs.metas)
    return min(n, launches) if launches else n


class _Progress:
    """One stderr line per setting judged: which, how many of all, the time so far and the ETA
    (the settings' mean so far: each is judged in every design and the shipped emulation)."""

    def __init__(self, total):
        self.total, self.done, self.start = total, 0, time.monotonic()

    def step(self, what):
        spent = time.monotonic() - self.start
        eta = f", ETA {spent / self.done * (self.total - self.done):.0f} s" if self.done else ""
        self.done += 1
        print(f"calibration: judging {what} ({self.done}/{self.total}; {spent:.0f} s so far{eta})",
              file=sys.stderr, flush=True)


def analyse(entries, predicate=None, alpha=0.05, threshold=0.05, launch_counts=((None, 1),)):
    """(summary rows, point rows, shipped rows) of every (experiment, setting) in `entries`
    (inventory entries); shipped: the shipped procedure's final verdicts per setting (_shipped).
    `predicate(rule, row)` decides the injected subset of every mechanism (None: each
    mechanism's own, default_predicate)."""
    import pandas as pd
    from collrepro.analysis.verdicts import trend
    by_experiment = {}
    for e in entries:
        by_experiment.setdefault(e.experiment, []).append(e)
    summary, points, shipped = [], [], []
    progress = _Progress(sum(len(g) - 1 for g in by_experiment.values()))
    for experiment, group in sorted(by_experiment.items()):
        bases = [e for e in group if setting_of(e.installation.name) is None]
        if len(bases) != 1:
            names = ", ".join(sorted(e.installation.name for e in group))
            raise safeio.UserError(f"{experiment}: want one base installation beside its +aa / +slowN copies, "
                                   f"found {names or 'none'}")
        base = bases[0]
        placebos = {mechanism_of(setting_of(e.installation.name)[0]): e for e in group
                    if e is not base and is_placebo(*setting_of(e.installation.name))}
        for other in sorted((e for e in group if e is not base), key=_setting_order):
            tag, pct = setting_of(other.installation.name)
            if base_of(other.installation.name) != base.installation.name:
                raise safeio.UserError(f"{experiment}: {other.installation.name} does not derive from "
                                       f"{base.installation.name}")
            mechanism = mechanism_of(tag)
            # an injected setting is judged against its mechanism's placebo where one ran (the same
            # interposition, nothing injected), so the interposition's own effect is not counted
            reference = placebos.get(mechanism) if pct else None
            reference = reference or base
            rule = injection_rule(mechanism, other.installation.name, other.rs.metas) if pct else ""
            if pct and not rule:
                variable = "COLLREPRO_SLOWLIB" if mechanism == "slowlib" else DELAY_VARIABLE
                raise safeio.UserError(f"{experiment}: {other.installation.name} has no {mechanism} rule "
                                       f"({variable}) in its metadata or the registry")
            slows = predicate or default_predicate(mechanism)
            progress.step(f"{experiment} {other.installation.name}")
            every = trend.per_installation([reference, other])
            row = _shipped(experiment, reference, other, tag, pct, rule, slows, alpha, threshold, every)
            if row is not None:
                shipped.append(row)
            for design in launch_counts:
                if design[0] and design[0] > min(_launch_counts(reference), _launch_counts(other)):
                    continue  # more rounds than were measured: the `all` design says it
                summary_row, rows = _setting(experiment, reference, other, tag, pct, rule, slows,
                                             alpha, threshold, design, every)
                summary.append(summary_row)
                points.append(rows)
    if not summary:
        raise safeio.UserError("no calibration runs found (want <dir>/<experiment>/<base> and <base>+aa, "
                               "<base>+slowN beside it; run ./collrepro-py versions --calibrate)")
    frame = pd.DataFrame(summary)
    point_rows = pd.concat(points, ignore_index=True) if points else pd.DataFrame()
    return frame, point_rows, shipped


def shipped_table(base, other, alpha=0.05, threshold=0.05, per=None, first=None, looks=None):
    """The final verdicts of the procedure `collrepro versions` ships, emulated on one setting's
    calibration rounds: the first pass on rounds 1..F (F = the default design's rounds), then
    its tripped and undecided points (versions' remeasure_rows) judged again at each look on
    rounds 1..F + R_k (every round so far: versions' look_rounds and look_levels, R = 2F by
    default) at that look's alpha, each keeping the verdict of the look that settled it. Every
    point of the family is judged at each look (the shipped looks judge the re-measured points on
    their pooled rounds and the others on the first pass's). Returns (table, first-pass table)
    with `look` (0: the first pass) per point, or (None, None) when the runs are too short."""
    from collrepro.analysis.verdicts import trend
    from collrepro.versions import sequential as seq
    first = first or seq.DEFAULT_ROUNDS
    rounds = seq.look_rounds(seq.DEFAULT_REMEASURE if first == seq.DEFAULT_ROUNDS else 2 * first,
                             looks or seq.DEFAULT_LOOKS)
    if first + rounds[-1] > min(_launch_counts(base), _launch_counts(other)):
        return None, None
    per = trend.per_installation([base, other]) if per is None else per

    def judge(n, level):
        return verdict_table(base, other, level, threshold, n, 0, per)[0]
    return seq.sequential_verdicts(judge, first, rounds, seq.look_levels(first, rounds), alpha)


def _shipped(experiment, base, other, tag, pct, rule, predicate, alpha, threshold, per):
    """One summary row of the shipped procedure's final verdicts (shipped_table) for a setting, or
    None: detection, false changes, and how many first-pass detections the final verdicts kept."""
    final, table0 = shipped_table(base, other, alpha, threshold, per)
    if final is None:
        return None
    counts = assess(final, rule, predicate, pct)
    flags = counts.pop("injected_flags")
    first_found = [bool(f) and _is_slower(r) for f, r in zip(flags, table0.to_dict("records"))]
    kept = sum(ff and _is_slower(r) for ff, r in zip(first_found, final.to_dict("records")))
    return dict(experiment=experiment, setting=tag, mechanism=mechanism_of(tag), injected_pct=pct,
                title=setting_title(tag, pct), **counts, first_detected=sum(first_found), first_kept=kept,
                remeasured=int((final["look"] > 0).sum()))


def shipped_section(rows):
    """The README's table of the shipped procedure's final verdicts (one row per setting, summed
    over the experiments)."""
    import pandas as pd
    from collrepro.analysis.frames.tables import markdown_table
    from collrepro.versions import sequential as seq
    if rows is None or len(rows) == 0:
        return []
    frame = pd.DataFrame(rows)
    out = []
    for (tag, pct), sub in frame.groupby(["setting", "injected_pct"], sort=False):
        t = sub.sum(numeric_only=True)
        out.append({"setting": setting_title(tag, pct), "points": int(t["points"]),
                    "re-measured": int(t["remeasured"]),
                    "false changes": f"{int(t['false_changes'])}/{int(t['outside'])}",
                    "detected": f"{int(t['detected'])}/{int(t['injected'])}" if pct else "–",
                    "detected (quiet)": f"{int(t['detected_quiet'])}/{int(t['injected_quiet'])}" if pct else "–",
                    "first-pass detections kept": (f"{int(t['first_kept'])}/{int(t['first_detected'])}"
                                                   if pct else "–"),
                    "FDR": _pct(fdr(t["false_changes"], t["flagged"])) if pct else "–"})
    rounds = seq.look_rounds(seq.DEFAULT_REMEASURE, seq.DEFAULT_LOOKS)
    levels = seq.look_levels(seq.DEFAULT_ROUNDS, rounds)
    return ["## The shipped procedure, end to end", "",
            f"The final verdicts of `collrepro versions`' default design, emulated on the calibration's "
            f"rounds (`shipped_table`): the first pass on rounds 1-{seq.DEFAULT_ROUNDS}; its tripped and "
            f"undecided points judged again at {len(rounds)} looks on rounds 1-"
            + ", 1-".join(str(seq.DEFAULT_ROUNDS + n) for n in rounds)
            + f" (every round so far, pooled) at alpha {', '.join(f'{a:.3g}' for a in levels)} (spent "
            "over the rounds); each point keeps the verdict of the look that settled it. One block per "
            "setting (the runs' first 48 rounds), so each count below rests on one run of the procedure "
            "per experiment: its spread is wide. `first-pass detections kept`: injected points the first "
            "pass found slower that the final verdict still finds slower.", "",
            markdown_table(pd.DataFrame(out), list(out[0])), ""]


def _setting_order(entry):
    """By injected percent, then mechanism (in MECHANISMS' order), then name."""
    tag, pct = setting_of(entry.installation.name) or ("", 0)
    return pct, list(MECHANISMS).index(mechanism_of(tag)) if tag != AA else -1, entry.installation.name


def _blocks(base, other, launches, blocks):
    """How many disjoint blocks of `launches` rounds a setting is judged in: `blocks`, or (None)
    as many as both sides measured; 1 for every launch (launches None)."""
    if not launches:
        return 1
    have = max(1, min(_launch_counts(base), _launch_counts(other)) // launches)
    return have if blocks is None else min(blocks, have)


def _setting(experiment, base, other, tag, pct, rule, predicate, alpha, threshold, design, every=None):
    """(summary row, point rows) of one setting against its base, design = (N, B): in B disjoint
    blocks of N rounds a side (launches 1..N, N+1..2N, ...; N None: all launches, one block), each
    block judged as a run of its own; the counts are summed over the blocks."""
    from collrepro.analysis.verdicts import trend
    import pandas as pd
    launches, blocks = design
    blocks = _blocks(base, other, launches, blocks)
    every = trend.per_installation([base, other]) if every is None else every
    tables, pers = [], []
    for block in range(blocks):
        table, per = verdict_table(base, other, alpha, threshold, launches, block, every)
        tables.append(table.assign(block=block))
        pers.append(per)
    table = pd.concat(tables, ignore_index=True)
    per = pd.concat(pers, ignore_index=True)
    counts = assess(table, rule, predicate, pct)
    flags = counts.pop("injected_flags")
    if "noise_floor" in table.columns:  # the verdicts' own floor (the threshold's input)
        noise = _finite(table["noise_floor"])
    else:
        noise = noise_floor(per[per["installation"] == base.installation.name])

    def quantile(column, q):
        return _quantile(table[column], q) if column in table.columns else float("nan")

    summary = dict(
        experiment=experiment, setting=tag, mechanism=mechanism_of(tag), injected_pct=pct,
        title=setting_title(tag, pct), rule=rule,
        base=base.installation.name, other=other.installation.name,
        launches_base=_launch_counts(base, launches), launches_other=_launch_counts(other, launches),
        blocks=blocks,
        **counts, realised_median=_quantile(table["ratio"][flags], 0.5) if any(flags) else float("nan"),
        noise_median=_quantile(noise, 0.5), noise_p90=_quantile(noise, 0.9),
        threshold_median=quantile("threshold", 0.5), mde_median=quantile("mde", 0.5),
        mde_p90=quantile("mde", 0.9))
    keep = [c for c in ("library", "setting", "shape", "algorithm", "msg_bytes", "verdict", "reason",
                        "ratio", "ci_low", "ci_high", "p_value", "q_value", "threshold", "mde",
                        "n_before", "n_after", "noise_floor", "tripped", "block") if c in table.columns]
    rows = table[keep].rename(columns={"setting": "config_setting"}).assign(
        experiment=experiment, setting=tag, mechanism=mechanism_of(tag), injected_pct=pct, injected=flags,
        launches=summary["launches_other"])
    return summary, rows


# ------------------------------------------------------------------ the README

def _pct(x, digits=1):
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.{digits}f} %"


def _rate(k, n):
    return "–" if not n else f"{k} / {n} ({100 * k / n:.0f} %)"


def machine_lines(metas):
    import pandas as pd
    machines = sorted({str(m.get("machine", "?")) for m in metas})
    nprocs = sorted({str(m.get("nprocs", "?")) for m in metas})
    over = sorted({str((m.get("oversubscription") or {}).get("oversubscribed", "?"))
                   if isinstance(m.get("oversubscription"), dict) else str(m.get("oversubscription", "?"))
                   for m in metas})
    stamps = pd.to_datetime([m.get("start_utc") for m in metas], utc=True, errors="coerce").dropna()
    when = (f"{stamps.min():%Y-%m-%d %H:%M} to {stamps.max():%Y-%m-%d %H:%M} UTC" if len(stamps) else "unknown")
    seeds = sorted({str(m["launch_order"].get("seed")) for m in metas
                    if isinstance(m.get("launch_order"), dict) and "seed" in m["launch_order"]})
    return [f"- Machine: {', '.join(machines)}; {', '.join(nprocs)} processes per launch; "
            f"oversubscribed: {', '.join(over)}.",
            f"- Measured: {when} ({len(metas)} launches in all), in rounds of one launch per installation, "
            + (f"each round in a seeded random order (seed {', '.join(seeds)})." if seeds else "interleaved.")]


def _blocks_text(r):
    blocks = r.get("blocks", 1)
    return f", {int(blocks)} blocks" if isinstance(blocks, (int, float)) and blocks > 1 else ""


def _summary_cells(r, pct):
    """One README row: one experiment, one setting, one launch count."""
    return {"experiment": r["experiment"], "points": r["points"], "injected": r["injected"],
            "launches (base + other)": f"{r['launches_base']} + {r['launches_other']}" + _blocks_text(r),
            "false changes (outside injected)": _rate(r["false_changes"], r["outside"]),
            "detected (injected, slower)": _rate(r["detected"], r["injected"]) if pct else "–",
            "FDR (not injected / flagged)": _rate(r["false_changes"], r["flagged"]) if pct else "–",
            "realised slowdown (median ratio, injected)": (f"x{r['realised_median']:.3f}"
                                                           if pct and math.isfinite(r["realised_median"]) else "–"),
            "noise floor (median / p90)": f"{_pct(r['noise_median'])} / {_pct(r['noise_p90'])}",
            "threshold (median)": _pct(r["threshold_median"]),
            "MDE 80 % (median / p90)": f"{_pct(r['mde_median'])} / {_pct(r['mde_p90'])}",
            "no verdict": r["refused"]}


def _total_cells(sub, pct):
    """The README's total row over the experiments of one setting and launch count."""
    return {"experiment": "all", "points": int(sub["points"].sum()), "injected": int(sub["injected"].sum()),
            "launches (base + other)": "",
            "false changes (outside injected)": _rate(int(sub["false_changes"].sum()), int(sub["outside"].sum())),
            "detected (injected, slower)": (_rate(int(sub["detected"].sum()), int(sub["injected"].sum()))
                                            if pct else "–"),
            "FDR (not injected / flagged)": (_rate(int(sub["false_changes"].sum()), int(sub["flagged"].sum()))
                                             if pct else "–"),
            "realised slowdown (median ratio, injected)": "",
            "noise floor (median / p90)": "", "threshold (median)": "", "MDE 80 % (median / p90)": "",
            "no verdict": int(sub["refused"].sum())}


def readme(summary, metas, source, alpha, threshold, variance=None, check=None, shipped=None,
           out="results/versions/calibration"):
    from collrepro.analysis.frames.tables import markdown_table
    lines = ["# Calibration of the version verdicts", "",
             "How often the version comparison flags a change that is not there, and how small an injected "
             "slowdown it finds, measured on this machine. Generated by `collrepro-py versions calibration "
             f"{source} -o {out}` from the runs of `./collrepro-py versions "
             "--calibrate`; every figure below is computed from those runs.", ""]
    lines += machine_lines(metas)
    lines += ["", "Method: each setting is compared with the base installation exactly as a release is "
              "(`analyze trend` over the two installations, the same verdict code); a point is *flagged* "
              f"when its verdict is a change (regression, improvement or changed, not comparable). alpha = {alpha}, "
              f"threshold = max({threshold:.0%}, the point's noise floor) where the verdicts carry one. The "
              "injected subset of a setting is the set of points its rule slows, decided by its mechanism's "
              "predicate (the PMPI delay mode's or the preload slowdown library's), not by the data. "
              "A/A: the base against a separately launched, interleaved "
              "copy of itself; every point is outside the injected subset. Where a mechanism's placebo ran "
              "(its interposition loaded, +0 %), its injected settings are judged against the placebo, and "
              "the placebo's own section (against the base) is what loading the mechanism does. The "
              "per-setting tables are the first pass's verdicts alone: `collrepro versions` then measures "
              "the tripped and undecided points again, in looks that judge every round so far under alpha "
              "spending, which can add detections and false changes as well as remove them. The shipped "
              "procedure's own rates are in \"The shipped procedure, end to end\" (`shipped.csv`).", ""]
    for (tag, pct), sub in summary.groupby(["setting", "injected_pct"], sort=False):
        title = setting_title(tag, pct)
        lines += [f"## {title}", ""]
        if pct:
            lines += [f"Rule ({mechanism_of(tag)}): `{'`, `'.join(sorted(set(sub['rule'])))}`.", ""]
        rows = []
        for _, by_launches in sub.groupby("launches_other", sort=True):
            rows += [_summary_cells(r, pct) for _, r in by_launches.iterrows()]
            if len(by_launches) > 1:
                rows.append(_total_cells(by_launches, pct))
        import pandas as pd
        table = pd.DataFrame(rows)
        lines += [markdown_table(table, list(table.columns)), ""]
    lines += (shipped_section(shipped) + power_table(summary) + side_by_side(summary)
              + fdr_section(summary) + forecast_section(check) + variance_section(variance))
    lines += ["## Files", "",
              "- `summary.csv`: the tables above, one row per experiment, setting and launch count (the "
              "first N launches of each installation, so that one run also gives a shorter run's rates), "
              "with its `mechanism`, `flagged` points and `fdr`.",
              f"- `{POINTS_FILE}`: every point's verdict per setting and block, with `injected` (in the rule's "
              "subset) and its `noise_floor`.",
              "- `variance.csv`: the variance components of every point of each experiment's base installation.",
              f"- `{SHIPPED_FILE}`: the shipped procedure's final verdicts, one row per experiment and setting "
              "(`detected`, `false_changes`, `first_detected`, `first_kept`, `remeasured`).",
              f"- `{FORECAST_FILE}`: the forecast against outcome, one row per mechanism, injected change and "
              "rounds (`forecast` and `found` as shares, `gap` in points).",
              f"- `{FIGURE}`: detection rate against the realised slowdown, one curve per mechanism.",
              ""]
    return "\n".join(lines)


def _by_mechanism(summary):
    """The injected settings, totalled per (mechanism, injected percent, launches a side): detected,
    injected, false changes, flagged, and the median realised slowdown over the experiments."""
    injected = summary[summary["injected_pct"] > 0]
    if not len(injected):
        return injected
    return injected.groupby(["mechanism", "injected_pct", "launches_other"], sort=True).agg(
        detected=("detected", "sum"), injected=("injected", "sum"), false_changes=("false_changes", "sum"),
        flagged=("flagged", "sum"), realised=("realised_median", "median")).reset_index()


def power_table(summary):
    """README lines: the power curve, per launch count (rounds), mechanism and injected percent:
    injected points found slower over every experiment and block, the same on the quiet points
    (noise floor at most QUIET_FLOOR), and the A/A false changes beside them."""
    from collrepro.analysis.frames.tables import markdown_table
    import pandas as pd
    if "injected_quiet" not in summary.columns:
        return []
    rows = []
    for launches, by_n in summary.groupby("launches_other", sort=True):
        aa = by_n[by_n["injected_pct"] == 0]
        rows.append({"rounds": launches, "blocks": _blocks_cell(aa), "setting": "A/A",
                     "points": int(aa["points"].sum()),
                     "found slower (injected)": "–", "found slower (quiet injected)": "–",
                     "false changes (outside injected)": _rate(int(aa["false_changes"].sum()), int(aa["outside"].sum())),
                     "realised": "–"})
        injected = by_n[by_n["injected_pct"] > 0]
        for (mechanism, pct), sub in injected.groupby(["mechanism", "injected_pct"], sort=True):
            realised = _quantile(sub["realised_median"], 0.5)
            rows.append({"rounds": launches, "blocks": _blocks_cell(sub), "setting": f"+{pct} % {mechanism}",
                         "points": int(sub["points"].sum()),
                         "found slower (injected)": _rate(int(sub["detected"].sum()), int(sub["injected"].sum())),
                         "found slower (quiet injected)": _rate(int(sub["detected_quiet"].sum()),
                                                                int(sub["injected_quiet"].sum())),
                         "false changes (outside injected)": _rate(int(sub["false_changes"].sum()),
                                                                   int(sub["outside"].sum())),
                         "realised": f"x{realised:.3f}" if math.isfinite(realised) else "–"})
    table = pd.DataFrame(rows)
    return ["## Power curve", "",
            f"Per number of paired rounds (launches a side): the injected points found slower, over every "
            f"experiment and every disjoint block of that many rounds (each block judged as a run of its own); "
            f"the same on the *quiet* injected points, whose verdict's noise floor is at most {QUIET_FLOOR:.0%}; "
            "and the false changes outside the injected points. `realised`: the median ratio at the injected "
            "points.", "", markdown_table(table, list(table.columns)), ""]


def _blocks_cell(sub):
    if "blocks" not in sub.columns or not len(sub):
        return 1
    values = sorted({int(b) for b in sub["blocks"] if b == b})
    return "/".join(map(str, values)) if values else 1


POINT_KEY = ("experiment", "library", "config_setting", "shape", "algorithm", "msg_bytes")


def forecast_check(points, rate=None):
    """Forecast against outcome, per injected setting and design (rows of `points`, the point
    table of analyse): each injected point's probability of being found by its first pass, as
    `collrepro-py versions forecast` would state it before measuring (stats.paired_detect_rate:
    the injected change, the point's launch spread taken from its A/A row in another block of
    the same design, i.e. an earlier run on this machine, or the same block when the design has
    one, the family's size), against the share of those points the verdicts found slower.
    Returns a frame: mechanism, injected_pct, launches, points, forecast, found, gap (points)."""
    import pandas as pd
    from collrepro.analysis.verdicts import stats
    rate = rate or _cached_rate
    if points is None or len(points) == 0 or "noise_floor" not in points.columns:
        return pd.DataFrame()
    keys = [k for k in POINT_KEY if k in points.columns]
    aa = points[points["setting"] == AA]
    floors = {tuple(r[k] for k in keys) + (r["launches"], r["block"]): r["noise_floor"]
              for r in aa.to_dict("records")}
    blocks = aa.groupby("launches")["block"].max().to_dict()
    by_family = ["experiment", "setting", "launches", "block"]
    family = points.groupby(by_family).size().to_dict()
    hit = points[(points["injected_pct"] > 0) & points["injected"].astype(bool)]
    changed = hit.groupby(by_family).size().to_dict()
    rows = []
    for r in hit.to_dict("records"):
        n, b = int(r["launches"]), int(r["block"])
        pilot_block = (b + 1) % (int(blocks.get(r["launches"], 0)) + 1)
        floor = floors.get(tuple(r[k] for k in keys) + (r["launches"], pilot_block))
        if floor is None or not math.isfinite(float(floor)) or n < 3:
            continue
        fam = (r["experiment"], r["setting"], r["launches"], r["block"])
        m = max(1, round(family[fam] / changed[fam]))     # k changes of m: BH tests near alpha k / m
        sd = stats.sd_of_floor(float(floor))
        rows.append(dict(mechanism=r["mechanism"], injected_pct=r["injected_pct"], launches=n,
                         forecast=rate(r["injected_pct"] / 100.0, round(sd, 4), n, m),
                         found=_is_slower(r)))
    if not rows:
        return pd.DataFrame()
    frame = pd.DataFrame(rows)
    out = frame.groupby(["mechanism", "injected_pct", "launches"], sort=True).agg(
        points=("found", "size"), forecast=("forecast", "mean"), found=("found", "mean")).reset_index()
    return out.assign(gap=100 * (out["found"] - out["forecast"]))


@functools.lru_cache(maxsize=None)
def _cached_rate(change, sd, n, m):
    """stats.paired_detect_rate, once per (change, sd to 4 decimals, rounds, family size)."""
    from collrepro.analysis.verdicts import stats
    return stats.paired_detect_rate(change, sd, n, m)


def forecast_section(check):
    from collrepro.analysis.frames.tables import markdown_table
    import pandas as pd
    if check is None or len(check) == 0:
        return []
    rows = [{"mechanism": r["mechanism"], "injected": f"+{int(r['injected_pct'])} %",
             "rounds": int(r["launches"]), "points": int(r["points"]),
             "forecast": _pct(r["forecast"]), "found": _pct(r["found"]),
             "gap (points)": f"{r['gap']:+.1f}"} for _, r in check.iterrows()]
    within = int((check["gap"].abs() <= 10).sum())
    return ["## Forecast against outcome (the first pass)", "",
            "What `collrepro-py versions forecast` would have said before each block was measured, "
            "against what its verdicts found. Per injected point: the probability that a first pass of "
            "that many paired rounds finds the injected change (`stats.paired_detect_rate`), from the "
            "point's launch spread in its A/A comparison of another block of the same design (an "
            "earlier run on this machine; the same launches where the design has one block, `all`), "
            "in a family of m / k points (k of its m points injected: Benjamini-Hochberg then tests "
            "near alpha k / m; the forecast command's default, k = 1, is the lone change), averaged "
            "over the injected points; beside it, the share those verdicts found slower. The "
            "forecast models the first pass only (so do these verdicts) with normal launches; a "
            "negative gap is an optimistic forecast. "
            f"{within} of {len(check)} rows are within 10 points.", "",
            markdown_table(pd.DataFrame(rows), list(rows[0])), ""]


def variance_rows(entries):
    """(per-experiment rows, per-point frame) of the variance components (analysis.verdicts.variance)
    of each experiment's base installation."""
    import pandas as pd
    from collrepro.analysis.verdicts import variance
    rows, points = [], []
    for e in sorted(entries, key=lambda e: e.experiment):
        if setting_of(e.installation.name) is not None or not len(e.rs.raw):
            continue
        table = variance.components(e.rs.raw)
        rows.append(dict(experiment=e.experiment, installation=e.installation.name, **variance.summarise(table)))
        points.append(table.assign(experiment=e.experiment, installation=e.installation.name))
    return pd.DataFrame(rows), (pd.concat(points, ignore_index=True) if points else pd.DataFrame())


def variance_section(rows):
    """README lines: the variance components per experiment."""
    from collrepro.analysis.frames.tables import markdown_table
    import pandas as pd
    if rows is None or not len(rows):
        return []
    cells = [{"experiment": r["experiment"], "points": r["points"], "launches": r["launches"],
              "repetitions a launch": r["reps"], "launch medians' SD": _pct(r["total_sd"]),
              "launch part": _pct(r["launch_sd"]), "repetition part": _pct(r["within_sd"]),
              "share of the repetitions": _pct(r["within_share"], 0),
              "repetitions enough (median / p90)": f"{r['reps_enough_median']:.0f} / {r['reps_enough_p90']:.0f}"}
             for _, r in rows.iterrows()]
    table = pd.DataFrame(cells)
    return ["## Variance components", "",
            "Of the base installation's launch medians (medians over the points, log scale: 0.02 is about 2 %): "
            "their SD, the part of it that is the launches' own (only more rounds reduce it) and the part that "
            "is the sampling of the repetitions within a launch (split halves); the repetitions per launch beyond "
            "which the repetition part is under a quarter of the launch part (`variance.csv` per point; "
            "python/collrepro/analysis/verdicts/variance.py).", "", markdown_table(table, list(table.columns)), ""]


def side_by_side(summary):
    """README lines: both mechanisms' detection at each injected percent, in one table."""
    from collrepro.analysis.frames.tables import markdown_table
    import pandas as pd
    totals = _by_mechanism(summary)
    if not len(totals):
        return []
    rows = []
    for (pct, launches), sub in totals.groupby(["injected_pct", "launches_other"], sort=True):
        row = {"injected": f"+{pct} %", "launches a side": launches}
        for mechanism in sorted(set(totals["mechanism"])):
            r = sub[sub["mechanism"] == mechanism]
            row[f"{mechanism}: detected"] = (_rate(int(r["detected"].sum()), int(r["injected"].sum()))
                                             if len(r) else "–")
            realised = float(r["realised"].iloc[0]) if len(r) else float("nan")
            row[f"{mechanism}: realised"] = f"x{realised:.3f}" if math.isfinite(realised) else "–"
        rows.append(row)
    table = pd.DataFrame(rows)
    return ["## Both mechanisms side by side", "",
            "Injected points flagged slower, over every experiment, and the median realised slowdown "
            f"(the ratio at the injected points); `{FIGURE}` draws the same as curves.", "",
            markdown_table(table, list(table.columns)), ""]


def fdr_section(summary):
    """README lines: the false discovery rate over the injected settings, per mechanism and in all."""
    from collrepro.analysis.frames.tables import markdown_table
    import pandas as pd
    totals = _by_mechanism(summary)
    if not len(totals):
        return []
    rows = []
    for launches, sub in totals.groupby("launches_other", sort=True):
        for mechanism, by in list(sub.groupby("mechanism", sort=True)) + [("all", sub)]:
            false, flagged = int(by["false_changes"].sum()), int(by["flagged"].sum())
            rows.append({"launches a side": launches, "mechanism": mechanism, "flagged points": flagged,
                         "not injected": false,
                         "FDR": "–" if not flagged else f"{false} / {flagged} ({100 * fdr(false, flagged):.1f} %)"})
    table = pd.DataFrame(rows)
    return ["## False discovery rate over the injected settings", "",
            "Of the points flagged changed in the injected settings (every experiment and percent), the share "
            "outside the injected subset: flagged points not injected / flagged points.", "",
            markdown_table(table, list(table.columns)), ""]


FIGURE = "detection.png"


def figure(summary, path):
    """Detection rate against the realised slowdown, one curve per mechanism and launch count."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    totals = _by_mechanism(summary)
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    colours = {m: f"C{i}" for i, m in enumerate(MECHANISMS)}
    styles = {n: s for n, s in zip(sorted(set(totals["launches_other"])) if len(totals) else [], ("--", "-", ":", "-."))}
    for (mechanism, launches), sub in totals.groupby(["mechanism", "launches_other"], sort=True):
        sub = sub.sort_values("injected_pct")
        rate = [d / n if n else float("nan") for d, n in zip(sub["detected"], sub["injected"])]
        ax.plot(100 * (sub["realised"] - 1), rate, marker="o", color=colours.get(mechanism, "k"),
                linestyle=styles.get(launches, "-"), label=f"{mechanism}, {launches} + {launches} launches")
    ax.set_xlabel("realised slowdown at the injected points (median, %)")
    ax.set_ylabel("detection rate (injected points flagged slower)")
    ax.set_ylim(-0.03, 1.03)
    ax.grid(alpha=0.3)
    if len(totals):
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write(outdir, summary, points, metas, source, alpha, threshold, variance=(None, None), shipped=None):
    import pandas as pd
    rows, per_point = variance
    with safeio.atomic_dir(outdir, "collrepro calibration") as staging:
        safeio.write_csv(Path(staging) / "summary.csv", summary, index=False)
        # one row per point, setting, design and block: gzip-compressed (a 48-round run gives 60 000)
        safeio.write_bytes(Path(staging) / POINTS_FILE,
                           gzip.compress(points.to_csv(index=False).encode(), mtime=0))
        if per_point is not None and len(per_point):
            safeio.write_csv(Path(staging) / "variance.csv", per_point, index=False)
        check = forecast_check(points)
        if shipped:
            safeio.write_csv(Path(staging) / SHIPPED_FILE, pd.DataFrame(shipped), index=False)
        if check is not None and len(check):
            safeio.write_csv(Path(staging) / FORECAST_FILE, check, index=False)
        safeio.write_text(Path(staging) / "README.md",
                          readme(summary, metas, source, alpha, threshold, rows, check, shipped,
                                 os.path.relpath(os.path.abspath(outdir), os.getcwd())))
        figure(summary, Path(staging) / FIGURE)
    return Path(outdir) / "README.md"


def _parser():
    ap = ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", metavar="DIR", help="what `collrepro versions --calibrate` wrote "
                                               "(default results/local/versions/calibration)")
    ap.add_argument("-o", "--out", required=True, help="output directory (replaced whole), e.g. "
                                                        "results/versions/calibration")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--threshold", type=float, default=0.05)
    ap.add_argument("--launches", default=DEFAULT_DESIGNS, help="the designs to evaluate, comma-separated: N "
                    "(the first N launches of each installation), NxB (B disjoint blocks of N rounds, B a "
                    "number or 'all': as many as were measured) or 'all' (every launch); default "
                    f"{DEFAULT_DESIGNS}: 5 and 10 rounds, the default `versions` first pass of 16, and every "
                    "launch; designs of more rounds than were measured are left out")
    return ap


def launch_counts(text):
    """--launches: '5,16x3,all' -> ((5, 1), (16, 3), (None, 1)); 'NxB' judges B disjoint blocks of
    N rounds, 'Nxall' as many blocks as the runs hold."""
    counts = []
    for item in str(text).split(","):
        item = item.strip()
        n, _, b = item.partition("x")
        if item == "all":
            counts.append((None, 1))
        elif n.isdigit() and int(n) >= 2 and (not _ or b == "all" or (b.isdigit() and int(b) >= 1)):
            counts.append((int(n), None if b == "all" else int(b or 1)))
        else:
            raise safeio.UserError(f"--launches: {item!r} is not a launch count (give numbers of 2 or "
                                   "more, NxB for B disjoint blocks of N rounds (B a number or 'all'), or "
                                   "'all', separated by commas, e.g. 5,10xall,all)")
    return tuple(dict.fromkeys(counts))


def main(argv=None, predicate=None):
    a = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    from collrepro.analysis.loading import inventory
    if not os.path.isdir(a.dir):
        raise safeio.UserError(f"{a.dir}: not a directory (run ./collrepro-py versions --calibrate first)")
    print(f"calibration: reading the runs in {a.dir} (minutes for a 48-round calibration)", file=sys.stderr,
          flush=True)
    entries = inventory.load_tree([a.dir])
    summary, points, shipped = analyse(entries, predicate, a.alpha, a.threshold, launch_counts(a.launches))
    metas = [m for e in entries for m in e.rs.metas]
    path = write(a.out, summary, points, metas, a.dir, a.alpha, a.threshold, variance_rows(entries), shipped)
    for _, r in summary.iterrows():
        print(f"{r['experiment']} {r['title']} ({r['launches_base']} + {r['launches_other']} launches): false changes {r['false_changes']}/{r['outside']}, "
              f"detected {r['detected']}/{r['injected']}" + (f", FDR {r['false_changes']}/{r['flagged']}"
                                                             if r["injected_pct"] else ""))
    print(path)
    return 0

