"""Is a regenerated real set the same result as its archive? An equivalence test, pure.

The unit is the launch, as in every verdict of the project (docs/verdicts.md): a run is its
per-launch medians t[l, i] (launch l, point i), compared on the log scale. The archive (the
committed reference run) and the regenerated run share no rounds: the design is unpaired.

Launches of one run move together: on some hosts a whole launch runs in a faster or a slower
mode (on the development VM's AMD EPYC, launch levels of one run spread by 15-20 %), which would
swamp any point's own change. So a run is split into
  its level    e[l] = median over the points of (log t[l, i] - c[i]), one number per launch
               (c[i]: the archive's median of log t[., i], the same reference for both runs);
  its shape    y[l, i] = log t[l, i] - e[l]: each point's time relative to its launch's level
               (the log ratios the figure's curves are made of).
A median over the points, the level ignores a change confined to a minority of points (one
algorithm slowed), which therefore shows in full in the shape.

Margins, stated in advance: functions of the archive alone (its measured noise, its launch count
L, its number of points m), fixed before anything is regenerated. A point's margin comes from its
own noise s (the robust launch-to-launch spread of its y in the archive; the points of one set
differ several-fold in noise, large messages and the library's own calls being the noisiest):
the smallest margin within which a rerun drawn from the archive's own noise is `reproduced` with
probability 1 - BETA over all m points (normal approximation: every point's equivalence
interval must fit), so

    margin = max(5 %, exp(K s sqrt(2 / L)) - 1),  K = z(1 - alpha) + z(1 - (1 - (1 - BETA)^(1/m)) / 2)

The level's margin is the same with m = 1 and s the robust spread of the archive's e[l]. A point
whose margin exceeds MARGIN_LIMIT is too noisy for the archive to vouch for: it is named and
left out; a set with no point left is `inconclusive`.

Per point (on y), and for the level (on e):
  equivalent   the Hodges-Lehmann interval of regenerated / archive at level 1 - 2 alpha (two
               one-sided tests at alpha) lies within the margin
  differs      the exact one-sided Mann-Whitney test (the inversion of the Hodges-Lehmann
               interval) rejects |shift| <= margin at Benjamini-Hochberg q < alpha over the set's
               points (the level: at alpha); one procedure for the gate and the interval, so a
               clear interval is never vetoed by a second test
  undecided    neither
  not comparable  scheduler-tick quantisation in either run's times (comparability.point_reasons)
  too noisy    its margin exceeds MARGIN_LIMIT

The set's verdict:
  reproduced       the level and every comparable archived point not too noisy equivalent (an
                   intersection-union test: "all of them" needs no correction)
  not reproduced   the level or a point differs, or a point is missing: named, with the ratio
                   and its interval
  inconclusive     otherwise, with the margin the data could support
  not comparable   the runs' metadata differ (machine, oversubscription, device, library,
                   process count, config), or no point is comparable
"""

import math

import numpy as np
from scipy import special

from collrepro.analysis.verdicts import comparability, stats

ALPHA = stats.ALPHA
BETA = 0.10              # a rerun from the archive's own noise fails to be `reproduced` at most this often
MARGIN_LIMIT = 0.25      # a point whose margin exceeds this is too noisy to vouch for (stats.SAME_LIMIT)
LEVEL = "the launches' level"
REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE, NOT_COMPARABLE = ("reproduced", "not reproduced", "inconclusive",
                                                            "not comparable")
EQUIVALENT, DIFFERS, UNDECIDED, TOO_NOISY = "equivalent", "differs", "undecided", "too noisy"


# ---------------------------------------------------------------- a run split into level and shape

def centres(archive):
    """{point: the archive's median of its log launch medians}: the reference both runs share."""
    return {k: float(np.median(stats.logs(list(v.values())))) for k, v in archive.items() if v}


def levels(run, centre):
    """{launch: e[l]}: the median over the launch's points of log t - the point's centre."""
    by_launch = {}
    for k, launches in run.items():
        if k in centre:
            for l, t in launches.items():
                by_launch.setdefault(l, []).append(float(stats.logs([t])[0]) - centre[k])
    return {l: float(np.median(v)) for l, v in by_launch.items()}


def shape(run, level):
    """{point: [y[l, i] for its launches]}: each launch median relative to its launch's level."""
    return {k: [float(stats.logs([t])[0]) - level[l] for l, t in sorted(v.items()) if l in level]
            for k, v in run.items()}


# ---------------------------------------------------------------- margins, from the archive alone

