"""Model formulas: seed 001 Eq. 5 limit and the alpha-beta least-squares fit."""

import numpy as np
from scipy.optimize import nnls


def eq5_limit(k_a, k_b):
    """Seed 001 Eq. 5: (M + 3 K_A + 3 K_B) / M with M = max(K_A, K_B).

    K_A and K_B are the sums of the blocks of group A and B: the bytes_a and bytes_b columns.
    """
    k_a, k_b = float(k_a), float(k_b)
    m = max(k_a, k_b)
    return (m + 3.0 * k_a + 3.0 * k_b) / m if m > 0 else float("nan")


def fit_alpha_beta(alpha_terms, beta_bytes, measured, weight="relative"):
    """Non-negative least squares for measured ~ a*alpha + b*beta.

    weight='relative' minimises the relative residuals (each row divided by
    its measurement) so that small and large messages count alike;
    'absolute' minimises plain residuals in seconds.
    Returns (alpha, beta, rms relative residual).
    """
    a = np.column_stack([np.asarray(alpha_terms, float), np.asarray(beta_bytes, float)])
    y = np.asarray(measured, float)
    ok = np.isfinite(a).all(axis=1) & np.isfinite(y) & (y > 0)
    a, y = a[ok], y[ok]
    if len(y) == 0:
        return float("nan"), float("nan"), float("nan")
    w = 1.0 / y if weight == "relative" else np.ones_like(y)
    # Scale the columns so that nnls is well conditioned (alpha ~ 1e-6, beta ~ 1e-10).
    col = np.abs(a).max(axis=0)
    col[col == 0] = 1.0
    solution, _ = nnls(a * w[:, None] / col, y * w)
    alpha, beta = solution / col
    rel = (a @ np.array([alpha, beta]) - y) / y
    return float(alpha), float(beta), float(np.sqrt(np.mean(rel ** 2)))


def fit_pingpong(series, weight="relative"):
    """Fit time = alpha + bytes*beta to pingpong [{bytes, time_s}] points."""
    sizes = np.array([float(s["bytes"]) for s in series])
    times = np.array([float(s["time_s"]) for s in series])
    return fit_alpha_beta(np.ones_like(sizes), sizes, times, weight)
