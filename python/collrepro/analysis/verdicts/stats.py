"""The statistics behind every verdict (docs/verdicts.md): one comparison of a point between two
sides, A (before, or the mock-up) and B (after, or the native call).

- The unit is the launch: each side is its per-launch medians (the repetitions of a launch are
  nested inside it and summarised by their median), compared on the log scale.
- Paired design (`design` = paired), where both sides ran in the same rounds (one launch of each
  in round i; `rounds` keys them): the unit is the round's log ratio d_i = log B_i - log A_i.
  One procedure gives gate and interval: the robust paired t (Tukey-McLaughlin: the 20 % trimmed
  mean of the d_i, its winsorized standard error, h - 1 degrees of freedom), tested against the
  threshold (H0: |change| <= threshold) and inverted into the interval. Within a family the
  interval is taken at the Benjamini-Hochberg level 1 - alpha R / m (R of m rejected), so an
  interval wholly beyond the threshold is exactly a BH rejection.
- Unpaired design (the sides did not share rounds): the Hodges-Lehmann ratio B/A with its exact
  distribution-free interval (order statistics of the sorted pairwise log-ratios picked by the
  exact Mann-Whitney null) and its true coverage `ci_level` for these launch counts (with ties
  the closed interval covers at least that much), taken at the family's BH level as in the
  paired design: the same rule decides in both, an interval wholly beyond the threshold is a
  change. Yuen's trimmed t on the log per-launch medians gives the p-values whose BH rejections
  set that level, and the `tripped` screen (continuous p-value; assumes the log medians of a
  side are roughly normal and independent across launches). The exact permutation p-value is kept beside either test (`perm_p`).
- Benjamini-Hochberg q-values over a comparison family (one pair of installations, or one
  guideline, within one experiment and one run).
- The verdict (verdicts.LABELS: comparability gates every label), the noise floor (an unbiased
  robust scale), the minimum detectable effect of the gate applied, the largest regression an
  inconclusive row rules out, and the `tripped` screen.

min_launches (the default `--min-launches`) is at the end.
"""

import functools
import itertools
import math

import numpy as np
from scipy import special

from collrepro.analysis.verdicts import verdicts as V

ALPHA = 0.05              # per-family false-discovery rate, and the level of the raw screen
LEVEL = 0.95              # the least coverage of the ratio's interval
MIN_THRESHOLD = 0.05      # a change must exceed max(5 %, the point's noise floor)
SAME_LIMIT = 0.25         # `same` only where the threshold (the equivalence margin) is at most this
POWER = 0.80              # of the minimum detectable effect
MAD_TO_SD = 1.4826        # the large-sample sd / MAD of normal data (small samples: mad_consistency)
SD_FLOOR = 0.002          # least launch-to-launch sd on the log scale (0.2 %): a side whose
                          # launches all gave the same median is not infinitely precise
TRIM = 0.2                # trimmed t (both designs): the share cut from each end of a sample
SCALE_DRAWS = 40_000      # simulated normal samples behind a robust scale's consistency factor
EXACT_LIMIT = 200_000     # enumerate the permutation test up to this many splits, else sample
PERMUTATIONS = 20_000
SEED = 20261126
TINY = np.finfo(float).tiny
REFUSED = "too few launches"   # the reason that starts every refused verdict (exit 4)
PAIRED, UNPAIRED = "paired", "unpaired"   # the `design` column


def logs(times):
    return np.log(np.maximum(np.asarray(times, float), TINY))


# ----------------------------------------------------------------------------- multiplicity
def bh_qvalues(pvalues):
    """Benjamini-Hochberg q-values (step-up, monotone, capped at 1). NaN p-values (no test) are
    left out of the family and get NaN."""
    p = np.asarray(pvalues, float)
    q = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = len(ok)
    if m == 0:
        return q
    order = ok[np.argsort(p[ok], kind="mergesort")]
    ranked = p[order] * m / np.arange(1, m + 1)
    q[order] = np.minimum(1.0, np.minimum.accumulate(ranked[::-1])[::-1])
    return q


# ----------------------------------------------------------------------------- tests
def _trimmed(x, trim=TRIM):
    """(trimmed mean, winsorized variance, kept count h) of one side: g = floor(trim * n) values cut
    from each end for the mean, and pulled in to the nearest kept value for the variance."""
    x = np.sort(np.asarray(x, float))
    n = len(x)
    g = int(math.floor(trim * n))
    kept = x[g:n - g]
    winsorized = np.concatenate([np.full(g, kept[0]), kept, np.full(g, kept[-1])])
    var = float(np.var(winsorized, ddof=1)) if n > 1 else 0.0
    return float(np.mean(kept)), max(var, SD_FLOOR ** 2), len(kept)