def margin_for(s, launches, points, alpha=ALPHA):
    """The margin within which a rerun of `launches` launches from noise s (log sd) is equivalent at
    all `points` points with probability 1 - BETA (normal approximation); at least 5 %."""
    if not np.isfinite(s) or launches < 2:
        return math.nan
    per_point = (1 - BETA) ** (1 / max(points, 1))
    k = special.ndtri(1 - alpha) + special.ndtri(1 - (1 - per_point) / 2)
    return max(stats.MIN_THRESHOLD, math.expm1(k * s * math.sqrt(2 / launches)))


def margins(archive, alpha=ALPHA):
    """{points: {point: margin}, level, level_s, launches, count, spread}: the archive's margins
    and the noise they come from (spread: the median of the points' own spreads, as a fraction).
    NaN margins where the archive has fewer than 2 launches."""
    level = levels(archive, centres(archive))
    y = shape(archive, level)
    spreads = {k: stats.robust_scale(v) if len(v) >= 2 else math.nan for k, v in y.items()}
    level_s = stats.robust_scale(list(level.values())) if len(level) >= 2 else math.nan
    return dict(points={k: margin_for(sk, len(y[k]), len(y), alpha) for k, sk in spreads.items()},
                level=margin_for(level_s, len(level), 1, alpha), level_s=level_s, launches=len(level),
                count=len(y), spread=math.expm1(float(np.nanmedian(list(spreads.values())))) if spreads else math.nan)


# ---------------------------------------------------------------- one comparison

def beyond_p(a_logs, b_logs, margin_):
    """One-sided exact p of H0: |shift| <= log(1 + margin), on the side of the estimate: the
    Mann-Whitney test of B moved back by the margin against A, the test whose inversion is the
    Hodges-Lehmann interval (so the gate and the interval are one procedure)."""
    a, b = np.asarray(a_logs, float), np.asarray(b_logs, float)
    if len(a) < 2 or len(b) < 2:
        return math.nan
    d = math.log1p(margin_)
    up = np.median((b[None, :] - a[:, None]).ravel()) >= 0
    diffs = (b - d)[None, :] - a[:, None] if up else a[:, None] - (b + d)[None, :]
    u = float(np.sum(diffs > 0) + 0.5 * np.sum(diffs == 0))
    counts = np.asarray(stats.u_null_counts(len(a), len(b)), float)
    return float(counts[int(math.ceil(u - 1e-9)):].sum() / counts.sum())


def compare(a_logs, b_logs, margin_, alpha=ALPHA, reasons=()):
    """The statistics of one comparison on the log scale: ratio (B/A, Hodges-Lehmann), the
    equivalence interval eq_low/eq_high (its level eq_level), the gate's interval low/high (level),
    p (beyond the margin); status and q are set by judge."""
    ratio, eq_lo, eq_hi, eq_cov = stats.hl_interval(a_logs, b_logs, 1 - 2 * alpha)
    _, lo, hi, cov = stats.hl_interval(a_logs, b_logs, stats.LEVEL)
    return dict(ratio=ratio, eq_low=eq_lo, eq_high=eq_hi, eq_level=eq_cov, low=lo, high=hi, level=cov,
                p=beyond_p(a_logs, b_logs, margin_), margin=margin_, n_archive=len(a_logs),
                n_regenerated=len(b_logs), comparable=not reasons, reason="; ".join(reasons))


def _status(r, alpha):
    m = r["margin"]
    if not r["comparable"]:
        return NOT_COMPARABLE
    if not m <= MARGIN_LIMIT:
        return TOO_NOISY
    if r["eq_low"] >= 1 / (1 + m) and r["eq_high"] <= 1 + m:
        return EQUIVALENT
    return DIFFERS if np.isfinite(r["q"]) and r["q"] < alpha else UNDECIDED


# ---------------------------------------------------------------- the set

def judge(archive, regenerated, side_reasons=(), alpha=ALPHA):
    """(verdict, detail, rows, margins) of a regenerated real set against its archive.
    archive, regenerated: {point: {launch: median}}; side_reasons: why the runs are not
    comparable (their metadata), [] when they are. rows: {point or LEVEL: compare() + q, status}."""
    m = margins(archive, alpha)
    if side_reasons:
        return NOT_COMPARABLE, "; ".join(side_reasons), {}, m
    if not np.isfinite(m["level"]):
        return INCONCLUSIVE, "the archive has fewer than 2 launches: no measured noise, no margin", {}, m
    centre = centres(archive)
    la, lb = levels(archive, centre), levels(regenerated, centre)
    ya, yb = shape(archive, la), shape(regenerated, lb)
    missing = sorted(k for k in archive if k not in regenerated)
    rows = {k: compare(ya[k], yb[k], m["points"][k], alpha,
                       comparability.point_reasons(list(archive[k].values()), list(regenerated[k].values()),
                                                   "archive", "regenerated"))
            for k in archive if k in regenerated}
    tested = [k for k, r in rows.items() if r["comparable"] and r["margin"] <= MARGIN_LIMIT]
    q = dict(zip(tested, stats.bh_qvalues([rows[k]["p"] for k in tested]))) if tested else {}
    for k, r in rows.items():
        r["q"] = q.get(k, math.nan)
        r["status"] = _status(r, alpha)
    lvl = compare(list(la.values()), list(lb.values()), m["level"], alpha)
    lvl["q"] = lvl["p"]
    lvl["status"] = _status(lvl, alpha)
    rows[LEVEL] = lvl
    return _verdict(rows, tested, missing, m, alpha)


