"""The statistics behind every verdict (docs/verdicts.md): one comparison of a point between two
sides, A (before, or the mock-up) and B (after, or the native call).

- The unit is the launch: each side is its per-launch medians (the repetitions of a launch are
  nested inside it and summarised by their median), compared on the log scale.
- The test that gates: Yuen's trimmed t on the log per-launch medians (continuous p-value; assumes the
  log medians of a side are roughly normal and independent across launches). The exact
  permutation p-value of the difference of mean log medians is kept beside it (`perm_p`).
- Benjamini-Hochberg q-values over a comparison family (one pair of installations, or one
  guideline, within one experiment and one run).
- The Hodges-Lehmann ratio B/A with its exact distribution-free interval (order statistics of
  the sorted pairwise log-ratios picked by the exact Mann-Whitney null) and its true coverage
  `ci_level` for these launch counts; with ties the closed interval covers at least that much.
- The two-gate verdict (verdicts.LABELS), the noise floor, the minimum detectable effect and the
  `tripped` screen.

min_launches (the default `--min-launches`) is at the end.
"""

import functools
import itertools
import math

import numpy as np
from scipy import special

from . import verdicts as V

ALPHA = 0.05              # per-family false-discovery rate, and the level of the raw screen
LEVEL = 0.95              # the least coverage of the ratio's interval
MIN_THRESHOLD = 0.05      # a change must exceed max(5 %, the point's noise floor)
SAME_LIMIT = 0.25         # `same` only where the threshold (the equivalence margin) is at most this
POWER = 0.80              # of the minimum detectable effect
MAD_TO_SD = 1.4826        # the median absolute deviation of normal data times this is its sd
SD_FLOOR = 0.002          # least launch-to-launch sd on the log scale (0.2 %): a side whose
                          # launches all gave the same median is not infinitely precise
TRIM = 0.2                # Yuen's trimmed t: the share cut from each end of a side's launches
EXACT_LIMIT = 200_000     # enumerate the permutation test up to this many splits, else sample
PERMUTATIONS = 20_000
SEED = 20261126
TINY = np.finfo(float).tiny
REFUSED = "too few launches"   # the reason that starts every refused verdict (exit 4)


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


def trimmed_t(a_logs, b_logs, trim=TRIM):
    """(p, standard error, degrees of freedom) of Yuen's trimmed t (Welch's t on 20 % trimmed means
    with winsorized variances) on two samples of log medians; p is NaN when a side has fewer than 2
    launches. With trim = 0 it is Welch's t."""
    a, b = np.asarray(a_logs, float), np.asarray(b_logs, float)
    if len(a) < 2 or len(b) < 2:
        return math.nan, math.nan, math.nan
    (ma, va, ha), (mb, vb, hb) = _trimmed(a, trim), _trimmed(b, trim)
    da = (len(a) - 1) * va / (ha * (ha - 1)) if ha > 1 else va
    db = (len(b) - 1) * vb / (hb * (hb - 1)) if hb > 1 else vb
    se = math.sqrt(da + db)
    df = (da + db) ** 2 / (da ** 2 / max(ha - 1, 1) + db ** 2 / max(hb - 1, 1))
    t = (mb - ma) / se
    return float(2.0 * special.stdtr(df, -abs(t))), se, df


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
def noise_floor(a_logs, b_logs):
    """The launch-to-launch spread of the per-launch medians, both sides pooled and robust: exp(s) - 1,
    s = 1.4826 x the median absolute deviation of the log medians from their own side's median (the
    sd for normal data; one disturbed launch does not lift it). NaN with fewer than 2 launches a side."""
    a, b = np.asarray(a_logs, float), np.asarray(b_logs, float)
    if len(a) < 2 or len(b) < 2:
        return math.nan
    residuals = np.concatenate([a - np.median(a), b - np.median(b)])
    return float(math.expm1(MAD_TO_SD * float(np.median(np.abs(residuals)))))


def threshold_of(floor, minimum=MIN_THRESHOLD):
    return max(minimum, floor) if np.isfinite(floor) else minimum


def mde(se, df, threshold, alpha=ALPHA, power=POWER):
    """The smallest change (fraction) the trimmed t at per-point `alpha` finds with `power`, at
    this standard error; never below `threshold` (the interval gate cannot call less)."""
    if not np.isfinite(se):
        return math.nan
    z = special.stdtrit(df, 1 - alpha / 2) + special.stdtrit(df, power)
    return max(threshold, float(np.expm1(min(z * se, 700.0))))   # a tiny df: an MDE beyond any ratio


def beyond(ratio, threshold):
    return ratio > 1.0 + threshold or ratio < 1.0 / (1.0 + threshold)


def within(low, high, threshold):
    return low >= 1.0 / (1.0 + threshold) and high <= 1.0 + threshold


def measure(before, after, need, level=LEVEL, minimum=MIN_THRESHOLD):
    """Everything about one comparison but its q-value and verdict: a dict of ROW_COLUMNS fields
    (verdict, reason, q_value, comparability left for `decide`) plus perm_p and noise_floor."""
    a, b = logs(before), logs(after)
    p, se, df = trimmed_t(a, b)
    ratio, low, high, coverage = hl_interval(a, b, level)
    floor = noise_floor(a, b)
    thr = threshold_of(floor, minimum)
    return dict(ratio=ratio, ci_low=low, ci_high=high, ci_level=coverage, p_value=p,
                perm_p=permutation_p(a, b), noise_floor=floor, threshold=thr,
                mde=mde(se, df, thr), n_before=len(a), n_after=len(b),
                refused=min(len(a), len(b)) < need, need=need)