def trimmed_shift(a_logs, b_logs, trim=TRIM):
    """(shift, standard error, degrees of freedom) of Yuen's trimmed t on two samples of log medians:
    the difference of the 20 % trimmed means (B - A) with its winsorized standard error and Welch's
    degrees of freedom; NaNs when a side has fewer than 2 launches."""
    a, b = np.asarray(a_logs, float), np.asarray(b_logs, float)
    if len(a) < 2 or len(b) < 2:
        return math.nan, math.nan, math.nan
    (ma, va, ha), (mb, vb, hb) = _trimmed(a, trim), _trimmed(b, trim)
    da = (len(a) - 1) * va / (ha * (ha - 1)) if ha > 1 else va
    db = (len(b) - 1) * vb / (hb * (hb - 1)) if hb > 1 else vb
    se = math.sqrt(da + db)
    df = (da + db) ** 2 / (da ** 2 / max(ha - 1, 1) + db ** 2 / max(hb - 1, 1))
    return mb - ma, se, df


def trimmed_t(a_logs, b_logs, trim=TRIM):
    """(p, standard error, degrees of freedom) of Yuen's trimmed t (Welch's t on 20 % trimmed means
    with winsorized variances) on two samples of log medians; p is NaN when a side has fewer than 2
    launches. With trim = 0 it is Welch's t."""
    shift, se, df = trimmed_shift(a_logs, b_logs, trim)
    if not np.isfinite(se):
        return math.nan, se, df
    return float(2.0 * special.stdtr(df, -abs(shift / se))), se, df


@functools.lru_cache(maxsize=32)
def _splits(n, k):
    return np.array(list(itertools.combinations(range(n), k)))


def permutation_p(a_logs, b_logs, seed=SEED):
    """Two-sided permutation p-value of |mean(B) - mean(A)| over the relabellings of the launches:
    exact (every split) up to EXACT_LIMIT splits, else (1 + hits) / (1 + PERMUTATIONS) sampled."""
    a, b = np.asarray(a_logs, float), np.asarray(b_logs, float)
    if len(a) == 0 or len(b) == 0:
        return math.nan
    pooled = np.concatenate([a, b])
    n, k = len(pooled), len(b)
    observed = abs(b.mean() - a.mean())
    total = pooled.sum()
    if math.comb(n, k) <= EXACT_LIMIT:
        sb = pooled[_splits(n, k)].sum(axis=1)
        diff = np.abs(sb / k - (total - sb) / (n - k))
        return float(np.mean(diff >= observed - 1e-12))
    rng = np.random.default_rng(seed)
    perm = rng.permuted(np.broadcast_to(pooled, (PERMUTATIONS, n)), axis=1)
    sb = perm[:, :k].sum(axis=1)
    hits = int(np.sum(np.abs(sb / k - (total - sb) / (n - k)) >= observed - 1e-12))
    return (1 + hits) / (1 + PERMUTATIONS)


# ----------------------------------------------------------------------------- interval
def u_null_counts(m, n):
    """Counts of the Mann-Whitney U statistic's exact null distribution for sizes m, n (no
    ties): the coefficients of the Gaussian binomial [m+n choose m] in q."""
    counts = [1]
    for k in range(1, m + 1):              # [n+k choose k] = [n+k-1 choose k-1] (1-q^(n+k)) / (1-q^k)
        poly = counts + [0] * (n + k)
        for d in range(len(poly) - 1, n + k - 1, -1):
            poly[d] -= poly[d - n - k]
        for d in range(k, len(poly)):
            poly[d] += poly[d - k]
        counts = poly[:k * n + 1]
    return counts


@functools.lru_cache(maxsize=256)
def hl_order(m, n, level=LEVEL):
    """(k, coverage): the interval [d_(k), d_(mn+1-k)] of the sorted pairwise differences (1-based)
    has exact coverage 1 - 2 P(U <= k-1) under continuous data, the largest k whose coverage is
    at least `level`. k = 0 means no such k: the interval is the whole line (coverage 1)."""
    if m == 0 or n == 0:
        return 0, 1.0
    counts = np.asarray(u_null_counts(m, n), float)
    cdf = np.cumsum(counts) / counts.sum()
    tail = (1.0 - level) / 2.0
    below = np.flatnonzero(cdf <= tail + 1e-12)      # u with P(U <= u) <= tail
    if len(below) == 0:
        return 0, 1.0
    k = int(below[-1]) + 1
    return k, float(1.0 - 2.0 * cdf[k - 1])


