"""colltune and the sending group (issue #27): when one groups=P:Q was measured half duplex in both
orientations and they choose different algorithms, the rules split into senders=P and senders=Q;
one orientation, or two that agree, give the same rules as before senders= existed."""

import json

import synthetic as S
from collrepro.analysis import tune
from collrepro.analysis.verdicts import stats

NEED = stats.min_launches(0.05)
SIZES = (65536, 1 << 20)
HALF = ("collective=allgather", "call=blocking", "groups=12:4", "duplex=half")


def half_duplex_points(p, q, factors):
    """Group A (p processes) sends, B (q) receives: native and the algorithms of `factors`
    ({algorithm: beta bytes per byte}), at every size."""
    points = []
    for m in SIZES:
        shape = S.inter_shape("allgather", p, q, m, ratio=(1, 0))
        assert shape["ka"] == m and shape["kb"] == 0
        points += [S.point(a, cost_beta_bytes=f * m, **shape) for a, f in {"native": 8.0, **factors}.items()]
    return points


# On the 16-core node: minvol wins when the 12 send, halfduplex-fc when the 4 do.
LARGER_SENDS = {"halfduplex-fc-minvol": 1.0, "halfduplex-fc": 3.0}
SMALLER_SENDS = {"halfduplex-fc-minvol": 3.0, "halfduplex-fc": 1.0}


def tuned(tmp_path, points):
    d = S.write_result_set(tmp_path / "sweep", points, launches=NEED, reps=6, time_fn=S.slowdown({}))
    tree, launches = tune.tune([str(d)])
    assert launches and min(launches) == NEED
    return tree


def node(tree, path):
    for key in path:
        tree = tree[key]
    return tree


def sized(algorithm):
    return {f"msg_size<={SIZES[-1]}": {f"algorithm={algorithm}": {}}, "any": {"algorithm=native": {}}}


def test_both_orientations_that_differ_split_by_sending_group(tmp_path):
    tree = tuned(tmp_path, half_duplex_points(12, 4, LARGER_SENDS) + half_duplex_points(4, 12, SMALLER_SENDS))
    assert node(tree, HALF) == {"senders=12": sized("halfduplex-fc-minvol"), "senders=4": sized("halfduplex-fc")}


def test_b_sending_counts_as_its_own_group(tmp_path):
    # The 12-process group sends as B (p = 4, ka = 0): still senders=12.
    flipped = []
    for pt in half_duplex_points(12, 4, LARGER_SENDS):
        pt = dict(pt, p=4, q=12, ka=0, kb=pt["ka"], bytes_a=0, bytes_b=pt["bytes_a"])
        flipped.append(pt)
    tree = tuned(tmp_path, flipped + half_duplex_points(4, 12, SMALLER_SENDS))
    assert node(tree, HALF) == {"senders=12": sized("halfduplex-fc-minvol"), "senders=4": sized("halfduplex-fc")}


def test_one_orientation_writes_the_rules_as_before(tmp_path):
    tree = tuned(tmp_path, half_duplex_points(12, 4, LARGER_SENDS))
    assert tree == {"collective=allgather": {"call=blocking": {
        "groups=12:4": {"duplex=half": sized("halfduplex-fc-minvol")}}}}
    assert "senders=" not in json.dumps(tree)


def test_two_orientations_that_agree_are_not_split(tmp_path):
    tree = tuned(tmp_path / "a", half_duplex_points(12, 4, LARGER_SENDS) + half_duplex_points(4, 12, LARGER_SENDS))
    assert node(tree, HALF) == sized("halfduplex-fc-minvol")
    # Equal groups: both orientations are senders=4, one situation; disagreeing sizes -> native.
    tree = tuned(tmp_path / "b", half_duplex_points(4, 4, LARGER_SENDS) + [
        dict(pt, ka=0, kb=pt["ka"], bytes_a=0, bytes_b=pt["bytes_a"]) for pt in half_duplex_points(4, 4, SMALLER_SENDS)])
    assert node(tree, ("collective=allgather", "call=blocking", "groups=4:4", "duplex=half")) == {
        f"msg_size<={SIZES[-1]}": {"algorithm=native": {}}, "any": {"algorithm=native": {}}}


def test_colltune_writes_the_split_rules(tmp_path, capsys):
    d = S.write_result_set(tmp_path / "sweep", half_duplex_points(12, 4, LARGER_SENDS) +
                           half_duplex_points(4, 12, SMALLER_SENDS), launches=NEED, reps=6, time_fn=S.slowdown({}))
    rules = tmp_path / "rules.json"
    assert tune.main([str(d), "-o", str(rules)]) == 0
    assert "2 size ranges served by an algorithm" in capsys.readouterr().out
    written = json.loads(rules.read_text())
    assert list(node(written, HALF)) == ["senders=12", "senders=4"]
