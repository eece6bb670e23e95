"""Two-sample test of per-launch medians and the faster/slower/same verdict.

Mann-Whitney U (two-sided) on the per-launch medians of A and B. Its exact
null distribution has a smallest possible two-sided p-value of
2 / C(nA + nB, nA): with 3 vs 3 launches that is 0.1, so no difference can be
significant at 0.05; 4 vs 4 (p_min = 0.029) is the least that can.
"""

import math

import numpy as np
from scipy.stats import mannwhitneyu


def min_p_value(n_a, n_b):
    """Smallest two-sided exact Mann-Whitney p-value for sample sizes n_a, n_b."""
    if n_a == 0 or n_b == 0:
        return 1.0
    return min(1.0, 2.0 / math.comb(n_a + n_b, n_a))


def min_launches(alpha):
    """Least n such that n vs n launches can reach p < alpha."""
    n = 1
    while min_p_value(n, n) >= alpha:
        n += 1
    return n


def mann_whitney(a, b):
    """Two-sided p-value; 1.0 when undefined (all values equal, empty sample)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if len(a) == 0 or len(b) == 0:
        return 1.0
    if np.all(a == a[0]) and np.all(b == a[0]):
        return 1.0
    p = mannwhitneyu(b, a, alternative="two-sided").pvalue
    return 1.0 if not np.isfinite(p) else float(p)


def verdict(ratio, p, n_a, n_b, alpha, threshold, need):
    """'slower' only if significant AND ratio > 1+threshold; 'faster' mirrors it
    (significant AND ratio < 1/(1+threshold)); 'insufficient' when either side has
    fewer than `need` launches or the sample sizes cannot reach p < alpha."""
    if min(n_a, n_b) < need or min_p_value(n_a, n_b) >= alpha:
        return "insufficient"
    if p < alpha and ratio > 1.0 + threshold:
        return "slower"
    if p < alpha and ratio < 1.0 / (1.0 + threshold):
        return "faster"
    return "same"


def compare_point(a_medians, b_medians, alpha, threshold, need):
    """Compare one point: returns dict(ratio, p_value, verdict, n_a, n_b)."""
    a, b = np.asarray(a_medians, float), np.asarray(b_medians, float)
    ratio = float(np.median(b) / np.median(a)) if len(a) and len(b) else float("nan")
    p = mann_whitney(a, b)
    return {"ratio": ratio, "p_value": p, "n_a": len(a), "n_b": len(b),
            "verdict": verdict(ratio, p, len(a), len(b), alpha, threshold, need)}