def hl_most(m, n):
    """The highest coverage an exact Hodges-Lehmann interval of m + n launches reaches (its
    outermost pair, k = 1): 1 - 2 / C(m + n, m); 99.2 % at 5 + 5."""
    return 1.0 - 2.0 / math.comb(m + n, m)


@functools.lru_cache(maxsize=64)
def launches_for_level(level, most=1000):
    """The fewest launches a side (equal sides) whose exact Hodges-Lehmann interval reaches
    `level`: 4 at 95 %, 6 at 99.5 %."""
    n = 2
    while hl_order(n, n, level)[0] == 0 and n < most:
        n += 1
    return n


def hl_interval(a_logs, b_logs, level=LEVEL):
    """(ratio, low, high, coverage) of B/A: the Hodges-Lehmann estimate (median of the pairwise
    log differences) and its exact interval; (0, inf) with coverage 1 when the launch counts
    cannot reach `level`."""
    a, b = np.asarray(a_logs, float), np.asarray(b_logs, float)
    if len(a) == 0 or len(b) == 0:
        return math.nan, 0.0, math.inf, 1.0
    diffs = np.sort((b[None, :] - a[:, None]).ravel())
    estimate = float(np.exp(np.median(diffs)))
    k, coverage = hl_order(len(a), len(b), level)
    if k == 0:
        return estimate, 0.0, math.inf, 1.0
    return estimate, float(np.exp(diffs[k - 1])), float(np.exp(diffs[len(diffs) - k])), coverage


# ----------------------------------------------------------------------------- gates
@functools.lru_cache(maxsize=128)
def mad_consistency(sizes):
    """E[median |x - own group's median|] / sd for normal data in groups of these sizes, by a
    seeded simulation: the small-sample consistency factor of the robust scale (1 / 1.4826 for
    large groups; 0.53 at 5 + 5, where each group's median is one of its own values)."""
    rng = np.random.default_rng(SEED)
    resid = [x - np.median(x, axis=1, keepdims=True)
             for x in (rng.standard_normal((SCALE_DRAWS, n)) for n in sizes)]
    return float(np.mean(np.median(np.abs(np.concatenate(resid, axis=1)), axis=1)))


def robust_scale(*groups):
    """An unbiased (for normal data) robust standard deviation of the groups' values about their
    own group's median: the median absolute residual over the consistency factor of these group
    sizes. One wild value among five moves it little. NaN when a group has fewer than 2 values."""
    groups = [np.asarray(g, float) for g in groups]
    if not groups or min(len(g) for g in groups) < 2:
        return math.nan
    residuals = np.concatenate([g - np.median(g) for g in groups])
    return float(np.median(np.abs(residuals))) / mad_consistency(tuple(len(g) for g in groups))


def noise_floor(a_logs, b_logs):
    """The launch-to-launch spread of the per-launch medians, both sides pooled and robust: exp(s) - 1,
    s = robust_scale of the log medians about their own side's median (unbiased for normal data;
    one disturbed launch does not lift it). NaN with fewer than 2 launches a side."""
    return float(math.expm1(robust_scale(a_logs, b_logs)))


def paired_floor(d_logs):
    """The same spread for a paired comparison: the robust scale of the rounds' log ratios over
    sqrt(2) (a launch's own spread once the round's shared part is removed), as exp(s) - 1."""
    return float(math.expm1(robust_scale(d_logs) / math.sqrt(2.0)))


def threshold_of(floor, minimum=MIN_THRESHOLD):
    return max(minimum, floor) if np.isfinite(floor) else minimum


def mde(se, df, threshold, alpha=ALPHA, power=POWER):
    """The smallest change (fraction) the gate finds with `power` at per-point `alpha`: the
    interval must clear the threshold, so the change must exceed it by (t(1-alpha/2) + t(power))
    standard errors: exp(log(1 + threshold) + (t(1-alpha/2, df) + t(power, df)) se) - 1."""
    if not np.isfinite(se) or not np.isfinite(df):
        return math.nan
    z = special.stdtrit(df, 1 - alpha / 2) + special.stdtrit(df, power)
    return float(np.expm1(min(math.log1p(threshold) + z * se, 700.0)))   # a tiny df: beyond any ratio


def beyond(ratio, threshold):
    return ratio > 1.0 + threshold or ratio < 1.0 / (1.0 + threshold)


def within(low, high, threshold):
    return low >= 1.0 / (1.0 + threshold) and high <= 1.0 + threshold


