"""Change points in a sequence of installations: rank-based binary segmentation with a
permutation test on the per-launch medians (analysis/README.md, "Change points").

The data of one point is a list of samples, one per installation in version (or date) order,
each sample the per-launch medians of that installation. A split between installations j-1
and j is scored by the standardized Mann-Whitney statistic of "all launches before" against
"all launches from j on". The largest absolute score over the splits of a segment is the test
statistic; its null distribution comes from permuting the launch labels within the segment
(under the null hypothesis of no change every launch is exchangeable). A split with p < alpha
is accepted and both halves are searched again (binary segmentation).

Effect sizes are ratios of times, estimated on the log scale: the Hodges-Lehmann shift
between the two segments' log medians (median of all pairwise differences) with its
distribution-free confidence interval (the order statistics of the pairwise differences
picked by the exact Mann-Whitney null distribution).
"""

from dataclasses import dataclass

import numpy as np

from . import stats

PERMUTATIONS = 9999          # random permutations per segment test (deterministic seed)
SEED = 20130501
TINY = np.finfo(float).tiny   # a zero time (a simulated no-op) stays finite on the log scale


def _log(times):
    return np.log(np.maximum(np.asarray(times, float), TINY))


@dataclass
class Change:
    """An accepted split: `index` is the first installation after the change."""
    index: int
    ratio: float             # Hodges-Lehmann estimate of time(after) / time(before)
    ci_low: float
    ci_high: float
    p_value: float
    n_before: int            # launches in the segment before the split (up to the previous change)
    n_after: int             # launches in the segment after (up to the next change)


def _ranks(values):
    """Average ranks (1-based) of a 1-D array, ties sharing their mean rank."""
    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(len(values), float)
    sorted_vals = values[order]
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and sorted_vals[j + 1] == sorted_vals[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def _split_scores(rank_rows, cut_sizes, total):
    """|z| of the rank-sum of the first `cut` values, for every row of ranks and every cut.

    rank_rows: (R, N) ranks in installation order; cut_sizes: launches before each split.
    Returns (R, len(cut_sizes)).
    """
    prefix = np.cumsum(rank_rows, axis=1)[:, np.asarray(cut_sizes) - 1]
    m = np.asarray(cut_sizes, float)
    n = total - m
    mean = m * (total + 1) / 2.0
    sd = np.sqrt(m * n * (total + 1) / 12.0)
    return np.abs(prefix - mean) / sd


def best_split(samples, permutations=PERMUTATIONS, seed=SEED):
    """(split index, p-value) of the strongest change in `samples` (>= 2 non-empty samples).

    The split index j means "between samples j-1 and j". The p-value is the permutation
    p-value of max |z| over all splits: (1 + #{permutations at least as extreme}) / (1 + B).
    """
    sizes = [len(s) for s in samples]
    values = np.concatenate([_log(s) for s in samples])
    total = len(values)
    cuts = np.cumsum(sizes)[:-1]
    ranks = _ranks(values)
    observed = _split_scores(ranks[None, :], cuts, total)[0]
    best = int(np.argmax(observed))
    if np.all(ranks == ranks[0]):
        return best + 1, 1.0
    rng = np.random.default_rng(seed)
    shuffled = rng.permuted(np.broadcast_to(ranks, (permutations, total)), axis=1)
    null_max = _split_scores(shuffled, cuts, total).max(axis=1)
    extreme = int(np.sum(null_max >= observed[best] - 1e-12))
    return best + 1, (1 + extreme) / (1 + permutations)


u_null_counts = stats.u_null_counts


def shift_interval(before, after, level=0.95):
    """Hodges-Lehmann ratio after/before and its exact distribution-free interval, from the log
    per-launch medians (stats.hl_interval: coverage at least `level`). Returns (ratio, low,
    high); the interval is (0, inf) when the samples are too small to reach the level."""
    ratio, low, high, _ = stats.hl_interval(_log(before), _log(after), level)
    return ratio, low, high


def segment(samples, alpha, permutations=PERMUTATIONS):
    """Binary segmentation: the accepted split indices (sorted) of `samples`."""
    found = []

    def search(lo, hi):
        if hi - lo < 2:
            return
        split, p = best_split(samples[lo:hi], permutations)
        if p >= alpha:
            return
        found.append((lo + split, p))
        search(lo, lo + split)
        search(lo + split, hi)

    search(0, len(samples))
    return sorted(found)


def changes(samples, alpha, level=0.95, permutations=PERMUTATIONS):
    """Every accepted change of `samples`, each measured between its neighbouring segments."""
    splits = segment(samples, alpha, permutations)
    bounds = [0] + [s for s, _ in splits] + [len(samples)]
    out = []
    for i, (split, p) in enumerate(splits):
        before = np.concatenate(samples[bounds[i]:split])
        after = np.concatenate(samples[split:bounds[i + 2]])
        ratio, low, high = shift_interval(before, after, level)
        out.append(Change(split, ratio, low, high, p, len(before), len(after)))
    return out
