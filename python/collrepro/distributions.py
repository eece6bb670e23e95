"""Allgatherv block sizes per group: equal, arithmetic, random.

This must match `distribute()` and `nominal_sizes()` in bench/config/distribution.cpp bit for bit
(the Python tools recompute K_A and K_B of old result directories with it): both are held to
contract/golden/distributions.json (tests/python/test_golden.py, tests/driver/golden_test.cpp).

  equal       s for every process
  arithmetic  2 (i+1) ceil(s/n): seed 001's generator (mean ~ s, largest ~ 2s)
  random      uniform in [0, 2s] from a splitmix64-style hash of (i, n, s, seed)

The seed enters the hash as `^ seed * SEED_MULTIPLIER` (mod 2^64) next to i, n and s, so
seed 0 gives exactly the values of the generator without a seed.
"""

from functools import lru_cache

from .contract import ENUM_SETS

NAMES = tuple(ENUM_SETS["distribution"])   # the contract's set, in its order
_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB
SEED_MULTIPLIER = 0xD6E8FEB86659FD93


def _random_block(i, n, s, seed):
    x = ((i + 1) * _GOLDEN & _MASK) ^ (n << 32 & _MASK) ^ s ^ (seed * SEED_MULTIPLIER & _MASK)
    x = (x ^ (x >> 30)) * _MIX1 & _MASK
    x = (x ^ (x >> 27)) * _MIX2 & _MASK
    x ^= x >> 31
    return 0 if s == 0 else x % (2 * s + 1)


@lru_cache(maxsize=4096)
def distribute(dist, s, n, seed=0):
    """Block sizes (a tuple of n ints) of a group of n processes with nominal size s."""
    s, n, seed = int(s), int(n), int(seed or 0)
    if dist == "equal":
        return (s,) * n
    if dist == "arithmetic":
        unit = (s + n - 1) // n if n else 0
        return tuple(2 * (i + 1) * unit for i in range(n))
    if dist == "random":
        return tuple(_random_block(i, n, s, seed) for i in range(n))
    raise ValueError(f"unknown distribution {dist!r} (known: {', '.join(NAMES)})")


def nominal_sizes(size, ka, kb):
    """(s_A, s_B): the swept size split by the block ratio kA:kB; the larger side gets size.

    As nominal_sizes() in bench/config/distribution.cpp (integer arithmetic, no overflow for any
    size that fits in 64 bits).
    """
    big = max(ka, kb)
    return (size // big * ka + size % big * ka // big,
            size // big * kb + size % big * kb // big)