def _verdict(rows, tested, missing, m, alpha):
    lvl = rows[LEVEL]
    judged = [r["margin"] for k, r in rows.items() if k in tested]
    head = (f"margins from the archive ({m['launches']} launches, {m['count']} points; a rerun from its own noise "
            f"reproduced {1 - BETA:.0%} of the time): points x{1 + min(judged, default=math.nan):.3f} to "
            f"x{1 + max(judged, default=math.nan):.3f} (median launch spread about the launch level "
            f"{m['spread']:.1%}), level x{1 + m['level']:.3f} (level spread {math.expm1(m['level_s']):.1%}); level "
            f"x{lvl['ratio']:.3f} [{lvl['eq_low']:.3f}, {lvl['eq_high']:.3f}] {lvl['status']}; {_launches(rows)}")
    noisy = [k for k in rows if rows[k]["status"] == TOO_NOISY]
    ticks = [k for k in rows if rows[k]["status"] == NOT_COMPARABLE]
    note = (f"; {len(noisy)} of {m['count']} points too noisy to vouch for (margin over {MARGIN_LIMIT:.0%})" if noisy
            else "") + (f"; {len(ticks)} not comparable (tick-bound)" if ticks else "")
    differ = [k for k in tested if rows[k]["status"] == DIFFERS]
    if differ or missing or lvl["status"] == DIFFERS:
        parts = [f"{len(differ)} of {len(tested)} judged points differ in shape beyond their margins "
                 f"(exact Mann-Whitney against the margin, Benjamini-Hochberg q < {alpha:g})"] if differ else []
        parts += [f"the launches' level differs beyond its margin (x{lvl['ratio']:.3f}: every point moved together; "
                  "with the same library, config and kind of machine, the signature of the host's state from one "
                  "run to the next, which the archive's single run cannot measure: docs/reproduce.md)"
                  ] if lvl["status"] == DIFFERS else []
        parts += [f"{len(missing)} archived point{'s' if len(missing) > 1 else ''} missing from the regenerated "
                  "run"] if missing else []
        return NOT_REPRODUCED, f"{'; '.join(parts)}; {head}{note}", rows, m
    if not tested:
        return INCONCLUSIVE, f"no point the archive can vouch for; {head}{note}", rows, m
    if all(rows[k]["status"] == EQUIVALENT for k in tested + [LEVEL]):
        return REPRODUCED, (f"the level and all {len(tested)} judged points equivalent (their {1 - 2 * alpha:.0%} "
                            f"intervals within their margins); {head}{note}"), rows, m
    undecided = [k for k in tested + [LEVEL] if rows[k]["status"] != EQUIVALENT]
    supported = max(_reach(rows[k]) for k in tested) - 1
    return INCONCLUSIVE, (f"{len(undecided)} of {len(tested) + 1} comparisons neither equivalent nor beyond the "
                          f"margin{' (the level among them)' if LEVEL in undecided else ''}; the data could support "
                          f"a margin of {supported:.1%} for every judged point; {head}{note}"), rows, m


def _reach(r):
    return max(r["eq_high"], 1 / r["eq_low"]) if r["eq_low"] > 0 else math.inf


def _launches(rows):
    counts = sorted({(r["n_archive"], r["n_regenerated"]) for k, r in rows.items() if k != LEVEL})
    levels_ = sorted({round(100 * r["eq_level"], 1) for r in rows.values()})
    return (", ".join(f"{a}+{b}" for a, b in counts) + " launches (archive + regenerated), equivalence intervals "
            f"at {'/'.join(f'{v:g}' for v in levels_)} %")


def differing(rows):
    """[(point, ratio, low, high)] of the points (and the level) that differ, largest departure first."""
    out = [(k, r["ratio"], r["low"], r["high"]) for k, r in rows.items() if r["status"] == DIFFERS]
    return sorted(out, key=lambda t: -abs(math.log(t[1])))
