"""collrepro versions: one experiment on every known MPI installation, interleaved launch by
launch, then its trend, guideline and dashboard pages (`./collrepro versions` builds first).

Steps: the missing source builds (collrepro mpi build --missing), collbench for each
installation (collrepro mpi collbench), launch 1..L of CONFIG on every installation in turn
(collrepro run --installations ...), then analyze trend into <out>-reports/trend/. The points
whose trend row tripped the screen are measured again (re-measure on trip): a subset of CONFIG
holding those points, --remeasure-launches interleaved launches per installation into
<out>-remeasure/ (<out>-reports/remeasure.md, verdicts.csv). The first pass and the re-measure
are one group-sequential design: the re-measure's rounds come in --remeasure-looks looks (e.g.
16 + 16), and each look judges every round the point has so far, the first pass's included
(analyze trend --pool), under its share of alpha (look_levels: O'Brien-Fleming-like alpha
spending over the information fractions, so looking twice does not raise the false-change rate,
and a first-pass detection is not thrown away because later launches were noisier). A
first-pass change is never final: it is tripped and confirmed by a look. A point settled at a
look (a change, or `same`) keeps that look's verdict, and the next look runs only while some
point is unsettled. Then analyze guidelines and dashboard. A re-run resumes: finished
launches and points are kept.

--calibrate runs the calibration of the method instead (calibration.py): every
configs/versions/calibration-*.yaml at one rank per core on the base installation, its A/A copy
and its injected slowdowns by each of --mechanisms (pmpi-delay: derived `+slowN`; slowlib:
added `+preloadN`, the preload slowdown library of tests/slowlib), into
results/local/versions/calibration/; `collrepro-py versions
calibration DIR -o results/versions/calibration` analyses it.
"""

import contextlib
import glob
import io
import math
import os
import shutil
import subprocess
import sys
from fractions import Fraction

from collrepro import paths, safeio
from collrepro.launch import collrun, job_size, runs
from collrepro.cliargs import ArgumentParser
from collrepro.installations import cli as installations_cli
from collrepro.installations import registry
from collrepro.versions.sequential import (CHANGED_WORDS, DEFAULT_LOOKS, DEFAULT_REMEASURE, DEFAULT_ROUNDS,
                                           LOOK_LEAST, look_levels, look_rounds, remeasure_rows, tripped_rows)

PROG = "versions"
DEFAULT_CONFIG = os.path.join("configs", "versions", "seed001.yaml")
# The default design (results/versions/calibration/README.md: the rounds at which the calibration
# finds the injected slowdowns): a first pass of DEFAULT_ROUNDS paired rounds, then re-measure
# looks of as many rounds each for the tripped and undecided points, all within --budget
# minutes of measuring.
DEFAULT_BUDGET_MIN = 10.0
BUDGET_LIMIT_MIN = 7 * 24 * 60.0
FIRST_SHARE = 0.6          # of the budget, at most, for the first pass; the rest for the re-measure
ROUNDS_FILE = "rounds.json"  # <out>/: the measured time of a round (a re-run plans from it)
CONFIG_LIMIT = safeio.MIB
# The columns that name one point apart from its index (a subset config numbers points anew).
KEY_SKIP = ("point",)


def _say(message):
    print(f"[{PROG}] {message}", file=sys.stderr, flush=True)


def _parser():
    ap = ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("config", nargs="?", metavar="CONFIG.yaml",
                    help=f"the experiment (default {DEFAULT_CONFIG})")
    ap.add_argument("--np", default=None,
                    help="processes per launch (default $COLLREPRO_NP, else one per core; --calibrate: 2)")
    ap.add_argument("--budget", default=None, metavar="MINUTES",
                    help=f"minutes of measuring in all, first pass and re-measure (default {DEFAULT_BUDGET_MIN:g}): "
                         f"a first round is timed, the first pass takes up to {DEFAULT_ROUNDS} rounds within "
                         f"{100 * FIRST_SHARE:.0f} %% of it, the re-measure what is left")
    ap.add_argument("--launches", default=None,
                    help="rounds of the first pass, one launch per installation each (default $COLLREPRO_LAUNCHES, "
                         f"else as many as --budget allows, at most {DEFAULT_ROUNDS}; --calibrate: the "
                         "config's `launches`; 4 or more for verdicts)")
    ap.add_argument("--installations", default="", metavar="NAME[,NAME...]",
                    help="the installations to compare (default: every known one but the synthetic releases, "
                         "derived or preloading the slowdown library; --calibrate: the base installation, +aa, "
                         "+slowN and +preloadN for N in 5, 10, 15, 25, 50)")
    ap.add_argument("--remeasure-launches", default=None, metavar="N",
                    help=f"launches per installation that re-measure the points whose row tripped "
                         f"(default {DEFAULT_REMEASURE}; 0 turns re-measuring off; --calibrate: 0)")
    ap.add_argument("--remeasure-looks", default=None, metavar="K",
                    help=f"looks the re-measure's launches are split into, each under its share of "
                         f"alpha (default {DEFAULT_LOOKS}; at most one per {LOOK_LEAST} launches)")
    ap.add_argument("--out", default="", help="results directory (default results/local/versions/<experiment>, in the checkout or, installed, "
                                              "under the working directory; "
                                              "--calibrate: results/local/versions/calibration)")
    ap.add_argument("--calibrate", action="store_true",
                    help="run the calibration configs (configs/versions/calibration-*.yaml) on the base "
                         "installation, its A/A copy and its injected slowdowns")
    ap.add_argument("--base", default="openmpi",
                    help="--calibrate: the installation the synthetic releases derive from (default openmpi: "
                         "the Debian Open MPI)")
    ap.add_argument("--mechanisms", default="pmpi-delay,slowlib",
                    help="--calibrate: the injection mechanisms of the synthetic releases (default "
                         "pmpi-delay,slowlib: the PMPI delay mode, +slowN, and the preload slowdown library, +preloadN)")
    ap.add_argument("--dry-run", action="store_true",
                    help="check the installations and configs, print the launches it would run, run nothing")
    return ap


