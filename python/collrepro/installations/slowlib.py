"""The preload slowdown library (tests/slowlib/slowlib.cpp), on the Python side: the rules of
COLLREPRO_SLOWLIB, which collbench points a rule slows (the calibration's ground truth for this
mechanism), and the ordinary added installation that preloads it.

A rule list is `none` (a placebo) or `CALL,COMM,MINBYTES,AMOUNT` rules separated by `;`:
CALL MPI_Allgather or MPI_Allgatherv; COMM inter, intra or any; MINBYTES a whole number of
bytes (the call's largest block, sent or received, at least this); AMOUNT `+Nms` (a fixed time)
or `+N%` (that share of the call's own duration), N a whole number in 1..1000 (`+N%`: 0..1000,
`+0%` being the placebo: the call timed and nothing added). The library
accepts exactly what parse() accepts (tests/slowlib/check_parse.py runs both on one table).

This is the second injection mechanism of the calibration: it shares no code with the PMPI
library's delay mode (delay.py, interpose/delay.cpp), and a synthetic release made with it is an
ordinary added installation (origin `added`, docs/installations.md), not a derived one: the
base's record with the library in LD_PRELOAD and the rules in COLLREPRO_SLOWLIB.
"""

import os
import re
from dataclasses import dataclass, replace

from .. import contract as C
from ..safeio import UserError
from . import collbench
from .model import Installation

VARIABLE = "COLLREPRO_SLOWLIB"
MECHANISM = "slowlib"
LIBRARY = os.path.join("tests", "slowlib", "libcollrepro_slowlib.so")
CALLS = {"MPI_Allgather": "allgather", "MPI_Allgatherv": "allgatherv"}
CALL_OF = {lower: name for name, lower in CALLS.items()}
COMMS = ("inter", "intra", "any")
MAX_RULES = 8
EXAMPLE = "MPI_Allgather,inter,131072,+100ms"


class SlowlibError(UserError, ValueError):
    """A malformed COLLREPRO_SLOWLIB value, or a rule whose effect on a point is not known."""


@dataclass(frozen=True)
class Rule:
    call: str
    comm: str
    min_bytes: int
    ms: int = 0        # a fixed time, or 0
    percent: int = 0   # a share of the call's own duration, or 0


def _fail(rule, why):
    raise SlowlibError(f"{VARIABLE} rule '{rule[:60]}': {why} (want none, or CALL,COMM,MINBYTES,+Nms|+N% rules "
                       f"separated by ';', e.g. {EXAMPLE})")


def _number(text, lo, hi):
    return int(text) if re.fullmatch(r"[0-9]{1,12}", text) and lo <= int(text) <= hi else None


def _rule(text):
    fields = text.split(",")
    if len(fields) != 4:
        _fail(text, "want four fields separated by ','")
    call, comm, least, amount = fields
    if call not in CALLS:
        _fail(text, "CALL is not MPI_Allgather or MPI_Allgatherv")
    if comm not in COMMS:
        _fail(text, "COMM is not inter, intra or any")
    min_bytes = _number(least, 0, 1 << 40)
    if min_bytes is None:
        _fail(text, "MINBYTES is not a whole number of bytes (e.g. 131072)")
    m = re.fullmatch(r"\+([0-9]+)(ms|%)", amount)
    n = _number(m.group(1), 0 if m.group(2) == "%" else 1, 1000) if m else None   # +0%: the placebo
    if n is None:
        _fail(text, "AMOUNT is not +Nms (N a whole number in 1..1000) or +N% (N in 0..1000; +0% is a placebo)")
    return Rule(call, comm, min_bytes, ms=n if m.group(2) == "ms" else 0, percent=n if m.group(2) == "%" else 0)


def parse(text):
    """The rules of a COLLREPRO_SLOWLIB value ([] for `none`); SlowlibError (one line) otherwise."""
    if not text:
        raise SlowlibError(f"{VARIABLE} is not set, but the library is preloaded (want none, or rules, e.g. {EXAMPLE})")
    if text == "none":
        return []
    if len(text) > 1023:
        _fail(text, "the value is over 1023 characters")
    if ";;" in text or ",," in text or text[0] in ";," or text[-1] in ";,":
        _fail(text, "an empty rule or field (two separators in a row, or one at an end)")
    rules = [_rule(r) for r in text.split(";")]
    if len(rules) > MAX_RULES:
        _fail(text, f"more than {MAX_RULES} rules")
    return rules


def _get(point, key):
    value = point.get(key)
    return None if value is None or value == "" or (isinstance(value, float) and value != value) else value


def slowed_by(text, point):
    """The rule that slows a collbench point (a summary or verdict row), or None.

    Only the inter-group `native` points of allgather / allgatherv run those calls on an
    intercommunicator (the other inter-group algorithms call MPI_Allgather(v) only on their
    groups' intracommunicators, and with the groups' setup); their largest block is max(ka, kb)
    on both groups. A rule for intracommunicators (intra, any) would also slow those internal
    calls, by amounts no row records: SlowlibError rather than a guess."""
    rules = parse(text) if isinstance(text, str) else text
    if any(r.comm != "inter" for r in rules):
        raise SlowlibError(f"{VARIABLE}: which collbench points a rule for intracommunicators slows is not known "
                           "(algorithms call MPI_Allgather(v) inside): give COMM inter for a calibration")
    family = _get(point, "family")
    if family is None or C.family_entry(family)["library_calls"]["comm"] != "inter":
        return None
    calls = {CALL_OF[c] for c in C.library_calls(family, _get(point, "collective"), _get(point, "algorithm"))
             if c in CALL_OF}
    nbytes = C.message_bytes(point)
    return next((r for r in rules if r.call in calls and nbytes >= r.min_bytes), None)


def affected(text, point):
    """Whether a COLLREPRO_SLOWLIB value slows this collbench point (slowed_by's rules)."""
    return slowed_by(text, point) is not None


def calibration_rule(pct, min_bytes=16384):
    """The rule of the calibration's `<base>+preload<pct>`: native inter-group MPI_Allgather from
    16 KiB on (the sizes the delay mode's settings slow) by pct % of the call's own duration."""
    return f"MPI_Allgather,inter,{min_bytes},+{pct}%"


def library(base: Installation, repo=collbench.REPO):
    """The library beside the collbench that runs for `base` (build/<preset>/tests/slowlib/)."""
    exe = collbench.executable(base, repo)
    build = os.path.dirname(os.path.dirname(exe)) if exe else collbench.build_dir(base, repo)
    return os.path.join(build, LIBRARY)


def installation(name, base: Installation, rules, lib=None):
    """The added installation that runs `base` with the library preloaded and `rules` (checked):
    the entry a user would write into the registry file by hand."""
    parse(rules)
    env = dict(base.env, LD_PRELOAD=lib or library(base), **{VARIABLE: rules})
    return replace(base, name=name, env=env, origin="added", base="", delay="")


def rules_of(inst_or_record):
    """The COLLREPRO_SLOWLIB value an installation (or its metadata record) runs with ('' for none)."""
    env = getattr(inst_or_record, "env", None)
    if env is None and isinstance(inst_or_record, dict):
        env = inst_or_record.get("env")
    return str(env.get(VARIABLE, "")) if isinstance(env, dict) else ""