# ----------------------------------------------------------------------------- the paired design
def paired_logs(a_logs, b_logs, rounds):
    """(A, B) log medians of the rounds both sides ran in, matched by round, or None.
    rounds: (keys of A's launches, keys of B's launches), aligned with the medians; a key of
    None or '' is a launch that ran in no recorded round. A round seen twice on a side is
    ambiguous, and is left out."""
    if rounds is None:
        return None
    ka, kb = (list(k) for k in rounds)
    if len(ka) != len(a_logs) or len(kb) != len(b_logs):
        raise ValueError("round keys must be aligned with the launch medians")

    def index(keys):
        seen = {}
        for i, k in enumerate(keys):
            if k is not None and k == k and str(k) != "":
                seen.setdefault(k, []).append(i)
        return {k: v[0] for k, v in seen.items() if len(v) == 1}

    ia, ib = index(ka), index(kb)
    common = sorted(set(ia) & set(ib), key=str)
    if not common:
        return None
    a, b = np.asarray(a_logs, float), np.asarray(b_logs, float)
    return a[[ia[k] for k in common]], b[[ib[k] for k in common]]


def trimmed_one(d, trim=TRIM):
    """(trimmed mean, standard error, degrees of freedom) of one sample (Tukey-McLaughlin: the
    one-sample case of Yuen's formula, (n - 1) winsorized variance / (h (h - 1)), df = h - 1)."""
    d = np.asarray(d, float)
    mean, var, h = _trimmed(d, trim)
    if len(d) < 2 or h < 2:
        return mean, math.nan, math.nan
    return mean, math.sqrt((len(d) - 1) * var / (h * (h - 1))), float(h - 1)


def paired_p(mean, se, df, log_threshold):
    """Two-sided p of H0: |change| <= threshold (on the log scale) from the paired trimmed t:
    twice the smaller one-sided p (beyond +threshold, or beyond -threshold)."""
    if not (np.isfinite(se) and se > 0):
        return math.nan
    up = special.stdtr(df, -(mean - log_threshold) / se)
    down = special.stdtr(df, (mean + log_threshold) / se)
    return float(min(1.0, 2.0 * min(up, down)))


def paired_interval(mean, se, df, level):
    """(low, high) ratio of the paired trimmed t's interval at `level`: the inversion of paired_p,
    so the interval lies beyond the threshold exactly when paired_p < 1 - level."""
    if not (np.isfinite(se) and se > 0):
        return 0.0, math.inf
    half = float(special.stdtrit(df, 1 - (1 - level) / 2)) * se
    return float(np.exp(mean - half)), float(np.exp(min(mean + half, 700.0)))


@functools.lru_cache(maxsize=8)
def _signs(n):
    return (1 - 2 * ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1)).astype(float)


def signflip_p(d, seed=SEED):
    """Two-sided exact sign-flip permutation p of |mean d| (every sign pattern up to EXACT_LIMIT,
    else PERMUTATIONS seeded random ones): the paired design's `perm_p`."""
    d = np.asarray(d, float)
    n = len(d)
    if n == 0:
        return math.nan
    observed = abs(d.mean())
    if 2 ** n <= EXACT_LIMIT:
        return float(np.mean(np.abs(_signs(n) @ d) / n >= observed - 1e-12))
    rng = np.random.default_rng(seed)
    signs = rng.choice((-1.0, 1.0), size=(PERMUTATIONS, n))
    hits = int(np.sum(np.abs(signs @ d) / n >= observed - 1e-12))
    return (1 + hits) / (1 + PERMUTATIONS)


# ----------------------------------------------------------------------------- sequential looks
def spending_levels(fractions, alpha=ALPHA, shape="obrien-fleming"):
    """The levels of a group-sequential re-measure's looks at these information fractions (the
    share of the round budget measured at each look, increasing to 1): Lan-DeMets alpha
    spending, A(t) = 2 - 2 Phi(z(1 - alpha/2) / sqrt(t)) (O'Brien-Fleming-like: little alpha at
    the early looks, nearly all of it at the last) or alpha log(1 + (e - 1) t) (Pocock-like);
    look k gets A(t_k) - A(t_k-1). The levels sum to alpha, so a point tested at every look at
    that look's level is falsely flagged at some look with probability at most alpha (a union
    bound: conservative, as it ignores that the looks share rounds)."""
    t = np.asarray(fractions, float)
    if len(t) == 0 or np.any(np.diff(t) <= 0) or t[0] <= 0 or abs(t[-1] - 1.0) > 1e-9:
        raise ValueError("information fractions must increase to 1")
    if shape == "obrien-fleming":
        spent = 2.0 - 2.0 * special.ndtr(special.ndtri(1 - alpha / 2) / np.sqrt(t))
    elif shape == "pocock":
        spent = alpha * np.log1p((math.e - 1.0) * t)
    else:
        raise ValueError(f"unknown spending shape {shape!r}")
    return [float(x) for x in np.diff(np.concatenate([[0.0], spent]))]


