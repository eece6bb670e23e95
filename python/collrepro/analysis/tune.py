"""Selection rules for the interposition library from a measured sweep (interpose/colltune).

    interpose/colltune RESULT_DIR [RESULT_DIR ...] -o rules.json [--alpha 0.05] [--threshold 0.05]

For every measured situation the library can tell apart (collective; the call form, the sweep
key `call`: every rule colltune writes sits under `call=blocking`, `call=nonblocking` or
`call=persistent`, so each form is tuned against the library's own call of that form, and a
form the sweep did not measure falls to native; inter-group: the group
sizes, whether one direction is empty and, for a half-duplex call, which group sends;
isomorphic: the neighbourhood) and every message
size, the per-launch medians (the analysis loader, Tukey-filtered as everywhere) of each
algorithm are compared with the native call's (the fastest native kind measured there) under
the verdict method of docs/verdicts.md (collrepro.analysis.verdicts.stats: Yuen's trimmed t on the log per-launch
medians, Benjamini-Hochberg over every comparison of the sweep, the exact Hodges-Lehmann
interval). An algorithm qualifies when its verdict is an `improvement`: q < alpha and the whole
interval of its ratio to the native call below 1 / (1 + threshold), the threshold being
max(`--threshold`, the point's noise floor). Both sides come from the same launches of one run
(one machine, library and placement), so they are taken as comparable. The fastest qualifying
algorithm is chosen, and the native call where none qualifies or no native call was
measured. A point with fewer launches than a verdict needs (4 per side at alpha 0.05) stays
native without a verdict: when every point is that thin colltune refuses (exit 2, no file
written: an all-native file would look like a measured verdict); when only some are, it writes
the rules, names how many points stayed native for that reason and exits 4. Points that differ only in what the library cannot see (process count,
placement, torus dims, Allgatherv distribution) must agree; where they do not, native.

Half duplex, both orientations: when one `groups=P:Q` was measured with the larger group sending
(ka > 0, kb = 0 at p > q) and with the smaller one sending, and the two choose different
algorithms at a size both measured, its `duplex=half` rules split into `senders=P` and
`senders=Q` sub-trees, each with its own sizes. Otherwise the two orientations are one
situation, as before (a size where they disagree: native).

The rules (interpose/rules.hpp) list the sizes in increasing order: `msg_size<=S` takes the
sizes above the previous boundary up to S (runs of the same choice merged); sizes beyond the
largest measured one fall to `any`: native. msg_size is the block of one process: max(ka, kb)
for the inter-group collectives (Allgatherv: the configured block), the largest block for the
isomorphic ones. The situation keys and msg_size of each family are its contract entry's
situation and message_bytes (contract/contract.json).
"""

import json
import os
import sys
from collections import defaultdict

import numpy as np

from collrepro import contract as C
from collrepro import safeio
from collrepro.analysis.verdicts import stats
from collrepro.analysis.verdicts import verdicts as V
from collrepro.analysis.frames.aggregate import algorithm_kinds, groups, half_duplex
from collrepro.analysis.cli import Parser
from collrepro.analysis.verdicts.compare import launch_medians
from collrepro.analysis.loading.loader import load
from collrepro.analysis.loading.schema import InputError

NATIVE = "native"
PROG = "colltune"


def call_form(row):
    """The point's call form (the sweep key call); blocking for rows without one."""
    call = row.get("call")
    return call if isinstance(call, str) and call else "blocking"


def _groups(row):
    """[(size, largest block)] of the row's groups ([] for a family without groups)."""
    return [(int(g["size"]), int(g["block"])) for g in groups(row)]


# The situation keys that are not a column's own value (contract: each family's situation).
SITUATION_KEYS = {
    "call": call_form,
    "groups": lambda row: ":".join(str(s) for s in sorted((s for s, _ in _groups(row)), reverse=True)),
    "duplex": lambda row: "half" if half_duplex(row) else "full",
}


def situation(row):
    """The rule path of a point, without its size: a tuple of condition keys (the family's
    situation keys in order); None for a family colltune writes no rules for."""
    keys = C.family_entry(row["family"])["situation"]
    if not keys:
        return None
    return tuple(f"{key}={SITUATION_KEYS[key](row) if key in SITUATION_KEYS else row[key]}" for key in keys)


def senders(row):
    """The sending group's size of a half-duplex point of groups (the one group whose block is
    not 0: inter-group ka > 0 and kb = 0: p; the other way: q), None otherwise."""
    sending = [size for size, block in _groups(row) if block > 0]
    return sending[0] if len(sending) == 1 and len(_groups(row)) > 1 else None


