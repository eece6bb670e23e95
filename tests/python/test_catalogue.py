"""The analysis tools' hand-kept algorithm catalogue agrees with the registry.

Until the catalogue is generated from the registry, ``aggregate.DEFAULT_KINDS`` (the kind of an
algorithm when the meta files do not say) and ``plotting._FIXED`` (one colour per algorithm)
must name every registered algorithm, with the kind ``collbench --list-algorithms`` reports,
and no two algorithms may share a colour. The registry comes from a collbench built from the
current sources (the same lookup as test_references.py; skipped without one).

Run: /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python/test_catalogue.py
"""

from collrepro.analysis import plotting
from collrepro.analysis.aggregate import DEFAULT_KINDS
from test_references import registry


def registered_kinds():
    """{name: kind} of every registered algorithm (a name keeps one kind across collectives)."""
    kinds = {}
    for row in registry():
        kinds.setdefault(row["algorithm"], set()).add(row["kind"])
    assert all(len(k) == 1 for k in kinds.values()), f"a name registered with several kinds: {kinds}"
    return {name: k.pop() for name, k in kinds.items()}


def test_default_kinds_name_every_registered_algorithm_with_its_kind():
    registered = registered_kinds()
    missing = sorted(set(registered) - set(DEFAULT_KINDS))
    wrong = sorted(f"{n}: {DEFAULT_KINDS[n]} (registry: {k})" for n, k in registered.items()
                   if n in DEFAULT_KINDS and DEFAULT_KINDS[n] != k)
    stale = sorted(set(DEFAULT_KINDS) - set(registered))
    assert not (missing or wrong or stale), (
        f"python/collrepro/analysis/aggregate.py DEFAULT_KINDS: missing {missing}, wrong kind {wrong}, "
        f"not registered {stale}")


def test_every_registered_algorithm_has_its_own_colour():
    registered = registered_kinds()
    missing = sorted(set(registered) - set(plotting._FIXED))
    assert not missing, f"python/collrepro/analysis/plotting.py _FIXED has no colour for {missing}"
    colours = [c.lower() for c in plotting._FIXED.values()]
    shared = sorted({c for c in colours if colours.count(c) > 1})
    assert not shared, f"python/collrepro/analysis/plotting.py _FIXED: colours used twice: {shared}"
