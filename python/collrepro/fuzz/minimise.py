"""Minimising a failing case: take the first simpler case (cases.smaller) that still fails the
same way, until none does or the budget of launches or seconds is spent. Pure: the caller's
`fails(case)` launches."""

import time

from . import cases


def minimise(case, fails, max_launches=30, max_seconds=180.0, clock=time.monotonic):
    """The smallest case found that `fails` (a predicate), and the launches it took."""
    start, launches, current = clock(), 0, case
    progress = True
    while progress:
        progress = False
        for candidate in cases.smaller(current):
            if launches >= max_launches or clock() - start > max_seconds:
                return current, launches
            launches += 1
            if fails(candidate):
                current, progress = candidate, True
                break
    return current, launches
