"""colltune's decisions (python/collrepro/analysis/tune.py) on synthetic per-launch medians."""

import pandas as pd

from collrepro.analysis import tune
from collrepro.analysis.verdicts import stats

KINDS = {"native": "native", "mpi-neighbor": "native", "fast": "proposed", "faster": "proposed", "slow": "baseline"}
NEED = stats.min_launches(0.05)


def test_significantly_faster_algorithm_is_chosen():
    medians = {"native": [10, 11, 10.5, 10.2, 10.8], "fast": [5, 5.2, 5.1, 4.9, 5.3], "slow": [20, 21, 19, 22, 20]}
    assert tune.choose(medians, KINDS, 0.05, 0.05, NEED) == "fast"


def test_fastest_of_the_qualifying_algorithms_wins():
    medians = {"native": [10, 11, 10.5, 10.2], "fast": [5, 5.2, 5.1, 4.9], "faster": [2, 2.1, 2.2, 1.9]}
    assert tune.choose(medians, KINDS, 0.05, 0.05, NEED) == "faster"


def test_too_few_launches_or_no_native_keep_native():
    assert tune.choose({"native": [10, 11, 10.5], "fast": [1, 1.1, 1.2]}, KINDS, 0.05, 0.05, NEED) == "native"
    assert tune.choose({"fast": [1, 1.1, 1.2, 1.3], "slow": [9, 9, 9, 9]}, KINDS, 0.05, 0.05, NEED) == "native"


def test_within_threshold_is_not_faster():
    medians = {"native": [10.0, 10.1, 10.2, 10.3], "fast": [9.8, 9.85, 9.9, 9.95]}
    assert tune.choose(medians, KINDS, 0.05, 0.05, NEED) == "native"


def test_size_rules_merge_runs_and_end_native():
    rules = tune.size_rules({1024: "fast", 4096: "fast", 65536: "native", 1 << 20: "fast"})
    assert list(rules) == ["msg_size<=4096", "msg_size<=65536", "msg_size<=1048576", "any"]
    assert rules["msg_size<=4096"] == {"algorithm=fast": {}}
    assert rules["any"] == {"algorithm=native": {}}


def _rows(situation_extra, algorithm, medians, size=1024):
    base = {"family": "inter-group", "collective": "allgather", "p": 5, "q": 3, "ka": size, "kb": size,
            "nprocs": 8, "topology": "fully-connected", "mpi_impl": "openmpi", "mpi_version": "4.1.4",
            "point": 0, "source": "d", **situation_extra}
    return [{**base, "algorithm": algorithm, "launch": i, "median": m} for i, m in enumerate(medians)]


def test_points_the_library_cannot_tell_apart_must_agree():
    rows = (_rows({"placement": "block"}, "native", [10, 10, 10, 10]) +
            _rows({"placement": "block"}, "fast", [1, 1.1, 1.2, 1.3]) +
            _rows({"placement": "interleaved"}, "native", [10, 10, 10, 10]) +
            _rows({"placement": "interleaved"}, "slow", [1, 1.1, 1.2, 1.3]))
    decided = tune.decisions(pd.DataFrame(rows), KINDS, 0.05, 0.05, NEED)
    assert decided == {("collective=allgather", "call=blocking", "groups=5:3", "duplex=full"): {1024: "native"}}
    agreeing = [r for r in rows if r["placement"] == "block"]
    decided = tune.decisions(pd.DataFrame(agreeing), KINDS, 0.05, 0.05, NEED)
    assert decided == {("collective=allgather", "call=blocking", "groups=5:3", "duplex=full"): {1024: "fast"}}


def test_the_interval_must_lie_beyond_the_threshold():
    # 10 % faster at the median and 4 of 5 launches below every native one (the Mann-Whitney
    # screen used before chose it, p = 0.016), but the interval of the ratio reaches 0.99.
    medians = {"native": [10, 10.1, 10.2, 10.3, 10.4], "fast": [9.0, 9.1, 9.2, 9.9, 10.05]}
    assert tune.choose(medians, KINDS, 0.05, 0.05, NEED) == "native"


NATIVE_5 = [10, 10.2, 10.4, 10.6, 10.8]
MARGINAL = [7.5, 8.0, 8.5, 9.0, 9.5]    # trimmed-t p = 0.04, interval below the threshold


def test_benjamini_hochberg_over_the_whole_sweep():
    assert tune.choose({"native": NATIVE_5, "fast": MARGINAL}, KINDS, 0.05, 0.05, NEED) == "fast"
    rows = _rows({}, "native", NATIVE_5) + _rows({}, "fast", MARGINAL)
    decided = tune.decisions(pd.DataFrame(rows), KINDS, 0.05, 0.05, NEED)
    assert decided == {("collective=allgather", "call=blocking", "groups=5:3", "duplex=full"): {1024: "fast"}}
    # Nine more sizes where `fast` is no faster: q = 0.006 x 10 > 0.05, native everywhere.
    for size in range(2048, 2048 * 10, 2048):
        rows += _rows({}, "native", NATIVE_5, size) + _rows({}, "fast", [10.1, 10.3, 10.5, 10.7, 10.9], size)
    decided = tune.decisions(pd.DataFrame(rows), KINDS, 0.05, 0.05, NEED)
    assert set(decided[("collective=allgather", "call=blocking", "groups=5:3", "duplex=full")].values()) == {"native"}


def test_each_call_form_is_tuned_apart():
    # Persistent: `fast` beats the library's persistent call; blocking: nothing beats the native
    # call. One sweep, two rule subtrees under call=, each against its own form's native call.
    blocking, persistent = {"call": "blocking"}, {"call": "persistent"}
    rows = (_rows(blocking, "native", NATIVE_5) + _rows(blocking, "fast", [10.1, 10.3, 10.5, 10.7, 10.9]) +
            _rows(persistent, "native", NATIVE_5) + _rows(persistent, "fast", [2, 2.1, 2.2, 2.3, 2.4]))
    decided = tune.decisions(pd.DataFrame(rows), KINDS, 0.05, 0.05, NEED)
    assert decided == {("collective=allgather", "call=blocking", "groups=5:3", "duplex=full"): {1024: "native"},
                       ("collective=allgather", "call=persistent", "groups=5:3", "duplex=full"): {1024: "fast"}}
    tree = tune.rules_tree(decided)
    assert list(tree["collective=allgather"]) == ["call=blocking", "call=persistent"]
    assert tree["collective=allgather"]["call=persistent"]["groups=5:3"]["duplex=full"]["msg_size<=1024"] == {
        "algorithm=fast": {}}
