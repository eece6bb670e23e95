"""Formatting of byte sizes and time units."""

import math


def format_bytes(n):
    """1024 -> '1 KiB', 1536 -> '1.5 KiB', 100 -> '100 B'."""
    n = float(n)
    for unit, scale in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if abs(n) >= scale:
            value = n / scale
            return f"{value:.0f} {unit}" if value == round(value) else f"{value:.3g} {unit}"
    return f"{n:.0f} B" if n == round(n) else f"{n:.3g} B"


TIME_UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))


def time_unit(max_seconds):
    """Largest unit in which max_seconds is >= 1: returns (name, seconds per unit)."""
    if not math.isfinite(max_seconds) or max_seconds <= 0:
        return "s", 1.0
    for name, scale in TIME_UNITS:
        if max_seconds >= scale:
            return name, scale
    return TIME_UNITS[-1]
