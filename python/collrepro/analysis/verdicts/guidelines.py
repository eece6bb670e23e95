"""Self-consistent performance guidelines: a library's native collective should not be slower
than a mock-up of the same collective built from its other collectives (Träff's guidelines,
as the PGMPI framework of Hunold and Träff checks them).

Per installation and point, the native algorithm's per-launch medians are compared with the
mock-up's, measured at the same shape and size in the same result directory, under the method of
stats.py (paired by launch: the two ran in the same launch, so the unit is that launch's log
ratio; Benjamini-Hochberg over each guideline's checks in one experiment; the interval gate) and
comparability.py: a violation is a comparable regression of the native against its mock-up, and
`kept` needs comparable sides too.

The guidelines are the catalogue's (python/collrepro/catalogue.json, made from the registry): a
mock-up algorithm's registration names the guideline it stands for and the natives it judges
(mock_up_of), so a new mock-up needs no edit here.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from collrepro import catalogue
from collrepro.analysis.verdicts import comparability
from collrepro.analysis.verdicts import stats
from collrepro.analysis.verdicts import verdicts as V
from collrepro.analysis.frames.aggregate import MATCH_KEY, add_settings, shape_label, sortable
from collrepro.analysis.verdicts.compare import launch_medians
from collrepro.analysis.loading.errors import InputError
from collrepro.analysis.frames.tables import markdown_table


# A rule: the collectives (a row's `collective` column) a guideline covers with one mock-up
# algorithm that emulates them, and the names of the natives it judges.
@dataclass(frozen=True)
class Rule:
    guideline: str
    collectives: tuple
    mockup: str
    natives: tuple


def rules(snapshot=None):
    """The rules of a catalogue snapshot (default: the committed one): one per (guideline,
    mock-up), over every collective the mock-up is registered for, in catalogue order."""
    found = {}
    for guideline, mockup, collective, natives in catalogue.mock_ups(snapshot):
        collectives, judged = found.setdefault((guideline, mockup), ([], []))
        collectives.append(collective)
        judged.extend(n for n in natives if n not in judged)
    return tuple(Rule(g, tuple(c), m, tuple(n)) for (g, m), (c, n) in found.items())


RULES = rules()


def mockups(rules_=RULES):
    """The rules' mock-up names, once each, for prose ("root-gathering, straightforward")."""
    return ", ".join(dict.fromkeys(r.mockup for r in rules_))


# Columns that pair a native with its mock-up at one point.
PAIR_KEY = [c for c in MATCH_KEY if c not in ("algorithm", "point")]
COLUMNS = ["installation", "guideline", "setting", "shape", "collective", "native", "mockup",
           "msg_bytes", "median_native", "median_mockup", "status"] + V.ROW_COLUMNS + \
    ["perm_p", "noise_floor", "n_native", "n_mockup"]
# A guideline check's status from its verdict (native against mock-up).
STATUS_OF = {V.REGRESSION: "violated", V.IMPROVEMENT: "kept", V.SAME: "kept",
             V.NOT_COMPARABLE: "not-comparable", V.INCONCLUSIVE: "inconclusive"}
STATUSES = ("violated", "kept", "not-comparable", "inconclusive")


def _pairs(entry, rules_):
    """(point fields, rule, native, native medians, mock-up medians, (native launches, mock-up
    launches)) of one result directory, for every rule of the point's collective; a launch is
    keyed by its directory and index, so the two sides pair by launch."""
    per = launch_medians(entry.rs)
    per = per.assign(round=[f"{s}|{n}" for s, n in zip(per["source"], per["launch"])])
    for key, sub in per.groupby(PAIR_KEY, sort=False, dropna=False):
        point = dict(zip(PAIR_KEY, key))
        for rule in (r for r in rules_ if point["collective"] in r.collectives):
            rows_mock = sub[sub["algorithm"] == rule.mockup]
            mock = rows_mock["median"].to_numpy(float)
            if not len(mock):
                continue
            for native in rule.natives:
                rows_native = sub[sub["algorithm"] == native]
                nat = rows_native["median"].to_numpy(float)
                if len(nat):
                    yield (dict(point, point=rows_native["point"].iat[0]), rule, native, nat, mock,
                           (rows_native["round"].to_numpy(), rows_mock["round"].to_numpy()))