def _count(text, option, allow_zero=False):
    if allow_zero and str(text).strip() == "0":
        return 0
    return runs.positive_number(str(text).strip(), option)


def _analyze(argv):
    """analyze ARGV with its report lines on stdout left out; its exit code."""
    from collrepro.analysis import cli as analysis_cli
    with contextlib.redirect_stdout(io.StringIO()):
        return analysis_cli.main(argv)


def _findings(step, rc, where):
    """Say what a trend or guideline report found; False when the step failed."""
    if rc == safeio.EXIT_FINDING:
        _say(f"{step}: significant findings, see {where}/{step}.md")
    elif rc == safeio.EXIT_INCOMPLETE:
        _say(f"{step}: too few launches for some verdicts (4 per installation are needed), see {where}/{step}.md")
    return rc in (safeio.EXIT_OK, safeio.EXIT_FINDING, safeio.EXIT_INCOMPLETE)


# ------------------------------------------------------------------ the launches

def interleaved(names, np, launches, out, config, sets=(), dry_run=False):
    """L rounds of CONFIG, launch l of every installation in round l (collrun --installations:
    a seeded order drawn afresh each round, recorded in the metadata), into <out>/<name>/; collrun's
    exit code. Finished launches are kept: a re-run resumes."""
    argv = ["--installations", ",".join(names), "--np", str(np), "--launches", str(launches), "--out", out,
            config, "--", "--quiet", "--set", f"launches={launches}"]
    for s in sets:
        argv += ["--set", s]
    if dry_run:
        _say("would run: collrun " + " ".join(argv))
        return 0
    return safeio.run_cli("collrun", collrun.collrun, argv)


# ------------------------------------------------------------------ re-measure on trip

def is_changed(verdict):
    return str(verdict) in CHANGED_WORDS


def _text(value):
    """One cell as text, alike for 1024, 1024.0 and '1024'; '' for a missing value."""
    if value is None:
        return ""
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return str(int(value)) if value.is_integer() else repr(value)
    text = str(value)
    try:
        number = float(text)
    except ValueError:
        return "" if text.lower() == "nan" else text
    if math.isnan(number):
        return ""
    return str(int(number)) if number.is_integer() else text


def point_key(row, columns):
    """A point's identity apart from its index: `columns` without 'point', as text."""
    return "|".join(_text(row.get(c)) for c in columns if c not in KEY_SKIP)


def _key_columns(*tables):
    from collrepro.analysis.frames.aggregate import MATCH_KEY
    # before / after: a trend table with one row per consecutive pair of installations
    cols = ["library", "before", "after"] + [c for c in MATCH_KEY if c not in KEY_SKIP]
    return [c for c in cols if all(c in t.columns for t in tables)]


def _ratio_text(a, b, sep):
    """'a<sep>b' in lowest terms ('1/3', '4:1'); None when not two whole numbers."""
    try:
        a, b = int(float(a)), int(float(b))
    except (TypeError, ValueError):
        return None
    if a < 0 or b < 0 or (a == 0 and b == 0):
        return None
    if a == 0 or b == 0:
        return f"{int(a > 0)}{sep}{int(b > 0)}"
    f = Fraction(a, b)
    return f"{f.numerator}{sep}{f.denominator}"


def _unique(values):
    out = []
    for v in values:
        if v is not None and v not in out:
            out.append(v)
    return out


def subset_config(config, rows):
    """CONFIG (a dict) restricted to the points of `rows` (trend rows): their sizes, group
    ratios, block ratios and algorithms. The cross product of these may hold a few points more;
    every setting keeps only its own algorithms among the tripped ones (a setting left without
    one is dropped)."""
    sub = dict(config)
    records = rows.to_dict("records") if hasattr(rows, "to_dict") else list(rows)
    sizes = sorted({int(float(r["msg_bytes"])) for r in records if _text(r.get("msg_bytes"))})
    algorithms = _unique(str(r["algorithm"]) for r in records if _text(r.get("algorithm")))
    ratios = _unique(_ratio_text(r.get("p"), r.get("q"), "/") for r in records)
    blocks = _unique(_ratio_text(r.get("ka"), r.get("kb"), ":") for r in records)
    replace = {"sizes": sizes}
    if blocks and ("blocks" in config or any("blocks" in s for s in config.get("settings") or [])):
        replace["blocks"] = blocks
    groups = config.get("groups")
    if ratios and isinstance(groups, dict) and "ratios" in groups:
        replace["groups"] = dict(groups, ratios=ratios)
    for key, value in replace.items():
        if value:
            sub[key] = value
    if "algorithms" in config or not config.get("settings"):
        sub["algorithms"] = algorithms
    settings = []
    for s in config.get("settings") or []:
        s = dict(s)
        for key, value in replace.items():
            if key in s and value:
                s[key] = value
        if "algorithms" in s:
            own = s["algorithms"] if isinstance(s["algorithms"], list) else algorithms
            s["algorithms"] = [a for a in own if a in algorithms] if isinstance(s["algorithms"], list) else algorithms
            if not s["algorithms"]:
                continue
        settings.append(s)
    if config.get("settings"):
        sub["settings"] = settings
    return sub


