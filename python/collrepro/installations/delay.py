"""Delay mode, on the Python side: the rules of COLLREPRO_PMPI_DELAY (interpose/delay.hpp) and
which collbench points a rule slows, the ground truth of the calibration.

A rule list is `CALL:SIZE:AMOUNT` rules separated by `,` or `;` (the first rule that names the call
and whose size condition holds applies):

- CALL: allgather, allgatherv, neighbor_alltoall, neighbor_alltoallv (`-` for `_` too);
- SIZE: `*`, `>=BYTES`, `<=BYTES`, `LOW..HIGH` (both ends included) or `BYTES` (exactly), BYTES a
  whole number with an optional unit B, KiB, MiB or GiB;
- AMOUNT: `+N%`, N in (0, 1000] (that share of the call's own duration more), or a fixed time
  `+Nus` / `+Nms` in (0, 1 s].

The library delays a call the application makes itself (never one it makes while serving a call),
allgather and allgatherv only on an intercommunicator. In collbench that is exactly (each
family's library_calls in contract/contract.json):

- inter-group `native` points of collective allgather / allgatherv (the other inter-group
  algorithms call MPI_Allgather(v) only on intracommunicators, their groups' sub-communicators);
- isomorphic `mpi-neighbor` points of collective neighbor-alltoall (MPI_Neighbor_alltoall), and
  `mpi-neighbor-remapped` ones, which call MPI_Neighbor_alltoall or, when the library's neighbour
  order differs from collbench's, MPI_Neighbor_alltoallv: such a point is affected only when the
  rules treat both calls alike at its size (otherwise affected() refuses to guess).

The size is the per-process message bytes: the largest block one process sends or receives
(each family's message_bytes in the contract: inter-group max(ka, kb), the same on both groups;
isomorphic: the block, block_max).
"""

import re
from dataclasses import dataclass

from .. import contract as C
from ..safeio import UserError

