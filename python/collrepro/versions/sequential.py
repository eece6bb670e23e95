"""The shipped procedure's sequential design, shared by `collrepro versions` (run.py, which
measures it) and its calibration (calibration.py, which emulates it on recorded rounds): a first
pass of DEFAULT_ROUNDS paired rounds; the rows it re-measures (tripped_rows, remeasure_rows); the
re-measure's looks (look_rounds) and their alphas (look_levels: alpha spent over all the rounds
a point has, the first pass's included); and the composition itself (sequential_verdicts), given
a way to judge a family on its first n rounds. docs/verdicts.md states the design."""

import math

from collrepro import design

# The default design (results/versions/calibration/README.md: the rounds at which the calibration
# finds the injected slowdowns): a first pass of DEFAULT_ROUNDS paired rounds, then re-measure
# looks of as many rounds each for the tripped and undecided points, all within --budget
# minutes of measuring.
DEFAULT_ROUNDS = design.ROUNDS
DEFAULT_REMEASURE = 2 * DEFAULT_ROUNDS
DEFAULT_LOOKS = 2          # the re-measure's rounds in this many looks (each of at least LOOK_LEAST)
LOOK_LEAST = 4             # rounds: the least a look's verdicts need (stats.min_launches at 0.05)
# The trend table's words for a change: the verdict labels of
# python/collrepro/analysis/verdicts/verdicts.py, and the older slower / faster of a table without them.
CHANGED_WORDS = ("regression", "improvement", "changed-not-comparable", "slower", "faster")


def _truthy(value):
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes")
    try:
        return bool(value) and not (isinstance(value, float) and math.isnan(value))
    except (TypeError, ValueError):
        return False


def tripped_rows(table):
    """The rows of a trend table (a DataFrame) whose point tripped the screen: its `tripped`
    column, or, in a table without one, a changed verdict."""
    if table is None or len(table) == 0:
        return table.iloc[0:0] if table is not None else None
    if "tripped" in table.columns:
        return table[[_truthy(v) for v in table["tripped"]]]
    return table[table["verdict"].astype(str).isin(CHANGED_WORDS)]


def remeasure_rows(table):
    """The rows a re-measure takes: the tripped ones (tripped_rows), and the undecided ones, whose
    verdict is `inconclusive` between comparable sides with enough launches (more rounds can
    settle them: a change, or `same`). A table without a `comparable` column: the tripped only."""
    if table is None or len(table) == 0 or "comparable" not in table.columns:
        return tripped_rows(table)
    from collrepro.analysis.verdicts import stats
    tripped = set(tripped_rows(table).index)
    reasons = table["reason"].fillna("").astype(str) if "reason" in table.columns else ""
    undecided = ((table["verdict"].astype(str) == "inconclusive") & table["comparable"].map(_truthy)
                 & ~reasons.str.startswith(stats.REFUSED))
    return table[[i in tripped or bool(u) for i, u in zip(table.index, undecided)]]


def look_rounds(launches, looks):
    """The rounds measured by each look (cumulative): `launches` split into `looks` about equal
    parts of at least LOOK_LEAST rounds (10, 2 -> [5, 10]; 6, 2 -> [6])."""
    looks = max(1, min(looks, launches // LOOK_LEAST))
    return [launches * k // looks for k in range(1, looks + 1)]


def look_levels(first_rounds, rounds):
    """The alpha of each look of one group-sequential design over all the rounds a point has: look
    k judges the first pass's `first_rounds` and the re-measure's first rounds[k] together, at the
    information fraction (first + rounds[k]) / (first + rounds[-1]) (stats.spending_levels)."""
    from collrepro.analysis.verdicts import stats
    total = first_rounds + rounds[-1]
    return stats.spending_levels([(first_rounds + n) / total for n in rounds])


def sequential_verdicts(judge, first, rounds, levels, alpha=0.05):
    """The composition `collrepro versions` ships, given `judge(n, alpha)`: the verdict table of a
    family on its first n rounds at that alpha (one row per point, with library and point). The
    first pass at `alpha`; its re-measure rows (versions' remeasure_rows) judged again at look k
    on first + rounds[k] rounds at levels[k], each keeping the verdict of the look that settled
    it. Returns (final table with `look`, first-pass table)."""
    from collrepro.analysis.verdicts import stats
    table0 = judge(first, alpha)
    final = table0.assign(look=0).reset_index(drop=True)
    open_ = set(remeasure_rows(final).index)
    for k, (n, level) in enumerate(zip(rounds, levels), 1):
        if not open_:
            break
        by_point = {(r["library"], r["point"]): r for r in judge(first + n, level).to_dict("records")}
        for i in sorted(open_):
            r = by_point.get((final.at[i, "library"], final.at[i, "point"]))
            if r is None:
                continue
            for c in ("verdict", "reason", "ratio", "ci_low", "ci_high", "p_value", "q_value", "threshold",
                      "noise_floor", "n_before", "n_after"):
                if c in final.columns and c in r:
                    final.at[i, c] = r[c]
            final.at[i, "look"] = k
            if stats.settled(r["verdict"]):
                open_.discard(i)
    return final, table0
