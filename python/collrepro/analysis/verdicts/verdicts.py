"""The words every verdict table uses: trend, guidelines, compare, the reports and the dashboard.

One comparison of a point between two sides (two installations, or a native call and its
mock-up) ends in exactly one of LABELS:

- ``regression`` / ``improvement``: the change is significant after the false-discovery-rate
  correction of its comparison family, the whole confidence interval of the ratio lies beyond
  the point's threshold (in the paired design these are one condition), and both sides are
  comparable;
- ``changed-not-comparable``: the same two gates pass, but the sides are not comparable (a
  different machine or device class, oversubscription, scheduler-tick quantisation): a change,
  never a regression or an improvement; ``reason`` says why;
- ``same``: the interval lies within the threshold (an equivalence, not a failure to find),
  and the sides are comparable (between sides that are not, nothing is ``same``);
- ``inconclusive``: neither (too few launches, too noisy, the interval straddles the
  threshold, or sides not comparable); ``reason`` says which, and for comparable sides the
  largest regression the interval rules out (``max_regression``).

Every verdict table carries ROW_COLUMNS beside its own key columns, so a writer can show a
row's label, its reason and its comparability without knowing which analysis made it.
"""

REGRESSION = "regression"
IMPROVEMENT = "improvement"
NOT_COMPARABLE = "changed-not-comparable"
SAME = "same"
INCONCLUSIVE = "inconclusive"
LABELS = (REGRESSION, IMPROVEMENT, NOT_COMPARABLE, SAME, INCONCLUSIVE)
CHANGED = (REGRESSION, IMPROVEMENT, NOT_COMPARABLE)

ROW_COLUMNS = [
    "verdict",        # one of LABELS
    "reason",         # why that label (always filled for changed-not-comparable and inconclusive)
    "comparable",     # bool: both sides comparable (same machine, no oversubscription, no tick, same device)
    "comparability",  # "" when comparable, else the reasons, '; '-separated
    "ratio",          # after / before (or native / mock-up): the Hodges-Lehmann estimate
    "ci_low", "ci_high", "ci_level",  # the interval and its exact coverage for these launch counts
    "p_value", "q_value",             # the test's p and its Benjamini-Hochberg q within the family
    "threshold",      # max(5 %, the point's noise floor), as a fraction (0.05 = 5 %)
    "mde",            # minimum detectable effect of the gate applied, at 80 % power, as the lone change
                      # of its family (interval at 1 - alpha / m), as a fraction; inf: unreachable
    "max_regression", # inconclusive (comparable) rows: no regression larger than this (from ci_high)
    "n_before", "n_after",            # launches on each side
    "design",         # paired (round-matched log ratios) or unpaired (two independent samples)
    "n_pairs",        # rounds holding both sides (paired; 0 unpaired)
    "tripped",        # bool: the screen flagged it (the runners re-measure these)
]
