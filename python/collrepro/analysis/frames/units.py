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


def parse_bytes(text, field="--fold"):
    """'4MiB' -> 4194304; plain numbers are bytes. A UserError naming `field` on anything else."""
    from collrepro.safeio import UserError
    units = {"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
    t = str(text).strip()
    for u in ("KiB", "MiB", "GiB", "B", ""):
        if t.endswith(u) and t[: len(t) - len(u)].strip().isdigit():
            return int(t[: len(t) - len(u)]) * units[u]
    raise UserError(f"{field} {text}: use bytes like 4MiB, 65536 or 0")
