"""The differential fuzzer's cases, pure: drawn from a seed, written as the one line
fuzz/intercase.c reads, read back, and made smaller for the minimiser. No MPI, no files.

A case is a dict of the line's words (fuzz/intercase.c documents each) plus `np`, the world
size. Case i of seed S is drawn from its own generator (`S:i`), so a run can resume anywhere and
two runs of one seed draw the same cases.
"""

import random

COLLECTIVES = ("allgather", "allgatherv")
FORMS = ("blocking", "nonblocking", "persistent")
MAKES = ("split", "dup", "merge")
LAYOUTS = ("block", "reverse", "interleave")
DISPS = ("contig", "gap", "reverse")
# Type pairs whose signatures match (a vector carries 2 ints) and the bytes of one element of each.
TYPE_PAIRS = (("byte", "byte"), ("int", "int"), ("int", "vector"), ("vector", "int"), ("vector", "vector"),
              ("struct", "struct"))
TYPE_BYTES = {"byte": 1, "int": 4, "vector": 8, "struct": 12}
MAX_NP = 16
MAX_CALLS = 8
WORDS = ("coll", "form", "calls", "make", "layout", "p", "counts", "disp", "stype", "rtype", "skew", "seed")


def draw(seed, index, max_np=6):
    """Case `index` of `seed`: every axis drawn, with the corners (1 against the rest, a side
    sending nothing, zero counts in v) over-weighted."""
    rng = random.Random(f"{seed}:{index}")
    np = rng.randint(2, max_np)
    p = rng.choice([1, np - 1, rng.randint(1, np - 1)])
    coll = rng.choice(COLLECTIVES)
    stype, rtype = rng.choice(TYPE_PAIRS)
    unit = 2 if (stype, rtype) == ("int", "vector") else 1  # ints must fill whole vectors
    big = rng.random() < 0.2
    def count():
        return unit * rng.choice([0, 1, rng.randint(1, 7), rng.randint(1, 5000 if big else 300)])
    if coll == "allgather":
        per_side = [count(), count()]
        if rng.random() < 0.25:  # half duplex: one side sends nothing
            per_side[rng.randrange(2)] = 0
        counts = [[per_side[0]] * p, [per_side[1]] * (np - p)]
    else:
        counts = [[count() for _ in range(p)], [count() for _ in range(np - p)]]
        if rng.random() < 0.2:  # half duplex
            side = rng.randrange(2)
            counts[side] = [0] * len(counts[side])
    form = rng.choice(FORMS)
    return {
        "np": np, "coll": coll, "form": form, "calls": rng.choice([1, 2, 3, rng.randint(1, 6)]),
        "make": rng.choice(MAKES), "layout": rng.choice(LAYOUTS), "p": p, "counts": counts,
        "disp": rng.choice(DISPS) if coll == "allgatherv" else "contig", "stype": stype, "rtype": rtype,
        "skew": (rng.randrange(np), rng.choice([200, 2000, 20000])) if rng.random() < 0.4 else (-1, 0),
        "seed": rng.randrange(1 << 30),
    }


def to_line(case):
    """The case as intercase's argument (np excluded: it is the launch's)."""
    words = []
    for key in WORDS:
        value = case[key]
        if key == "counts":
            value = "/".join(",".join(str(c) for c in side) for side in value)
        elif key == "skew":
            value = f"{value[0]}:{value[1]}"
        words.append(f"{key}={value}")
    return " ".join(words)


def from_line(line, np):
    """The case of an intercase line (the inverse of to_line); ValueError naming the word."""
    case = {"np": np}
    for word in line.split():
        key, sep, value = word.partition("=")
        if not sep or key not in WORDS:
            raise ValueError(f"unknown word {word!r} (known: {', '.join(WORDS)})")
        if key in ("calls", "p", "seed"):
            value = int(value)
        elif key == "counts":
            value = [[int(c) for c in side.split(",") if c != ""] for side in value.split("/")]
        elif key == "skew":
            rank, us = value.split(":")
            value = (int(rank), int(us))
        case[key] = value
    missing = [k for k in WORDS if k not in case]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")
    check(case)
    return case


def check(case):
    """ValueError naming the first field of a case intercase would refuse."""
    np, p = case["np"], case["p"]
    if not 2 <= np <= MAX_NP:
        raise ValueError(f"np {np}: 2 to {MAX_NP}")
    if not 1 <= p < np:
        raise ValueError(f"p {p}: 1 to np - 1 = {np - 1}")
    if [len(s) for s in case["counts"]] != [p, np - p]:
        raise ValueError(f"counts: {p} and {np - p} values (one per process of each side)")
    if case["coll"] == "allgather" and any(len(set(s)) > 1 for s in case["counts"]):
        raise ValueError("counts: allgather sends one count per side")
    if (case["stype"], case["rtype"]) not in TYPE_PAIRS:
        raise ValueError(f"stype/rtype {case['stype']}/{case['rtype']}: one of {TYPE_PAIRS}")
    if case["form"] not in FORMS or case["coll"] not in COLLECTIVES or case["make"] not in MAKES:
        raise ValueError("form, coll or make unknown")
    if not 1 <= case["calls"] <= MAX_CALLS:
        raise ValueError(f"calls {case['calls']}: 1 to {MAX_CALLS}")
    unit = TYPE_BYTES[case["stype"]]
    if any(c * unit % TYPE_BYTES[case["rtype"]] for side in case["counts"] for c in side):
        raise ValueError("counts: a block's bytes must fill whole rtype elements")


def half_duplex(case):
    """One side sends nothing (what the half-duplex algorithms serve)."""
    return any(all(c == 0 for c in side) for side in case["counts"])


def describe(case):
    """A short human line: np, p:q, collective, form, calls."""
    return (f"np {case['np']} ({case['p']}:{case['np'] - case['p']}) {case['coll']} {case['form']} x{case['calls']} "
            f"{case['stype']}->{case['rtype']} {case['make']}/{case['layout']}")


def smaller(case):
    """Candidate simplifications of a failing case, simplest first; each one step from `case`
    and valid. The minimiser keeps the first that still fails the same way."""
    out = []
    def variant(**changes):
        c = {**case, **changes}
        c["counts"] = [list(s) for s in c["counts"]]
        try:
            check(c)
        except ValueError:
            return
        if c != case:
            out.append(c)
    variant(calls=1)
    if case["calls"] > 2:
        variant(calls=case["calls"] - 1)
    variant(skew=(-1, 0))
    variant(make="split")
    variant(layout="block")
    variant(disp="contig")
    variant(form="blocking")
    variant(stype="byte", rtype="byte",
            counts=[[c * TYPE_BYTES[case["stype"]] for c in s] for s in case["counts"]])
    for side in (0, 1):  # one process fewer
        if len(case["counts"][side]) > 1:
            counts = [list(s) for s in case["counts"]]
            counts[side].pop()
            p = case["p"] - (1 if side == 0 else 0)
            skew = case["skew"] if case["skew"][0] < case["np"] - 1 else (-1, 0)
            variant(np=case["np"] - 1, p=p, counts=counts, skew=skew)
    unit = 2 if (case["stype"], case["rtype"]) == ("int", "vector") else 1
    for f in (lambda c: min(c, unit), lambda c: (c // 2) // unit * unit):
        counts = [[f(c) if c else 0 for c in s] for s in case["counts"]]
        variant(counts=counts)
    return out