def msg_size(row):
    """The block of one process: the largest of the family's message_bytes columns."""
    return max(int(row[c]) for c in C.family_entry(row["family"])["message_bytes"])


def _reference(medians, kinds):
    """The fastest native call of a point (by median of its launch medians), or None."""
    natives = [a for a in medians if kinds.get(a) == "native"]
    return min(natives, key=lambda a: np.median(medians[a])) if natives else None


def measured(medians, kinds, threshold, need):
    """[(algorithm, stats.measure row)]: every algorithm of a point against its fastest native
    call (none without a native call)."""
    reference = _reference(medians, kinds)
    if reference is None:
        return []
    return [(a, stats.measure(medians[reference], values, need, minimum=threshold))
            for a, values in medians.items() if kinds.get(a) != "native"]


def family_verdicts(rows, alpha):
    """The verdicts of one family of measured comparisons (Benjamini-Hochberg over all of them)."""
    return [d["verdict"] for d in stats.decide_family(rows, [(True, "")] * len(rows), alpha)]


def pick(medians, kinds, compared, labels):
    """The fastest algorithm whose verdict against the native call is an improvement, or NATIVE."""
    reference = _reference(medians, kinds)
    faster = [a for (a, _), label in zip(compared, labels)
              if label == V.IMPROVEMENT and np.median(medians[a]) < np.median(medians[reference])]
    return min(faster, key=lambda a: np.median(medians[a])) if faster else NATIVE


def choose(medians, kinds, alpha, threshold, need):
    """The algorithm significantly fastest against the best native call, or NATIVE; the point is
    its own family here (`decisions` corrects over the whole sweep).

    medians: {algorithm: per-launch medians} of one point."""
    compared = measured(medians, kinds, threshold, need)
    return pick(medians, kinds, compared, family_verdicts([m for _, m in compared], alpha))


def launches_compared(medians, kinds):
    """The fewest launches among what a point compares (its fastest native call and every
    algorithm), or None when it compares nothing (no native call, or nothing beside it)."""
    natives = [a for a in medians if kinds.get(a) == "native"]
    others = [a for a in medians if kinds.get(a) != "native"]
    if not natives or not others:
        return None
    reference = min(natives, key=lambda a: np.median(medians[a]))
    return min(len(medians[a]) for a in [reference] + others)


def decisions(per, kinds, alpha, threshold, need, launches=None):
    """{situation: {size: algorithm}}; conflicting points of one situation and size -> NATIVE.
    launches: a list that receives the launch count of every point that compares algorithms."""
    per = per.copy()
    per["situation"] = [situation(r) for _, r in per.iterrows()]
    per = per[per["situation"].notna()]
    per["size"] = [msg_size(r) for _, r in per.iterrows()]
    point_columns = [c for c in per.columns
                     if c not in ("algorithm", "topology", "source", "launch", "median", "point", "mpi_impl",
                                  "mpi_version")]
    points = []
    for _, point in per.groupby(point_columns, dropna=False, sort=False):
        medians = {a: g["median"].to_numpy() for a, g in point.groupby("algorithm")}
        points.append((point.iloc[0], medians, measured(medians, kinds, threshold, need)))
        n = launches_compared(medians, kinds)
        if launches is not None and n is not None:
            launches.append(n)
    # One family: every comparison of the sweep, the rules file's decisions together.
    labels = iter(family_verdicts([m for *_, compared in points for _, m in compared], alpha))
    found = defaultdict(lambda: defaultdict(lambda: defaultdict(set)))  # situation, senders, size
    for first, medians, compared in points:
        chosen = pick(medians, kinds, compared, [next(labels) for _ in compared])
        found[first["situation"]][senders(first)][int(first["size"])].add(chosen)
    decided = {}
    for s, by_senders in found.items():
        split = _by_sending_group(by_senders)
        if split:
            for n, sizes in split.items():
                decided[s + (f"senders={n}",)] = sizes
            continue
        merged = defaultdict(set)
        for sizes in by_senders.values():
            for size, c in sizes.items():
                merged[size] |= c
        decided[s] = _resolve(merged)
    return decided


def _resolve(sizes):
    """{size: the one algorithm chosen there, NATIVE where points disagree}."""
    return {size: (next(iter(c)) if len(c) == 1 else NATIVE) for size, c in sizes.items()}