def settled(verdict):
    """A sequential re-measure stops measuring a point at the look where it is settled: a change
    (any changed label) or `same`."""
    return str(verdict) in V.CHANGED or str(verdict) == V.SAME


# ----------------------------------------------------------------------------- power, by simulation
POWER_DRAWS = 4000        # simulated first passes behind one detection rate
POWER_SEED = 20261207
MDE_DRAWS = 1000          # for a row's `mde` (its detection rate within about 1.3 points)


def sd_of_floor(floor):
    """The round log-ratio sd behind a paired noise floor (paired_floor inverted)."""
    return math.sqrt(2.0) * math.log1p(max(float(floor), 0.0))


def _power_draws(n, draws=POWER_DRAWS):
    return np.random.default_rng(POWER_SEED + n).standard_normal((draws, n))


def paired_detect_rate(change, sd, n, m, alpha=ALPHA, z=None):
    """The share of simulated paired comparisons of n rounds (log-ratio sd `sd`, normal) that call
    a change of size `change` (a fraction) a change as the lone one in a family of m: this
    module's own procedure, vectorised (trimmed mean and winsorized se of the log ratios, the
    threshold max(5 %, the floor measured in those rounds), the paired p against it below
    alpha / m). tests/python/test_versions_forecast.py holds it to `measure` and `decide_family`."""
    z = _power_draws(n) if z is None else z
    d = math.log1p(change) + sd * z                      # draws x n
    g = int(math.floor(TRIM * n))
    s = np.sort(d, axis=1)
    kept = s[:, g:n - g]
    h = kept.shape[1]
    mean = kept.mean(axis=1)
    wins = np.concatenate([np.repeat(kept[:, :1], g, axis=1), kept, np.repeat(kept[:, -1:], g, axis=1)], axis=1)
    var = np.maximum(wins.var(axis=1, ddof=1), SD_FLOOR ** 2)
    se = np.sqrt((n - 1) * var / (h * (h - 1)))
    resid = np.abs(d - np.median(d, axis=1, keepdims=True))
    floor = np.expm1(np.median(resid, axis=1) / mad_consistency((n,)) / math.sqrt(2.0))
    thr = np.log1p(np.maximum(MIN_THRESHOLD, floor))
    up = special.stdtr(h - 1, -(mean - thr) / se)
    down = special.stdtr(h - 1, (mean + thr) / se)
    p = np.minimum(1.0, 2.0 * np.minimum(up, down))
    return float(np.mean(p < alpha / max(m, 1)))


@functools.lru_cache(maxsize=8192)
def _smallest(sd, n, m, power, alpha, steps, draws):
    z = _power_draws(n, draws)
    lo, hi = 0.0, 8.0
    if paired_detect_rate(math.expm1(hi), sd, n, m, alpha, z) < power:
        return math.inf
    for _ in range(steps):
        mid = (lo + hi) / 2
        if paired_detect_rate(math.expm1(mid), sd, n, m, alpha, z) >= power:
            hi = mid
        else:
            lo = mid
    return math.expm1(hi)


def paired_smallest_change(sd, n, m, power=0.9, alpha=ALPHA, steps=40, draws=POWER_DRAWS):
    """The smallest change (fraction) a paired comparison of n rounds finds with probability
    `power` as the lone change in a family of m (bisection on log(1 + c); inf beyond x2980)."""
    return _smallest(float(sd), int(n), int(m), float(power), float(alpha), steps, draws)


# ----------------------------------------------------------------------------- one comparison
def measure(before, after, need, level=LEVEL, minimum=MIN_THRESHOLD, rounds=None):
    """Everything about one comparison but its q-value and verdict: a dict of ROW_COLUMNS fields
    (verdict, reason, q_value, comparability left for `decide`) plus perm_p and noise_floor.
    rounds: (A's round keys, B's round keys) aligned with the launches; where at least `need`
    rounds hold both sides the design is paired, else unpaired."""
    a, b = logs(before), logs(after)
    pairs = paired_logs(a, b, rounds)
    if pairs is not None and len(pairs[0]) >= max(need, 2):
        return _measure_paired(a, b, pairs[1] - pairs[0], need, minimum)
    p, se, df = trimmed_t(a, b)
    ratio, low, high, coverage = hl_interval(a, b, level)
    floor = noise_floor(a, b)
    thr = threshold_of(floor, minimum)
    return dict(ratio=ratio, ci_low=low, ci_high=high, ci_level=coverage, p_value=p,
                perm_p=permutation_p(a, b), noise_floor=floor, threshold=thr,
                mde=mde(se, df, thr), n_before=len(a), n_after=len(b), design=UNPAIRED, n_pairs=0,
                refused=min(len(a), len(b)) < need, need=need, logs=(a, b), spread=(se, df))