def decide(row, q, comparable, comparability="", alpha=ALPHA):
    """The verdict of one measured comparison (`measure`'s dict) given its q-value and the
    comparability of its sides; returns the ROW_COLUMNS fields."""
    thr, lo, hi, ratio, p = row["threshold"], row["ci_low"], row["ci_high"], row["ratio"], row["p_value"]
    out = {k: row[k] for k in ("ratio", "ci_low", "ci_high", "ci_level", "p_value", "threshold",
                               "mde", "n_before", "n_after")}
    out.update(q_value=q, comparable=bool(comparable), comparability=comparability)
    interval_beyond = lo > 1.0 + thr or hi < 1.0 / (1.0 + thr)
    if row["refused"]:
        verdict = V.INCONCLUSIVE
        reason = f"{REFUSED}: {row['n_before']}+{row['n_after']}, need {row['need']} a side"
    elif np.isfinite(q) and q < alpha and interval_beyond:
        if not comparable:
            verdict, reason = V.NOT_COMPARABLE, f"{'slower' if ratio > 1 else 'faster'}; {comparability}"
        else:
            verdict, reason = (V.REGRESSION if ratio > 1 else V.IMPROVEMENT), ""
    elif within(lo, hi, thr) and thr <= SAME_LIMIT:
        verdict, reason = V.SAME, ""
    elif within(lo, hi, thr):
        verdict, reason = V.INCONCLUSIVE, f"too noisy to call the same (noise floor {thr:.1%} > {SAME_LIMIT:.0%})"
    elif not np.isfinite(hi):
        verdict, reason = V.INCONCLUSIVE, f"{REFUSED} for a {LEVEL:.0%} interval"
    elif interval_beyond:
        verdict, reason = V.INCONCLUSIVE, f"not significant after FDR (q={q:.2g})"
    else:
        verdict, reason = V.INCONCLUSIVE, f"interval straddles ±{thr:.1%}"
    if verdict == V.INCONCLUSIVE and not comparable and not row["refused"]:
        reason += f"; {comparability}"
    out.update(verdict=verdict, reason=reason,
               tripped=bool(verdict in V.CHANGED or (beyond(ratio, thr) and (
                   (np.isfinite(p) and p < alpha) or
                   (verdict == V.INCONCLUSIVE and not row["refused"] and not within(lo, hi, thr))))))
    return out


def decide_family(rows, comparables, alpha=ALPHA):
    """BH over one family of measured rows; comparables: (comparable, text) per row. Returns the
    ROW_COLUMNS dicts (plus perm_p and noise_floor) in the same order."""
    q = bh_qvalues([math.nan if r["refused"] else r["p_value"] for r in rows])
    return [dict(decide(r, qi, c, text, alpha), perm_p=r["perm_p"], noise_floor=r["noise_floor"])
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
    """'5+5 launches: 48 comparisons (interval coverage 96.8 %)' of a verdict table."""
    parts = []
    for (nb, na), sub in table.groupby(["n_before", "n_after"]):
        level = sub["ci_level"].iat[0]
        parts.append(f"{nb}+{na} launches: {len(sub)} comparisons (interval coverage "
                     + (f"{100 * level:.1f} %)" if np.isfinite(sub["ci_high"]).all() else "none: too few)"))
    return "; ".join(parts)


def _pct(value):
    return "-" if value is None or not np.isfinite(value) else f"{100 * value:.1f}%"


def _g3(value):
    return "-" if value is None or not np.isfinite(value) else f"{value:.3g}"


def shown(frame):
    """A copy of a verdict table with the statistics formatted for a Markdown report."""
    out = frame.copy()
    for col, fn in (("ci_level", _pct), ("threshold", _pct), ("mde", _pct), ("noise_floor", _pct),
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
            f"Test: Yuen's trimmed t on the log per-launch medians (the exact permutation p is in `perm_p`); "
            f"Benjamini-Hochberg q-values per family (one pair of installations, or one guideline, "
            f"within one experiment and run), significant at q < {alpha}. Ratio: Hodges-Lehmann "
            f"estimate with its exact distribution-free interval, the least coverage at or above "
            f"{LEVEL:.0%} that the launch counts allow (`ci_level`; e.g. 5+5 launches: "
            f"{hl_order(5, 5)[1]:.1%}, 4+4: {hl_order(4, 4)[1]:.1%}). A change (regression / "
            f"improvement) needs q < {alpha} AND the whole interval beyond the threshold, "
            f"max({minimum:.0%}, the point's noise floor); between sides that are not comparable "
            f"(machine, oversubscription, scheduler ticks, device) it is `changed-not-comparable`. "
            f"`same`: the whole interval within ±threshold; else `inconclusive` with its reason. "
            f"`mde`: smallest change found with {POWER:.0%} power at per-point alpha {alpha}. "
            f"`tripped`: the re-measurement screen (a change, or the estimate beyond the threshold "
            f"with p < {alpha} or an interval that straddles it).")
    if need is not None:
        text += f" Verdicts need at least {need} launches a side."
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