CALLS = ("allgather", "allgatherv", "neighbor_alltoall", "neighbor_alltoallv")
UNITS = {"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
MAX_TEXT = 4096
MAX_RULES = 64
MAX_SECONDS = 1.0   # the largest fixed delay of one call
UNBOUNDED = (1 << 64) - 1
EXAMPLE = "allgather:>=64KiB:+10%"


class DelayError(UserError, ValueError):
    """A malformed rule list: one line naming the rule and what is wrong."""


@dataclass(frozen=True)
class DelayRule:
    call: str
    min_bytes: int = 0
    max_bytes: int = UNBOUNDED
    fraction: float = 0.0  # +10% -> 0.10
    seconds: float = 0.0   # +2ms -> 0.002 (a fixed delay)

    def matches(self, call, nbytes):
        return call == self.call and self.min_bytes <= nbytes <= self.max_bytes


def _excerpt(text, most=60):
    return text if len(text) <= most else text[:most] + "..."


def _fail(rule, why):
    raise DelayError(f"COLLREPRO_PMPI_DELAY rule '{_excerpt(rule)}': {why} (want CALL:SIZE:+N% or CALL:SIZE:+Nms, e.g. {EXAMPLE})")


def _bytes(rule, text):
    m = re.fullmatch(r"([0-9]{1,18})(B|KiB|MiB|GiB)?", text)
    if not m:
        _fail(rule, f"size '{_excerpt(text)}' is not a whole number of bytes with an optional unit B, KiB, MiB, GiB")
    value = int(m.group(1)) * UNITS[m.group(2) or ""]
    if value > UNBOUNDED:
        _fail(rule, f"size '{_excerpt(text)}' is too large")
    return value


def _rule(rule):
    parts = rule.split(":")
    if len(parts) != 3:
        _fail(rule, "want three fields")
    call, size, percent = (p.strip() for p in parts)
    call = call.replace("-", "_")
    if call not in CALLS:
        _fail(rule, f"unknown call '{_excerpt(call)}' ({', '.join(CALLS)})")
    lo, hi = 0, UNBOUNDED
    if size == "*":
        pass
    elif size.startswith(">="):
        lo = _bytes(rule, size[2:].strip())
    elif size.startswith("<="):
        hi = _bytes(rule, size[2:].strip())
    elif ".." in size:
        a, b = size.split("..", 1)
        lo, hi = _bytes(rule, a.strip()), _bytes(rule, b.strip())
        if lo > hi:
            _fail(rule, f"the range '{_excerpt(size)}' is empty (write LOW..HIGH)")
    else:
        lo = hi = _bytes(rule, size)
    return DelayRule(call, lo, hi, *_amount(rule, percent))


def _amount(rule, text):
    """(fraction, seconds) of `+N%` or of a fixed `+Nus` / `+Nms`."""
    m = re.fullmatch(r"\+([0-9.]+)(%|us|ms)", text)
    try:
        n = float(m.group(1)) if m else None
    except ValueError:
        n = None
    if n is None:
        _fail(rule, f"'{_excerpt(text)}' is not a slowdown (write +N%, e.g. +10%, or a fixed time +Nus or +Nms)")
    if m.group(2) == "%":
        if not 0 <= n <= 1000:   # +0%: the placebo (the call is timed, nothing is added)
            _fail(rule, f"'{_excerpt(text)}' is not a slowdown from +0% (a placebo) to +1000% (write +N%)")
        return n / 100.0, 0.0
    seconds = n * (1e-6 if m.group(2) == "us" else 1e-3)
    if not 0 < seconds <= MAX_SECONDS:
        _fail(rule, f"'{_excerpt(text)}' is not a fixed delay above 0 and at most 1 s (e.g. +500us or +2ms)")
    return 0.0, seconds


def parse(text):
    """The rules of a COLLREPRO_PMPI_DELAY value (a list; empty for an empty value); DelayError
    (exit 2, one line) when one is malformed. The library accepts exactly what this accepts."""
    if not text.strip():
        return []
    if len(text) > MAX_TEXT:
        raise DelayError(f"COLLREPRO_PMPI_DELAY: {len(text)} characters, over the limit of {MAX_TEXT}")
    rules = []
    for rule in re.split(r"[,;]", text):
        if not rule.strip():
            raise DelayError(f"COLLREPRO_PMPI_DELAY='{_excerpt(text)}': an empty rule (two separators in a row, "
                             "or one at an end)")
        rules.append(_rule(rule.strip()))
    if len(rules) > MAX_RULES:
        raise DelayError(f"COLLREPRO_PMPI_DELAY: more than {MAX_RULES} rules")
    return rules


def find(rules, call, nbytes):
    """The first rule for this call and size, or None."""
    return next((r for r in rules if r.matches(call, nbytes)), None)


def _get(point, key, default=None):
    value = point.get(key, default)
    return default if value in (None, "") else value


def point_bytes(point):
    """The per-process message bytes of a collbench point (a summary row or a dict with its
    columns): its family's message_bytes rule (contract), msg_bytes for a point without family."""
    return int(_get(point, "msg_bytes", 0)) if _get(point, "family") is None else C.message_bytes(point)


def delayed_calls(point):
    """The delayable MPI calls a collbench point times (a tuple; empty when none): its family's
    library calls of its collective and algorithm (contract)."""
    family = _get(point, "family")
    if family is None:
        return ()
    return C.library_calls(family, _get(point, "collective"), _get(point, "algorithm"))


def _delay_of(rules, point):
    """(fraction, seconds) a rule list slows a point by ((0.0, 0.0) when it does not touch it).
    DelayError when the point may run either of two calls that the rules treat differently at its
    size (mpi-neighbor-remapped)."""
    if isinstance(rules, str):
        rules = parse(rules)
    nbytes = point_bytes(point)
    found = {find(rules, call, nbytes) for call in delayed_calls(point)}
    amounts = {(r.fraction, r.seconds) if r else (0.0, 0.0) for r in found}
    if len(amounts) > 1:
        raise DelayError(f"{point.get('algorithm')} at {nbytes} bytes may call {' or '.join(delayed_calls(point))}, "
                         "which the rules delay differently: give both calls the same rule")
    return amounts.pop() if amounts else (0.0, 0.0)


def slowdown(rules, point):
    """The fraction a rule list slows a point by (0.0 when it does not touch it, or touches it by a
    fixed time only); `rules` is a COLLREPRO_PMPI_DELAY value or parse()'s list."""
    return _delay_of(rules, point)[0]


def affected(rules, point):
    """Whether the rules slow this collbench point, by a fraction or a fixed time (see the
    module's docstring)."""
    return any(amount > 0 for amount in _delay_of(rules, point))