def _measure_paired(a, b, d, need, minimum):
    mean, se, df = trimmed_one(d)
    floor = paired_floor(d)
    thr = threshold_of(floor, minimum)
    low, high = paired_interval(mean, se, df, 1 - ALPHA)
    return dict(ratio=float(np.exp(mean)), ci_low=low, ci_high=high, ci_level=1 - ALPHA,
                p_value=paired_p(mean, se, df, math.log1p(thr)), perm_p=signflip_p(d),
                noise_floor=floor, threshold=thr, mde=mde(se, df, thr), n_before=len(a),
                n_after=len(b), design=PAIRED, n_pairs=len(d), refused=False, need=need,
                paired=(mean, se, df), spread=(se, df))


def family_level(q_values, alpha=ALPHA):
    """The level of a family's paired intervals: 1 - alpha R / m, R of the m tested rows rejected
    by Benjamini-Hochberg (R taken as 1 when none is: the level at which the first would be)."""
    q = np.asarray(q_values, float)
    m = int(np.sum(np.isfinite(q)))
    rejected = int(np.sum(q < alpha))
    return 1.0 - alpha * max(rejected, 1) / max(m, 1)


def _label(row, lo, hi, thr, ratio, comparable, comparability, wanted):
    """(verdict, reason) of one measured row whose interval, wanted at level `wanted`, is
    [lo, hi]. One rule in both designs: an interval wholly beyond the threshold is a change."""
    interval_beyond = lo > 1.0 + thr or hi < 1.0 / (1.0 + thr)
    inside = within(lo, hi, thr)
    if row["refused"]:
        return V.INCONCLUSIVE, f"{REFUSED}: {row['n_before']}+{row['n_after']}, need {row['need']} a side"
    if interval_beyond:
        if not comparable:
            return V.NOT_COMPARABLE, f"{'slower' if ratio > 1 else 'faster'}; {comparability}"
        return (V.REGRESSION if ratio > 1 else V.IMPROVEMENT), ""
    if inside and not comparable:
        return V.INCONCLUSIVE, "sides not comparable: never `same`"
    if inside and thr <= SAME_LIMIT:
        return V.SAME, ""
    if inside:
        return V.INCONCLUSIVE, f"too noisy to call the same (noise floor {thr:.1%} > {SAME_LIMIT:.0%})"
    if not np.isfinite(hi):
        least = launches_for_level(wanted)
        return V.INCONCLUSIVE, f"{REFUSED} for a {wanted:.1%} interval ({least} + {least} reach it)"
    return V.INCONCLUSIVE, f"interval straddles ±{thr:.1%}"


def decide(row, q, comparable, comparability="", alpha=ALPHA, level=None):
    """The verdict of one measured comparison (`measure`'s dict) given its q-value and the
    comparability of its sides; returns the ROW_COLUMNS fields. level: the family's interval
    level (family_level; default 1 - alpha, a family of one for a paired row, and the row's own
    LEVEL interval for an unpaired one). In both designs the interval is taken at that level and a
    change is an interval wholly beyond the threshold: in the paired design that is exactly a BH
    rejection, in the unpaired one the exact Hodges-Lehmann interval decides and the trimmed t's
    q only counts the family's rejections. Comparability gates every label: between sides that
    are not comparable a change is `changed-not-comparable` and nothing is `same`."""
    thr, ratio, p = row["threshold"], row["ratio"], row["p_value"]
    lo, hi, ci_level = row["ci_low"], row["ci_high"], row["ci_level"]
    wanted = LEVEL
    if row.get("design") == PAIRED:
        ci_level = wanted = 1 - alpha if level is None else level
        lo, hi = paired_interval(*row["paired"], ci_level)
    elif level is not None and "logs" in row:
        wanted = level
        _, lo, hi, ci_level = hl_interval(*row["logs"], level)
    out = {k: row[k] for k in ("ratio", "p_value", "threshold", "mde", "n_before", "n_after")}
    out.update(ci_low=lo, ci_high=hi, ci_level=ci_level, q_value=q, comparable=bool(comparable),
               comparability=comparability, design=row.get("design", UNPAIRED),
               n_pairs=int(row.get("n_pairs", 0)))
    verdict, reason = _label(row, lo, hi, thr, ratio, comparable, comparability, wanted)
    if verdict == V.INCONCLUSIVE and not comparable and not row["refused"]:
        reason += f"; {comparability}"
    bound = math.nan
    if verdict == V.INCONCLUSIVE and comparable and not row["refused"] and np.isfinite(hi):
        bound = max(0.0, hi - 1.0)
        reason += f"; no regression larger than {bound:.1%}"
    out.update(verdict=verdict, reason=reason, max_regression=bound,
               tripped=bool(verdict in V.CHANGED or (beyond(ratio, thr) and (
                   (np.isfinite(p) and p < alpha) or
                   (verdict == V.INCONCLUSIVE and not row["refused"] and not within(lo, hi, thr))))))
    return out