def merge_verdicts(first, fresh):
    """The final verdict table: `first` (the trend of the L launches) with every tripped row's
    verdict columns taken from `fresh` (the trend of the re-measure launches) where it has the
    point. Adds first_verdict, remeasured and held. Returns (table, counts)."""
    import pandas as pd
    table = first.copy()
    table["first_verdict"] = table["verdict"] if "verdict" in table.columns else ""
    table["remeasured"] = False
    table["held"] = False
    trip = remeasure_rows(first)
    tripped = len(tripped_rows(first)) if len(first) else 0
    counts = {"points": len(first), "tripped": tripped, "undecided": len(trip) - tripped, "remeasured": 0, "held": 0}
    if fresh is None or len(fresh) == 0 or len(trip) == 0:
        return table, counts
    cols = _key_columns(first, fresh)
    fresh_by_key = {point_key(r, cols): r for r in fresh.to_dict("records")}
    carry = [c for c in fresh.columns if c not in cols and c not in KEY_SKIP]
    for index in trip.index:
        row = fresh_by_key.get(point_key(first.loc[index].to_dict(), cols))
        if row is None:
            continue
        for c in carry:
            if c not in table.columns:
                table[c] = pd.Series([None] * len(table), index=table.index, dtype=object)
            if table[c].dtype != object and not isinstance(row[c], (int, float)):
                table[c] = table[c].astype(object)
            table.at[index, c] = row[c]
        table.at[index, "remeasured"] = True
        held = is_changed(row.get("verdict"))
        table.at[index, "held"] = held
        counts["remeasured"] += 1
        counts["held"] += int(held)
    return table, counts


def _read_table(path):
    import pandas as pd
    from collrepro.analysis.loading.errors import InputError
    safeio.check_size(path, 256 * safeio.MIB, "a trend table")
    try:
        return pd.read_csv(path, dtype={"verdict": str, "reason": str})
    except (ValueError, pd.errors.ParserError) as err:
        raise InputError(f"{path}: not a trend table: {safeio.excerpt(err)}") from None



def sequential_fresh(first, looks):
    """The fresh verdict table of a sequential re-measure: per point, the row of the first look
    that settled it (stats.settled), else of the last look; looks: [(rounds, alpha, trend table)]
    in order. Adds look, rounds_used, look_alpha and stopped (why measuring it stopped)."""
    import pandas as pd
    from collrepro.analysis.verdicts import stats
    cols = _key_columns(first, *[t for _, _, t in looks])
    chosen, evidence = {}, {}
    for k, (rounds, level, table) in enumerate(looks, 1):
        for r in table.to_dict("records"):
            key = point_key(r, cols)
            if key in chosen and stats.settled(chosen[key].get("verdict")):
                continue
            evidence.setdefault(key, []).append(_look_text(k, r))
            stopped = (f"settled at look {k} ({rounds} rounds)" if stats.settled(r.get("verdict")) else
                       f"round budget spent ({rounds} rounds in {k} looks)")
            chosen[key] = dict(r, look=k, rounds_used=rounds, look_alpha=level, stopped=stopped,
                               looks="; ".join(evidence[key]))
    return pd.DataFrame(list(chosen.values()))


def _look_text(k, row):
    """'look 2: x0.93 [0.91, 0.95] improvement (32+32)': one look's evidence for one point."""
    def number(key):
        with contextlib.suppress(KeyError, TypeError, ValueError):
            value = float(row[key])
            return f"{value:.3g}" if math.isfinite(value) else ""
        return ""
    low, high = number("ci_low"), number("ci_high")
    text = f"x{number('ratio') or '?'}" + (f" [{low}, {high}]" if low and high else "")
    return f"look {k}: {text} {row.get('verdict', '')} ({_text(row.get('n_before'))}+{_text(row.get('n_after'))})"


def _unsettled(first, table):
    """Whether a tripped point of `first` is not yet settled (or not yet measured) in `table`."""
    from collrepro.analysis.verdicts import stats
    cols = _key_columns(first, table)
    verdicts = {point_key(r, cols): r.get("verdict") for r in table.to_dict("records")}
    return any(not stats.settled(verdicts.get(point_key(r, cols)))
               for r in remeasure_rows(first).to_dict("records"))


def _taken_text(first, taken):
    tripped = len(tripped_rows(first))
    return (f"{tripped} of {len(first)} points tripped" +
            (f" and {len(taken) - tripped} undecided" if len(taken) > tripped else ""))


def remeasure_summary(counts, launches):
    undecided = counts.get("undecided", 0)
    return (f"re-measure: {counts['tripped']} of {counts['points']} points tripped"
            + (f" and {undecided} undecided" if undecided else "") + ", "
            f"{counts['remeasured']} re-measured with {launches} fresh interleaved launches per installation, "
            f"{counts['held']} held (still changed with the fresh launches added)")


