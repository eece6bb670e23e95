"""The algorithm catalogue: one source (collbench --list-algorithms --format json), everything
else generated from it or checked against it.

- python/collrepro/catalogue.json (the committed snapshot the analysis reads without a build)
  equals what `collrepro-py catalogue write` makes from a collbench built from the
  current sources (skipped without one, the lookup of test_references.py);
- docs/algorithms/README.md's table is the one generated from the snapshot;
- docs/algorithms/README.md's family tables list exactly the snapshot's (collective, name, kind);
- the analysis defaults (aggregate.DEFAULT_KINDS, plotting's colours) are the snapshot's, one
  distinct colour per name; the paper figure groups (figures.py, what each paper plotted) name
  catalogue algorithms of the right collective, topology and kind;
- the generator keeps colours when an algorithm is added, and `check` exits 1 on a stale table;
- the guideline pairs (mock_up_of): every mock-up judges natives of its own collective, every
  guideline has a mock-up on each collective it covers, and an algorithm whose header calls it a
  mock-up is one (and the reverse); the analysis's rules are the snapshot's.

Run: /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python/test_catalogue.py (about 2 s)
"""

import pytest

from collrepro import catalogue
from collrepro.analysis.verdicts import guidelines
from collrepro.analysis.figures import plotting
from collrepro.analysis.figures import figures
from collrepro.analysis.frames.aggregate import DEFAULT_KINDS
from test_references import collbench, documented_algorithms

SNAPSHOT = catalogue.load()


def test_snapshot_is_the_registry_of_a_fresh_collbench():
    fresh = catalogue.serialize(catalogue.build(catalogue.listing(collbench()), SNAPSHOT))
    assert fresh == catalogue.serialize(SNAPSHOT), (
        "python/collrepro/catalogue.json differs from collbench --list-algorithms --format json: "
        "run collrepro-py catalogue write")


def test_docs_index_table_is_generated_from_the_snapshot():
    text = catalogue.DOCS_INDEX.read_text(encoding="utf-8")
    assert catalogue.docs_index(SNAPSHOT, text) == text, (
        "docs/algorithms/README.md's table is stale: run collrepro-py catalogue write")
    # Every page the table links exists (a page is part of adding an algorithm).
    missing = sorted({e["doc"] for e in SNAPSHOT["algorithms"]} - {
        p.relative_to(catalogue.ROOT).as_posix() for p in catalogue.DOCS_INDEX.parent.glob("*.md")})
    assert not missing, f"catalogue algorithms without a documentation page: {missing}"


def test_family_tables_match_the_snapshot():
    listed = documented_algorithms()
    catalogued = {(e["collective"], e["name"], e["kind"]) for e in SNAPSHOT["algorithms"]}
    missing, extra = sorted(catalogued - listed), sorted(listed - catalogued)
    assert not missing and not extra, (
        "docs/algorithms/README.md's family tables and python/collrepro/catalogue.json differ:\n"
        + "".join(f"  catalogued but not in the tables: {c} {n} ({k})\n" for c, n, k in missing)
        + "".join(f"  in the tables but not catalogued: {c} {n} ({k})\n" for c, n, k in extra))


def test_analysis_defaults_are_the_snapshots():
    names = {e["name"] for e in SNAPSHOT["algorithms"]}
    assert DEFAULT_KINDS == catalogue.kinds(SNAPSHOT) and set(DEFAULT_KINDS) == names
    order = [catalogue.KIND_ORDER.index(k) for k in DEFAULT_KINDS.values()]
    assert order == sorted(order), "DEFAULT_KINDS: proposed, then baselines, then natives"
    for e in SNAPSHOT["algorithms"]:
        assert DEFAULT_KINDS[e["name"]] == e["kind"], f"{e['name']} has several kinds"
    assert plotting._FIXED == SNAPSHOT["colours"] and set(plotting._FIXED) == names
    colours = [c.lower() for c in plotting._FIXED.values()]
    assert len(set(colours)) == len(colours), "two algorithms share a colour"