def check_entries(entries, alpha=0.05, threshold=0.05, need=None, rules_=RULES):
    """Rows of the guideline table: native against mock-up per (installation, point, rule),
    with Benjamini-Hochberg over each guideline's family (one guideline within one experiment)."""
    need = stats.min_launches(alpha) if need is None else need
    families = {}
    for entry in entries:
        for point, rule, native, nat, mock, (launches_nat, launches_mock) in _pairs(entry, rules_):
            reasons = comparability.comparable(entry.rs.metas, entry.rs.metas, mock, nat,
                                               "mock-up", "native")[1]
            row = dict(point, installation=entry.label, guideline=rule.guideline, native=native,
                       mockup=rule.mockup, algorithm=native, median_native=float(np.median(nat)),
                       median_mockup=float(np.median(mock)))
            families.setdefault((entry.experiment, rule.guideline), []).append(
                (row, stats.measure(mock, nat, need, minimum=threshold, rounds=(launches_mock, launches_nat)),
                 (not reasons, "; ".join(reasons))))
    rows = []
    for items in families.values():
        decided = stats.decide_family([m for _, m, _ in items], [c for *_, c in items], alpha)
        for (row, _, _), d in zip(items, decided):
            rows.append(dict(row, **d, status=STATUS_OF[d["verdict"]], n_native=d["n_after"],
                             n_mockup=d["n_before"]))
    return rows


def check_entry(entry, alpha=0.05, threshold=0.05, need=None, rules_=RULES):
    """Rows of the guideline table for one result directory (one installation)."""
    return check_entries([entry], alpha, threshold, need, rules_)


def check(entries, alpha=0.05, threshold=0.05, need=None, rules_=RULES):
    """The guideline table of every entry: one row per (installation, point, mock-up, native)."""
    rows = check_entries(entries, alpha, threshold, need, rules_)
    if not rows:
        return pd.DataFrame(columns=["experiment"] + COLUMNS)
    metas = [m for e in entries for m in e.rs.metas]
    table = add_settings(pd.DataFrame(rows), metas)
    table["shape"] = [shape_label(r) for _, r in table.iterrows()]
    order = sorted(range(len(table)), key=lambda i: sortable(
        (table["experiment"].iat[i], table["installation"].iat[i], table["collective"].iat[i],
         table["shape"].iat[i], table["native"].iat[i], table["msg_bytes"].iat[i], table["call"].iat[i],
         table["mockup"].iat[i])))
    return table.iloc[order].reset_index(drop=True)


def method_note(alpha, threshold, need):
    return ("A guideline is violated at a point when its check (the native call, B, against the "
            "mock-up, A, in the same run of one installation) is a regression: " +
            stats.method_text(alpha, need, threshold) + " A native slower beyond the threshold on a "
            "run that is oversubscribed or tick-bound is `not-comparable`, not a violation.")


# The call form and the mock-up belong to a check's identity: one point is checked per form and
# per mock-up of its guideline.
SHOWN = ["experiment", "installation", "collective", "shape", "call", "native", "mockup", "msg_bytes", "median_native",
         "median_mockup", "status", "ratio", "ci_low", "ci_high", "ci_level", "p_value", "q_value",
         "threshold", "mde", "n_native", "n_mockup", "design", "n_pairs"]


def checked(table, rules_=RULES):
    """The rules with checks in the table, in the order of their collectives' names."""
    present = set(zip(table["guideline"], table["mockup"]))
    return sorted((r for r in rules_ if (r.guideline, r.mockup) in present),
                  key=lambda r: (sorted(r.collectives), r.mockup))


def write_report(outdir, table, alpha, threshold, need, rules_=RULES):
    """guidelines.md: the guidelines checked, counts per installation, then the checks by status."""
    counts = table.groupby(["experiment", "installation", "status"]).size().unstack(fill_value=0)
    lines = ["# collrepro performance guidelines", "", method_note(alpha, threshold, need), "",
             f"Checks: {len(table)}; {stats.counts_text(table)}.", "",
             f"Launches behind them: {stats.launches_text(table)}.", "", "Guidelines checked:", ""]
    lines += [f"- `{r.guideline}`: {', '.join(r.natives)} against `{r.mockup}` "
              f"({', '.join(r.collectives)})" for r in checked(table, rules_)]
    lines += ["", "## Per installation", "", markdown_table(counts.reset_index(), list(
        counts.reset_index().columns)), ""]
    for status, title, extra in (("violated", "Violations", []),
                                 ("not-comparable", "Native slower or faster, not comparable",
                                  ["comparability"]),
                                 ("inconclusive", "Inconclusive", ["reason"]),
                                 ("kept", "Kept", [])):
        rows = table[table["status"] == status]
        lines += [f"## {title} ({len(rows)})", ""]
        lines += [markdown_table(stats.shown(rows), SHOWN + extra) if len(rows) else "None.", ""]
    path = outdir / "guidelines.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def run(entries, outdir, alpha=0.05, threshold=0.05, need=None, rules_=RULES):
    """Write guidelines.csv and guidelines.md; return (paths, table)."""
    need = stats.min_launches(alpha) if need is None else need
    table = check(entries, alpha, threshold, need, rules_)
    if table.empty:
        raise InputError(f"no native collective measured beside its mock-up ({mockups(rules_)} at the "
                         "same point); add the mock-up to the experiment's algorithms")
    outdir.mkdir(parents=True, exist_ok=True)
    table.to_csv(outdir / "guidelines.csv", index=False)
    return [outdir / "guidelines.csv", write_report(outdir, table, alpha, threshold, need, rules_)], table