def _by_sending_group(by_senders):
    """{senders: {size: algorithm}} when a half-duplex situation was measured in both
    orientations (two different sending-group sizes: p > q sending and p < q sending) and their
    choices differ at a size both measured; None otherwise (the rules stay as without senders=)."""
    if len(by_senders) != 2 or None in by_senders:
        return None
    (n1, s1), (n2, s2) = sorted(by_senders.items())
    first, second = _resolve(s1), _resolve(s2)
    if not any(first[size] != second[size] for size in first.keys() & second.keys()):
        return None
    return {n1: first, n2: second}


def size_rules(by_size):
    """{msg_size<=S: leaf} in increasing S with equal neighbours merged, then any: native."""
    rules, sizes = {}, sorted(by_size)
    for i, size in enumerate(sizes):
        if i + 1 < len(sizes) and by_size[sizes[i + 1]] == by_size[size]:
            continue
        rules[f"msg_size<={size}"] = {f"algorithm={by_size[size]}": {}}
    rules["any"] = {f"algorithm={NATIVE}": {}}
    return rules


def rules_tree(decided):
    tree = {}
    for path, by_size in sorted(decided.items()):
        node = tree
        for key in path:
            node = node.setdefault(key, {})
        node.update(size_rules(by_size))
    return tree


def tune(directories, alpha=0.05, threshold=0.05):
    """(rules tree, the launch count of every point that compares algorithms)."""
    rs = load(directories)
    need = stats.min_launches(alpha)
    launches = []
    tree = rules_tree(decisions(launch_medians(rs), algorithm_kinds(rs.metas), alpha, threshold, need,
                                launches))
    return tree, launches


def _launches_text(n):
    return f"{n} launch" + ("" if n == 1 else "es")


def _main(argv):
    ap = Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("directories", nargs="+", help="collbench result directories (one MPI library)")
    ap.add_argument("-o", "--output", required=True, help="the rules file to write (COLLREPRO_PMPI_RULES)")
    ap.add_argument("--alpha", type=float, default=0.05,
                    help="false-discovery rate of the Benjamini-Hochberg correction (default 0.05)")
    ap.add_argument("--threshold", type=float, default=0.05,
                    help="least relative speed-up that counts, raised to a point's noise floor "
                         "(default 0.05: 5%%)")
    args = ap.parse_args(argv)
    if not 0 < args.alpha < 1:
        ap.error(f"--alpha must be between 0 and 1 (got {args.alpha})")
    if args.threshold < 0:
        ap.error(f"--threshold must be >= 0 (got {args.threshold})")
    if os.path.isdir(args.output):
        raise InputError(f"{args.output}: is a directory; give the rules file's name")
    tree, launches = tune(args.directories, args.alpha, args.threshold)
    where = ", ".join(args.directories)
    if not tree:
        raise InputError(f"{where}: no inter-group or isomorphic points in the results; nothing to tune")
    if not launches:
        raise InputError(f"{where}: no point measures the native call beside an algorithm; nothing to "
                         "tune: sweep `native` together with the algorithms")
    need = stats.min_launches(args.alpha)
    thin = [n for n in launches if n < need]
    if len(thin) == len(launches):
        found = max(thin)
        counted = _launches_text(found) if min(thin) == found else f"at most {_launches_text(found)}"
        raise InputError(f"{where}: {counted} per algorithm, the test needs {need} at alpha "
                         f"{args.alpha}: no verdict, no rules written (they would all be native); re-run "
                         f"the sweep with --launches {need} or more (bench/collrun)")
    try:
        safeio.write_text(args.output, json.dumps(tree, indent=2) + "\n")
    except OSError as err:
        raise safeio.EnvironmentProblem(safeio.os_error_line(err, "write", args.output)) from None
    chosen = sum(1 for leaf in _leaves(tree) if leaf != NATIVE)
    print(f"colltune: wrote {args.output}: {chosen} size ranges served by an algorithm, the rest native")
    if thin:
        print(f"colltune: {len(thin)} of {len(launches)} points have fewer than {need} launches (the fewest: "
              f"{min(thin)}): native there without a verdict; re-run them with --launches {need} or more "
              f"(exit {safeio.EXIT_INCOMPLETE})", file=sys.stderr)
        return safeio.EXIT_INCOMPLETE
    return 0


def main(argv=None):
    """colltune's exit code; every failure is one line (safeio.run_cli)."""
    return safeio.run_cli(PROG, _main, argv)


def _leaves(node):
    for key, child in node.items():
        if key.startswith("algorithm="):
            yield key.split("=", 1)[1]
        else:
            yield from _leaves(child)