def test_paper_figure_groups_name_catalogue_algorithms():
    by = {}
    for e in SNAPSHOT["algorithms"]:
        by.setdefault((e["collective"], e["name"]), e)
    bad = [f"SEED000[{t}]: {n}" for t, ns in figures.SEED000.items() for n in ns
           if by.get(("allgather", n), {}).get("topology") != t]
    bad += [f"SEED001[{c}]: {n}" for c, ns in figures.SEED001.items() for n in ns if (c, n) not in by]
    bad += [f"SEED000_PAIRS[{t}]: {pair}" for t, pair in figures.SEED000_PAIRS.items()
            if [DEFAULT_KINDS.get(n) for n in pair] != ["baseline", "proposed"] or not set(pair) <= set(figures.SEED000[t])]
    bad += [f"SEED001_PROPOSED[{c}]: {n}" for c, n in figures.SEED001_PROPOSED.items()
            if by.get((c, n), {}).get("kind") != "proposed"]
    collectives = {e["collective"] for e in SNAPSHOT["algorithms"]}
    bad += [f"SEED004 {stem}: {c}" for stem, (cs, _) in figures.SEED004.items() for c in cs if c not in collectives]
    assert not bad, "figure groups that do not match the catalogue:\n" + "\n".join(bad)


def test_generator_keeps_colours_and_check_flags_a_stale_table(tmp_path):
    entries = SNAPSHOT["algorithms"]
    new = dict(entries[-1], name="a-new-algorithm", doc="/".join(["docs", "algorithms", "a-new-algorithm.md"]))
    grown = catalogue.build(entries + [new], SNAPSHOT)
    assert {n: grown["colours"][n] for n in SNAPSHOT["colours"]} == SNAPSHOT["colours"]
    assert grown["colours"]["a-new-algorithm"] not in SNAPSHOT["colours"].values()
    text = catalogue.DOCS_INDEX.read_text(encoding="utf-8")
    assert "a-new-algorithm" in catalogue.docs_index(grown, text)
    assert catalogue.docs_index(grown, text) != text
    with pytest.raises(catalogue.safeio.UserError, match="no catalogue table markers"):
        catalogue.docs_index(SNAPSHOT, "# Algorithms\n")


def test_every_mock_up_judges_natives_of_its_collective():
    by = {(e["collective"], e["name"]): e for e in SNAPSHOT["algorithms"]}
    mock_ups = [e for e in SNAPSHOT["algorithms"] if e["mock_up_of"]]
    assert mock_ups, "the catalogue names no guideline mock-up"
    bad = []
    for e in mock_ups:
        m, where = e["mock_up_of"], f"{e['collective']} {e['name']}"
        if e["kind"] == "native" or not m["guideline"].strip() or not m["natives"]:
            bad.append(f"{where}: a mock-up is not native and names a guideline and its natives: {m}")
        bad += [f"{where}: judges {n}, not a native of {e['collective']}" for n in m["natives"]
                if by.get((e["collective"], n), {}).get("kind") != "native"]
    assert not bad, "guideline mock-ups that do not match the catalogue:\n" + "\n".join(bad)


def test_every_guideline_has_a_mock_up_on_each_of_its_collectives():
    rules = guidelines.rules(SNAPSHOT)
    assert rules == guidelines.RULES, "the analysis's guideline rules are not the snapshot's"
    assert len({r.guideline for r in rules}) == len(rules), "one guideline, two mock-ups: give each its own"
    for r in rules:
        mock_ups = {e["collective"] for e in SNAPSHOT["algorithms"]
                    if e["name"] == r.mockup and (e["mock_up_of"] or {}).get("guideline") == r.guideline}
        assert mock_ups == set(r.collectives) and len(r.collectives) == len(mock_ups), r
        assert all(e["mock_up_of"] for e in SNAPSHOT["algorithms"] if e["name"] == r.mockup), (
            f"{r.mockup} mocks up {r.guideline!r} for some of its collectives only")


def header(path):
    """The leading comment block of a source file."""
    lines = (catalogue.ROOT / path).read_text(encoding="utf-8").splitlines()
    return "\n".join(line for line in lines[:next((i for i, x in enumerate(lines) if not x.startswith("//")),
                                                    len(lines))])


def test_an_algorithm_calls_itself_a_mock_up_exactly_when_it_is_one():
    claims = {}
    for e in SNAPSHOT["algorithms"]:
        claims.setdefault((e["name"], e["file"]), set()).add(bool(e["mock_up_of"]))
    wrong = [f"{f}: {'says' if 'mock-up' in header(f) else 'does not say'} it is a guideline mock-up; "
             f"its registration {'names' if is_ else 'names no'} guideline (mock_up_of)"
             for (name, f), flags in claims.items() for is_ in flags if ("mock-up" in header(f)) != is_]
    assert not wrong, "\n".join(wrong)