def family_mde(row, m, alpha=ALPHA, power=POWER):
    """The minimum detectable effect of one measured row as the lone change in a family of m
    tested rows: Benjamini-Hochberg tests a lone change at alpha / m, so the gate's interval is at
    1 - alpha / m. Paired: by simulation of the gate itself (paired_smallest_change) at the row's
    own launch spread (its noise floor, quantised to 1 % so that a table's rows share the work).
    Unpaired: the closed formula (mde) at alpha / m, or inf where the launch counts cannot reach
    the level."""
    if row["refused"] or "spread" not in row:
        return row["mde"]
    level = 1.0 - alpha / max(m, 1)
    if row.get("design") == PAIRED:
        floor = row["noise_floor"]
        if not np.isfinite(floor) or row["n_pairs"] < 3:
            return row["mde"]
        sd = math.exp(round(math.log(max(sd_of_floor(floor), 1e-4)), 2))
        return paired_smallest_change(sd, row["n_pairs"], m, power, alpha, steps=12, draws=MDE_DRAWS)
    if launches_for_level(level) > min(row["n_before"], row["n_after"]):
        return math.inf
    return mde(*row["spread"], row["threshold"], alpha / max(m, 1), power)


def decide_family(rows, comparables, alpha=ALPHA):
    """BH over one family of measured rows; comparables: (comparable, text) per row. Returns the
    ROW_COLUMNS dicts (plus perm_p and noise_floor) in the same order. Every row's interval, paired
    or unpaired, is at the family's BH level (family_level); its `mde` is that of a lone change
    in a family of this size (family_mde)."""
    q = bh_qvalues([math.nan if r["refused"] else r["p_value"] for r in rows])
    level = family_level(q, alpha)
    m = int(np.sum(np.isfinite(q)))
    return [dict(decide(dict(r, mde=family_mde(r, m, alpha)), qi, c, text, alpha, level),
                 perm_p=r["perm_p"], noise_floor=r["noise_floor"])
            for r, qi, (c, text) in zip(rows, q, comparables)]


def gate_labels(table):
    """The verdicts as the exit-code gate reads them: 'insufficient' where refused for too few
    launches, else the verdict."""
    refused = table["reason"].astype(str).str.startswith(REFUSED) & (table["verdict"] == V.INCONCLUSIVE)
    return table["verdict"].where(~refused, "insufficient")


def counts_text(table):
    """'tripped: 3; regression: 1, improvement: 0, ...' of a verdict table."""
    counts = table["verdict"].value_counts().to_dict()
    return (f"tripped: {int(table['tripped'].astype(bool).sum())}; "
            + ", ".join(f"{k}: {counts.get(k, 0)}" for k in V.LABELS))


def launches_text(table):
    """'5+5 launches, unpaired: 48 comparisons (interval coverage 96.8 %); 16 paired rounds: 40
    comparisons (interval level 99.9 %)' of a verdict table."""
    parts = []
    table = table.assign(design=table["design"] if "design" in table else UNPAIRED,
                         n_pairs=table["n_pairs"] if "n_pairs" in table else 0)
    for (design, nb, na, npairs), sub in table.groupby(["design", "n_before", "n_after", "n_pairs"]):
        levels = sorted({round(100 * float(v), 2) for v in sub["ci_level"]})
        span = f"{levels[0]:.2f}-{levels[-1]:.2f}" if len(levels) > 1 else f"{levels[0]:.2f}"
        if design == PAIRED:
            parts.append(f"{npairs} paired rounds ({nb}+{na} launches): {len(sub)} comparisons "
                         f"(interval level {span} %, the family's Benjamini-Hochberg level)")
        else:
            parts.append(f"{nb}+{na} launches, unpaired: {len(sub)} comparisons (interval coverage "
                         + (f"{span} %)" if np.isfinite(sub["ci_high"]).all() else "none: too few)"))
    return "; ".join(parts)