def _write_remeasure_report(reports, first, table, counts, launches, subset_path):
    cols = [c for c in ("library", "before", "after", "setting", "shape", "algorithm", "msg_bytes",
                        "first_verdict", "verdict",
                        "reason", "ratio", "ci_low", "ci_high", "q_value", "n_before", "n_after", "held",
                        "rounds_used", "look_alpha", "stopped", "looks")
            if c in table.columns]
    trip = table.loc[remeasure_rows(first).index].copy()
    if "reason" in trip.columns:
        trip["reason"] = trip["reason"].fillna("").astype(str)
    if "q_value" in trip.columns:
        trip["q_value"] = [f"{q:.2g}" if isinstance(q, (int, float)) else str(q) for q in trip["q_value"]]
    lines = ["# Re-measure", "", remeasure_summary(counts, launches) + ".", "",
             "The points whose row tripped the screen, and those left undecided (`inconclusive` between "
             "comparable sides), were measured again with fresh interleaved launches "
             f"(the subset config {os.path.basename(subset_path)}). The fresh launches come in looks; each "
             "look judges all the rounds the point has so far, the first pass's included (one "
             "group-sequential design), under its share of alpha (alpha spending over the rounds, "
             "docs/verdicts.md), so the false-change rate holds however many looks run and a detection "
             "is not lost because later launches were noisier. A point keeps the verdict of the look that "
             "settled it (`stopped`, `rounds_used`: the re-measure's rounds, `look_alpha`); `looks` gives "
             "its evidence at every look. `verdicts.csv` is the trend table with these verdicts in place "
             "(first_verdict, remeasured, held).",
             ""]
    if len(trip):
        from collrepro.analysis.frames.tables import markdown_table
        lines += [markdown_table(trip, cols), ""]
    safeio.write_text(os.path.join(reports, "remeasure.md"), "\n".join(lines))
    safeio.write_csv(os.path.join(reports, "verdicts.csv"), table, index=False)



def remeasure(config, names, np, launches, out, reports, dry_run=False, looks=DEFAULT_LOOKS, first_rounds=0):
    """Re-measure the tripped and undecided points of <reports>/trend/regressions.csv in `looks`
    sequential looks (look_rounds, look_levels), each judging the first pass's `first_rounds`
    rounds and the re-measure's so far together (analyze trend --pool); 0 or the failing step's
    exit code."""
    from collrepro.analysis.verdicts import stats
    first = _read_table(os.path.join(reports, "trend", "regressions.csv"))
    trip = remeasure_rows(first)
    if launches == 0 or len(trip) == 0:
        table, counts = merge_verdicts(first, None)
        _say(f"re-measure: {counts['tripped']} of {counts['points']} points tripped, {counts['undecided']} undecided"
             + (", re-measuring is off (--remeasure-launches 0)" if launches == 0 and len(trip) else ""))
        if not dry_run:
            safeio.write_csv(os.path.join(reports, "verdicts.csv"), table, index=False)
        return 0
    original = safeio.load_yaml_file(config, CONFIG_LIMIT, "the experiment config")
    if not isinstance(original, dict):
        raise safeio.UserError(f"{config}: not an experiment config (want a YAML map)")
    libraries = set(trip["library"].astype(str)) if "library" in trip.columns else set()
    kinds = {}
    for n in names:
        with contextlib.suppress(registry.RegistryError):
            kinds[n] = registry.resolve(n).kind
    again = [n for n in names if not libraries or kinds.get(n, n.split("-", 1)[0]) in libraries]
    where = out.rstrip(os.sep) + "-remeasure"
    subset_path = os.path.join(where, "remeasure.yaml")
    import yaml
    text = ("# The points that tripped in " + os.path.basename(out.rstrip(os.sep)) + ", measured again "
            "(written by collrepro versions)\n" + yaml.safe_dump(subset_config(original, trip), sort_keys=False))
    rounds = look_rounds(launches, looks)
    levels = look_levels(first_rounds, rounds)
    _say(f"re-measure: {_taken_text(first, trip)}; measuring them again with "
         f"{launches} interleaved launches on {','.join(again)} into {where}, in {len(rounds)} look(s) "
         f"at {', '.join(map(str, rounds))} rounds, each judged with the first pass's {first_rounds} "
         f"(alpha {', '.join(f'{a:.3g}' for a in levels)})")
    if dry_run:
        return interleaved(again, np, launches, where, subset_path, dry_run=True)
    os.makedirs(where, exist_ok=True)
    safeio.write_text(subset_path, text)
    done = []
    for k, (n, level) in enumerate(zip(rounds, levels), 1):
        rc = interleaved(again, np, n, where, subset_path)
        if rc:
            return rc
        fresh_dir = os.path.join(reports, "trend-remeasure" + (f"-look{k}" if len(rounds) > 1 else ""))
        rc = _analyze(["trend", out, where, "--pool", "-o", fresh_dir, "--alpha", repr(level),
                       "--min-launches", str(stats.min_launches(stats.ALPHA))])
        if not _findings("trend", rc, fresh_dir):
            _say(f"analyze trend of the re-measure failed (exit {rc}, docs/exit-codes.md)")
            return rc
        done.append((n, level, _read_table(os.path.join(fresh_dir, "regressions.csv"))))
        if not _unsettled(first, sequential_fresh(first, done)):
            break
    table, counts = merge_verdicts(first, sequential_fresh(first, done))
    _write_remeasure_report(reports, first, table, counts, done[-1][0], subset_path)
    _say(remeasure_summary(counts, done[-1][0]) + f"; see {reports}/remeasure.md")
    return 0