def _pct(value):
    return "-" if value is None or not np.isfinite(value) else f"{100 * value:.1f}%"


def _g3(value):
    return "-" if value is None or not np.isfinite(value) else f"{value:.3g}"


def shown(frame):
    """A copy of a verdict table with the statistics formatted for a Markdown report."""
    out = frame.copy()
    for col, fn in (("ci_level", _pct), ("threshold", _pct), ("mde", _pct), ("noise_floor", _pct),
                    ("max_regression", _pct),
                    ("q_value", _g3), ("p_value", _g3), ("perm_p", _g3), ("ratio", _g3),
                    ("ci_low", _g3), ("ci_high", _g3)):
        if col in out:
            out[col] = [fn(float(v)) if v is not None and v == v else "-" for v in out[col]]
    return out


def run_text(metas):
    """'4 processes, oversubscribed (2 ranks per core)' for a side's launches."""
    procs = sorted({m.get("nprocs") for m in metas if m.get("nprocs") is not None})
    over = [m.get("oversubscription") or {} for m in metas]
    flags = {bool(o.get("oversubscribed")) for o in over if o}
    rpc = sorted({o.get("ranks_per_core") for o in over if o.get("ranks_per_core") is not None})
    text = f"{'/'.join(map(str, procs)) or '?'} processes, {len(metas)} launches, "
    if not flags:
        return text + "oversubscription not recorded"
    return text + ("oversubscribed" if True in flags else "not oversubscribed") + \
        (f" ({'/'.join(f'{r:g}' for r in rpc)} ranks per core)" if rpc else "")


def method_text(alpha=ALPHA, need=None, minimum=MIN_THRESHOLD):
    """The one-paragraph method every verdict report carries."""
    text = (f"Method (docs/verdicts.md): launches are the unit (per-launch medians, log scale). "
            f"Paired (`design`), where both sides ran in the same rounds: the unit is the round's log "
            f"ratio; one robust paired t (20 % trimmed mean of the log ratios) tests H0: |change| <= "
            f"threshold and, inverted, gives the interval, taken at the family's Benjamini-Hochberg "
            f"level 1 - {alpha} R/m (R of m rows rejected), so a change is exactly an interval wholly "
            f"beyond the threshold. Unpaired (sides that shared no rounds): the exact Hodges-Lehmann "
            f"interval of the ratio at the same family level (its true coverage in `ci_level`; 5+5 "
            f"launches reach at most {hl_most(5, 5):.1%}), "
            f"the family's rejections R counted by Yuen's trimmed t on the log per-launch medians "
            f"(Benjamini-Hochberg q < {alpha} per family: one pair of installations, or one "
            f"guideline, within one experiment and run); one rule in both designs: an interval "
            f"wholly beyond the threshold is a change. The threshold "
            f"is max({minimum:.0%}, the point's noise floor: an unbiased robust launch spread). "
            f"Comparability (machine, oversubscription, scheduler ticks, device) gates every label: "
            f"a change between sides that are not comparable is `changed-not-comparable`, and such "
            f"sides are never `same`. `same`: the whole interval within ±threshold; else "
            f"`inconclusive` with its reason and the largest regression the interval rules out "
            f"(`max_regression`). `mde`: smallest change the gate finds with {POWER:.0%} power as the "
            f"lone change of its family (its interval at 1 - {alpha} / m, m the family's tested rows), "
            f"the threshold included. `tripped`: the re-measurement screen "
            f"(a change, or the estimate beyond the threshold with p < {alpha} or an interval that "
            f"straddles it).")
    if need is not None:
        text += f" Verdicts need at least {need} launches (or paired rounds) a side."
    return text


# ----------------------------------------------------------------------------- launches needed
def min_p_value(n_a, n_b):
    """Smallest two-sided exact Mann-Whitney p-value for sample sizes n_a, n_b."""
    if n_a == 0 or n_b == 0:
        return 1.0
    return min(1.0, 2.0 / math.comb(n_a + n_b, n_a))


def min_launches(alpha):
    """Least n such that n vs n launches can reach p < alpha (and, for alpha = 0.05, the least
    that gives a finite 95 % Hodges-Lehmann interval: 4)."""
    n = 1
    while min_p_value(n, n) >= alpha:
        n += 1
    return n