# ------------------------------------------------------------------ the process count

def _cut_ratios(groups, np):
    """(kept ratios, left out [(ratio, multiple)]) of a `groups` map at np processes."""
    ratios = [str(r) for r in (groups or {}).get("ratios") or []] if isinstance(groups, dict) else []
    kept, out = [], []
    for r in ratios:
        need = job_size.ratio_parts(r)
        if need is None or np % need == 0:   # collbench names a bad ratio itself
            kept.append(r)
        else:
            out.append((r, need))
    return kept, out


def fit_config(config, np):
    """CONFIG (a dict) cut to what `np` processes run: the group ratios of its top level and of
    each setting that need another multiple are left out, and a setting left with none is
    dropped. Returns (the config, [(where, ratio, multiple)] left out); the config unchanged
    when all fits."""
    fitted, left = dict(config), []
    kept, out = _cut_ratios(config.get("groups"), np)
    left += [("groups.ratios", r, n) for r, n in out]
    if out:
        fitted["groups"] = dict(config["groups"], ratios=kept)
    settings = []
    for i, setting in enumerate(config.get("settings") or []):
        own, out = _cut_ratios(setting.get("groups") if isinstance(setting, dict) else None, np)
        name = setting.get("name", f"settings[{i}]") if isinstance(setting, dict) else f"settings[{i}]"
        left += [(f"setting '{name}'", r, n) for r, n in out]
        if out and not own:
            continue
        settings.append(dict(setting, groups=dict(setting["groups"], ratios=own)) if out else setting)
    if config.get("settings"):
        fitted["settings"] = settings
    return fitted, left


def fitted_config(config_path, np, out, chosen, dry_run=False):
    """The config to run at np processes: CONFIG itself when it fits (or np was chosen by the
    user: collbench then says what does not fit), else <out>/fitted.yaml without the ratios that
    do not fit, said in one line; UserError when nothing is left."""
    if chosen:
        return config_path
    original = safeio.load_yaml_file(config_path, CONFIG_LIMIT, "the experiment config")
    if not isinstance(original, dict):
        raise safeio.UserError(f"{config_path}: not an experiment config (want a YAML map)")
    fitted, left = fit_config(original, np)
    if not left:
        return config_path
    gone = "; ".join(f"{where} {ratio} (needs a multiple of {n})" for where, ratio, n in left)
    if (fitted.get("settings") == [] and original.get("settings")) or \
            (isinstance(fitted.get("groups"), dict) and fitted["groups"].get("ratios") == []
             and not fitted.get("settings")):
        raise safeio.UserError(f"{config_path}: nothing fits {np} processes, one per core ({gone}); give --np N "
                               "(oversubscribed runs are not comparable) or another config")
    import yaml
    path = os.path.join(out, "fitted.yaml")
    _say(f"{np} processes, one per core: left out {gone}; --np N or COLLREPRO_NP runs them (more ranks than "
         f"cores are oversubscribed, and not comparable); {'would run' if dry_run else 'running'} {path}")
    if dry_run:
        return path
    os.makedirs(out, exist_ok=True)
    safeio.write_text(path, f"# {os.path.basename(config_path)} at {np} processes, one per core (written by "
                            f"collrepro versions): left out {gone}\n" + yaml.safe_dump(fitted, sort_keys=False))
    return path


# ------------------------------------------------------------------ the budget

def budget_seconds(text):
    """--budget MINUTES -> seconds (default DEFAULT_BUDGET_MIN); UserError naming the field."""
    if text is None:
        return DEFAULT_BUDGET_MIN * 60.0
    try:
        minutes = float(str(text).strip())
    except ValueError:
        minutes = math.nan
    if not (math.isfinite(minutes) and 0 < minutes <= BUDGET_LIMIT_MIN):
        raise safeio.UserError(f"--budget {text}: want minutes above 0 and at most {BUDGET_LIMIT_MIN:g} "
                               f"(a week), e.g. --budget {DEFAULT_BUDGET_MIN:g}")
    return minutes * 60.0


class Budget:
    """The measuring time of one `versions` run: started when made; the time of a round, measured
    by the first pass's first round (or read back from <out>/rounds.json on a re-run)."""

    def __init__(self, seconds, clock=None):
        import time
        self.seconds, self.clock = seconds, clock or time.monotonic
        self.start = self.clock()
        self.round_s = None

    def left(self):
        return self.seconds - (self.clock() - self.start)

    def first_rounds(self, need):
        """The first pass's rounds: up to DEFAULT_ROUNDS within FIRST_SHARE of the budget, at least
        `need` (a UserError naming --budget where even those do not fit)."""
        fit = int(FIRST_SHARE * self.seconds // self.round_s) if self.round_s > 0 else DEFAULT_ROUNDS
        if fit < need:
            least = math.ceil(need * self.round_s / FIRST_SHARE / 60)
            raise safeio.UserError(
                f"--budget {self.seconds / 60:g}: a round took {self.round_s:.0f} s here, so the {need} rounds "
                f"a verdict needs take {need * self.round_s / 60:.1f} min; give --budget {least} or more (or "
                "--launches N, fewer installations or a smaller config)")
        return min(DEFAULT_ROUNDS, fit)

    def remeasure_rounds(self, wanted, out):
        """The re-measure's rounds: `wanted`, cut to what is left of the budget at a full round's
        time (a subset round is shorter: an upper bound); 0 when fewer than LOOK_LEAST fit."""
        if not wanted or not self.round_s:
            return wanted
        fit = int(max(0.0, self.left()) // self.round_s)
        if fit >= wanted:
            return wanted
        rounds = fit if fit >= LOOK_LEAST else 0
        _say(f"budget: {max(0.0, self.left()) / 60:.1f} min left of {self.seconds / 60:g}, at {self.round_s:.0f} s a "
             f"round: the re-measure gets {rounds} of its {wanted} rounds"
             + ("" if rounds else f" (fewer than {LOOK_LEAST}: none; --budget to give it more)"))
        return rounds


def _rounds_done(out, names):
    """Rounds already complete in <out> (every installation's launch l present): a re-run resumes."""
    done = []
    for n in names:
        metas = glob.glob(os.path.join(out, n, "meta-L*.json*"))
        done.append(len(metas))
    return min(done) if done else 0


def first_pass(names, np, launches, out, config, clock):
    """The first pass: `launches` rounds, or (None) a first round timed and as many more as the
    budget allows (Budget.first_rounds), with the time of a round kept in <out>/rounds.json.
    Returns (collrun's exit code, the rounds)."""
    import json
    import time
    from collrepro.analysis.verdicts import stats
    record = os.path.join(out, ROUNDS_FILE)
    if os.path.isfile(record):
        with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
            with open(record) as f:
                clock.round_s = float(json.load(f).get("round_s"))
    if clock.round_s is None and _rounds_done(out, names):
        _say(f"{out} holds rounds of an earlier run that recorded no round time: the budget plans without "
             f"one ({launches or DEFAULT_ROUNDS} rounds, the re-measure uncut)")
    elif clock.round_s is None:
        began = time.monotonic()
        _say(f"timing a first round of {len(names)} launches ({config} at {np} processes)")
        rc = interleaved(names, np, 1, out, config)
        if rc:
            return rc, 0
        clock.round_s = max(time.monotonic() - began, 1e-3)
        safeio.write_text(record, json.dumps({"round_s": clock.round_s, "installations": names}) + "\n")
    if launches is None:
        launches = clock.first_rounds(stats.min_launches(stats.ALPHA)) if clock.round_s else DEFAULT_ROUNDS
    if clock.round_s:
        eta = time.strftime("%H:%M", time.localtime(time.time() + launches * clock.round_s))
        _say(f"running {config} on {','.join(names)} into {out}: {launches} rounds, one launch per installation "
             f"each, interleaved ({clock.round_s:.1f} s a round: about {launches * clock.round_s / 60:.1f} min, "
             f"done near {eta}; budget {clock.seconds / 60:g} min)")
    return interleaved(names, np, launches, out, config), launches


# ------------------------------------------------------------------ the commands

def _prepare(names, build_missing):
    """Source builds (when every installation is wanted) and collbench for `names`; 0 or a code."""
    steps = ([["build", "--missing"]] if build_missing else []) + ([["collbench"] + names] if names else [])
    for step in steps:
        rc = safeio.run_cli("collmpi", installations_cli.main, step)
        if rc:
            return rc
    return 0


def default_installations():
    """Every known installation but the synthetic releases: derived ones (the delay mode's, A/A
    copies) and added ones that preload the slowdown library (the calibration's `+preloadN`);
    those run only when named."""
    from collrepro.installations import slowlib
    return [i.name for i in registry.all_installations() if i.origin != "derived" and not slowlib.rules_of(i)]


def _names(option):
    names = [n for n in option.split(",") if n]
    if not names or len(set(names)) != len(names):
        raise safeio.UserError(f"--installations {option}: give distinct names, comma-separated")
    return names


def _declare_preload(name, dry_run):
    """A calibration `<base>+preloadN`, added where missing (registry.add_entry, as a user adds an
    installation): the base with the preload slowdown library and slowlib.calibration_rule(N)."""
    from collrepro.versions import calibration
    from collrepro.installations import slowlib
    rule = slowlib.calibration_rule(calibration.setting_of(name)[1])
    try:
        have = slowlib.rules_of(registry.resolve(name))
    except registry.RegistryError:
        _say(f"{'would add' if dry_run else 'adding'} {name}: {calibration.base_of(name)} with the preload "
             f"slowdown library, {slowlib.VARIABLE}={rule}")
        if not dry_run:
            registry.add_entry(slowlib.installation(name, registry.resolve(calibration.base_of(name)), rule))
        return
    if have != rule:
        _say(f"{name} is added with {slowlib.VARIABLE} '{have}', not '{rule}': it runs as added (the analysis "
             f"reads the rule from the metadata; `bench/collmpi remove {name}` to take the calibration's)")


def _declare(names, dry_run):
    """The installations of the calibration, declared where missing: `<base>+aa` an A/A copy and
    `<base>+slowN` the base with calibration.delay_rule_for(N) (collmpi derive), `<base>+preloadN`
    an added installation (_declare_preload)."""
    from collrepro.versions import calibration
    for name in names:
        setting = calibration.setting_of(name)
        if setting is None:
            continue
        if calibration.mechanism_of(setting[0]) == "slowlib":
            _declare_preload(name, dry_run)
            continue
        placebo = calibration.is_placebo(*setting)      # +slow0: the delay mode loaded, +0 %
        rule = calibration.delay_rule_for(setting[1]) if setting[1] or placebo else ""
        try:
            inst = registry.resolve(name)
        except registry.RegistryError:
            _say(f"{'would declare' if dry_run else 'declaring'} {name}: {calibration.base_of(name)} "
                 + (f"with COLLREPRO_PMPI_DELAY={rule}" if rule else "launched separately (an A/A copy)"))
            if not dry_run:
                registry.derive(name, calibration.base_of(name), delay=rule)
            continue
        have = getattr(inst, "delay", "") or ""
        if have != rule:
            _say(f"{name} is declared with delay '{have}', not '{rule}': it runs as declared (the analysis "
                 f"reads the rule from the metadata; `bench/collmpi remove {name}` to take the calibration's)")


def _has_delay_mode(library):
    """The PMPI library exists and knows COLLREPRO_PMPI_DELAY (one built before the delay mode
    ignores the variable: a synthetic release would run undelayed)."""
    try:
        with open(library, "rb") as f:
            return b"COLLREPRO_PMPI_DELAY" in f.read(256 * safeio.MIB)
    except OSError:
        return False


def _unbuilt(names):
    """The installations whose collbench or preloaded PMPI library is missing (or predates the
    delay mode)."""
    from collrepro.installations import collbench as installed_collbench
    missing = []
    for name in names:
        try:
            inst = registry.resolve(name)
        except registry.RegistryError:  # declared by a dry run's real run: its base decides
            continue
        ready = installed_collbench.executable(inst) is not None
        if ready and getattr(inst, "origin", "") == "derived":
            from collrepro.installations import derived
            ready = not derived.preloaded_library(inst) or _has_delay_mode(derived.preloaded_library(inst))
        if not ready:
            missing.append(name)
    return missing


def _say_builds(names, unbuilt, dry_run, build_missing):
    """One line on what is built before the first launch: nothing, or which collbench builds
    (each a CMake configure and build into build/<name>/: minutes on this machine)."""
    verb = "would build" if dry_run else "building"
    if build_missing:
        _say(f"{'would build' if dry_run else 'building'} the source releases not built yet first "
             "(bench/collmpi build --missing; none when all are)")
    if unbuilt:
        _say(f"collbench or the PMPI library is not built for {','.join(unbuilt)}: {verb} it into "
             + ", ".join(f"build/{n}/" for n in unbuilt) + " first (minutes each; log: build/<name>/collmpi-build.log)")
    else:
        _say(f"collbench is built for {','.join(names)}: nothing to build")


def _check_slowlib(names):
    """The preload slowdown library of the `+preloadN` installations exists (it is built with the
    tests, not by collmpi collbench); EnvironmentProblem (one line, exit 5) naming the command."""
    from collrepro.installations import slowlib
    for name in names:
        try:
            inst = registry.resolve(name)
        except registry.RegistryError:  # a dry run: not added yet
            continue
        lib = inst.env.get("LD_PRELOAD", "")
        if slowlib.rules_of(inst) and not os.path.isfile(lib):
            raise safeio.EnvironmentProblem(f"{name}: {lib} is missing (the preload slowdown library): "
                                            f"cmake --build --preset {inst.kind} --target collrepro_slowlib")


def _calibrate(a):
    from collrepro.versions import calibration
    configs = sorted(glob.glob(os.path.join(paths.REPO, "configs", "versions", "calibration-*.yaml")))
    if a.config:
        configs = [a.config]
    if not configs:
        raise safeio.UserError("no configs/versions/calibration-*.yaml found")
    names = (_names(a.installations) if a.installations
             else calibration.installation_names(a.base, calibration.mechanisms_option(a.mechanisms)))
    np = _count(a.np or "2", "--np")
    root = a.out or os.path.join(paths.output_root(), "versions", "calibration")
    plan = []
    for config in configs:
        data = safeio.load_yaml_file(config, CONFIG_LIMIT, "the calibration config")
        launches = _count(a.launches or str(data.get("launches", 5)), "--launches")
        plan.append((config, data.get("experiment") or os.path.splitext(os.path.basename(config))[0], launches))
    _say(f"calibration: {len(plan)} experiments on {','.join(names)} at {np} processes into {root}")
    _declare(names, a.dry_run)
    _check_slowlib(names)
    unbuilt = _unbuilt(names)
    if unbuilt:
        _say(f"collbench or the PMPI library is not built for {','.join(unbuilt)}: "
             + ("the run builds them first" if a.dry_run else "building them first"))
        if not a.dry_run:
            rc = _prepare(unbuilt, build_missing=False)
            if rc:
                return rc
    total = sum(launches for _, _, launches in plan) * len(names)
    _say(f"{total} launches in all ({len(names)} installations; "
         + ", ".join(f"{e}: {n} each" for _, e, n in plan) + ")")
    for config, experiment, launches in plan:
        out = os.path.join(root, experiment)
        _say(f"{experiment}: {config}, {launches} rounds of one launch per installation, into {out}")
        rc = interleaved(names, np, launches, out, config, dry_run=a.dry_run)
        if rc:
            return rc
    _say(f"{'dry run: ' if a.dry_run else ''}analyse with: ./collrepro-py versions calibration "
         f"{root} -o results/versions/calibration")
    return 0


def _forecast_before(reports, rounds):
    """The forecast of this run from the earlier run's reports in `reports` (read before this run
    replaces them), said in one line; (pilot rows, their source) or None."""
    from collrepro.versions import forecast
    earlier = forecast.earlier_pilot(reports)
    if earlier is None:
        _say("forecast: no earlier run of this experiment here to forecast from (the next run will have this one)")
        return None
    _say(forecast.summary_line(earlier, rounds))
    return earlier, os.path.relpath(reports)


def _forecast_after(reports, earlier, rounds):
    """<reports>/forecast.md: the forecast against this run's first-pass outcome."""
    if earlier is None:
        return
    from collrepro.versions import forecast
    table = _read_table(os.path.join(reports, "trend", "regressions.csv"))
    rows = forecast.outcome(earlier[0], table, rounds)
    path = os.path.join(reports, forecast.OUTCOME_FILE)
    safeio.write_text(path, forecast.outcome_text(rows, rounds, 0.9, earlier[1]))
    expected = [r for r in rows if r["expected"]]
    _say(f"forecast against outcome: {sum(r['found'] for r in expected)} of {len(expected)} points changed by at "
         f"least their forecast change were found; see {path}")


def main(argv=None):
    """The exit code of `collrepro versions ARGV`: the first failing step's code, else 0 (a
    trend or guideline finding is reported, not returned)."""
    a = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    if a.config and not os.path.isfile(a.config):
        raise safeio.UserError(f"config not found: {a.config} (give a YAML experiment, e.g. {DEFAULT_CONFIG})")
    if a.calibrate:
        return _calibrate(a)
    config = a.config or os.path.join(paths.REPO, DEFAULT_CONFIG)
    if not os.path.isfile(config):
        raise safeio.UserError(f"config not found: {config} (give a YAML experiment, e.g. {DEFAULT_CONFIG})")
    fixed = a.launches or os.environ.get("COLLREPRO_LAUNCHES")
    launches = _count(fixed, "--launches") if fixed else None
    budget = budget_seconds(a.budget)
    chosen_np = a.np or os.environ.get("COLLREPRO_NP")
    np = _count(chosen_np or str(job_size.cores()), "--np")
    again = _count(DEFAULT_REMEASURE if a.remeasure_launches is None else a.remeasure_launches,
                   "--remeasure-launches", allow_zero=True)
    looks = _count(DEFAULT_LOOKS if a.remeasure_looks is None else a.remeasure_looks, "--remeasure-looks")
    if a.installations:
        names = _names(a.installations)
        for n in names:
            registry.resolve(n)
    else:
        names = default_installations()
    unbuilt = _unbuilt(names)
    _say_builds(names, unbuilt, a.dry_run, build_missing=not a.installations)
    if not a.dry_run:
        rc = _prepare(unbuilt, build_missing=not a.installations)
        if rc:
            return rc
    name = os.path.splitext(os.path.basename(config))[0]
    out = a.out or os.path.join(paths.output_root(), "versions", name)
    clock = Budget(budget)
    config = fitted_config(config, np, out, chosen_np, a.dry_run)
    if a.dry_run:
        _say(f"dry run: {config} on {','.join(names)} at {np} processes into {out}: "
             + (f"{launches} rounds" if launches else
                f"a first round timed, then up to {DEFAULT_ROUNDS} rounds within {FIRST_SHARE:.0%} of "
                f"{budget / 60:g} min"))
        rc = interleaved(names, np, launches or DEFAULT_ROUNDS, out, config, dry_run=True)
        _say(f"dry run: then trend into {out.rstrip(os.sep)}-reports/trend, re-measure of the tripped and "
             f"undecided points (up to {again} rounds, in up to {looks} looks, within what is left of the "
             f"budget) into {out.rstrip(os.sep)}-remeasure, guidelines and dashboard")
        return rc
    reports = out.rstrip(os.sep) + "-reports"
    earlier = _forecast_before(reports, launches or DEFAULT_ROUNDS)
    rc, launches = first_pass(names, np, launches, out, config, clock)
    if rc:
        return rc
    rc = _analyze(["trend", out, "-o", os.path.join(reports, "trend")])
    if not _findings("trend", rc, os.path.join(reports, "trend")):
        _say(f"analyze trend failed (exit {rc}, docs/exit-codes.md)")
        return rc
    _forecast_after(reports, earlier, launches)
    again = clock.remeasure_rounds(again, out)
    rc = remeasure(config, names, np, again, out, reports, looks=looks, first_rounds=launches)
    if rc:
        return rc
    rc = _analyze(["guidelines", out, "-o", os.path.join(reports, "guidelines")])
    if not _findings("guidelines", rc, os.path.join(reports, "guidelines")):
        _say(f"analyze guidelines failed (exit {rc}, docs/exit-codes.md)")
        return rc
    rc = _analyze(["dashboard", out, "-o", os.path.join(reports, "dashboard")])
    if rc:
        return rc
    page = os.path.join(os.path.abspath(reports), "dashboard", "index.html")
    _say(f"done: dashboard at file://{page}")
    if os.environ.get("DISPLAY") and shutil.which("xdg-open"):
        subprocess.call(["xdg-open", page])
    return 0
