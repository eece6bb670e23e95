"""The report's arrival-pattern table (python/collrepro/analysis/arrival.py) on synthetic data
whose times from the first and from the last arrival are known: medians, the fastest algorithm
per pattern, the note when the ranking changes, and no section when every rank started at once."""

import csv

import pytest

import synthetic as S
from collrepro.analysis import arrival, cli
from collrepro.analysis.loading import loader

PATTERNS = ["none", "one-late", "linear", "random"]
SIZES = [1024, 65536]
DELAY = 200e-6
# (algorithm, pattern, size) -> (median from the first arrival, from the last). Under none both
# are the same; skewed, the first arrival is DELAY before the last. halfduplex-fc is fastest
# except under linear at 64 KiB, where root gathering tolerates the skew better.
TRUTH = {}
for m in SIZES:
    for pattern in PATTERNS:
        for alg, base in (("halfduplex-fc", 10e-6 * m / 1024), ("root-gathering", 20e-6 * m / 1024)):
            TRUTH[alg, pattern, m] = (base, base) if pattern == "none" else (DELAY + base, base)
TRUTH["halfduplex-fc", "linear", 65536] = (DELAY + 1.5e-3, 1.5e-3)
TRUTH["root-gathering", "linear", 65536] = (DELAY + 1.0e-3, 1.0e-3)


def _points():
    return [S.point(alg, p=2, q=2, ka=m, kb=0, msg_bytes=m, arrival=pattern,
                    arrival_max_s=0.0 if pattern == "none" else DELAY)
            for pattern in PATTERNS for m in SIZES for alg in ("halfduplex-fc", "root-gathering")]


def _wobble(rep):
    return 1.0 + 0.001 * ((rep * 3) % 5 - 2)     # median 1: the medians stay exact


def _first(pt, launch, rep):
    return TRUTH[pt["algorithm"], pt["arrival"], pt["msg_bytes"]][0] * _wobble(rep)


def _last(pt, launch, rep):
    return TRUTH[pt["algorithm"], pt["arrival"], pt["msg_bytes"]][1] * _wobble(rep)


@pytest.fixture(scope="module")
def skewed(tmp_path_factory):
    return S.write_result_set(tmp_path_factory.mktemp("arrival") / "set", _points(), launches=3, reps=10,
                              time_fn=_first, from_last_fn=_last, nprocs=4, ppn=4)


def test_points_recover_both_medians_and_the_fastest(skewed):
    out = arrival.points(loader.load([skewed]))
    assert len(out) == len(_points())
    for row in out.itertuples():
        first, last = TRUTH[row.algorithm, row.arrival, row.msg_bytes]
        assert row.from_first == pytest.approx(first, rel=1e-12)
        assert row.from_last == pytest.approx(last, rel=1e-12)
        assert row.n_launches == 3
    fastest = out[out["fastest"]].set_index(["arrival", "msg_bytes"])["algorithm"]
    assert fastest["none", 1024] == "halfduplex-fc"
    assert fastest["linear", 65536] == "root-gathering"
    assert fastest["random", 65536] == "halfduplex-fc"


def test_report_section_tables_and_csv(skewed, tmp_path):
    out = tmp_path / "report"
    assert cli.main(["report", str(skewed), "-o", str(out)]) == 0
    text = (out / "report.md").read_text()
    section = text[text.index("## Arrival patterns"):]
    assert "| shape | size | algorithm | none | one-late (200 µs) | linear (200 µs) | random (200 µs) |" in section
    # halfduplex-fc at 1 KiB under one-late: 210 us from the first arrival, 10 us from the last, fastest
    assert "| 2:2, kA:kB=1:0 | 1 KiB | halfduplex-fc | 10 µs / 10 µs * | 210 µs / 10 µs * |" in section
    assert ("| 2:2, kA:kB=1:0 | 64 KiB | halfduplex-fc | halfduplex-fc | root-gathering | halfduplex-fc |"
            in section)
    assert ("The fastest algorithm changes with the arrival pattern at: 2:2, kA:kB=1:0 at 64 KiB "
            "(linear (200 µs): root-gathering; none: halfduplex-fc).") in section
    rows = list(csv.DictReader(open(out / "arrival.csv")))
    assert len(rows) == len(_points())
    row = next(r for r in rows if r["algorithm"] == "root-gathering" and r["arrival"] == "linear"
               and r["msg_bytes"] == "65536")
    assert float(row["median_from_first"]) == pytest.approx(1.2e-3) and row["fastest"] == "True"
    assert float(row["median_from_last"]) == pytest.approx(1.0e-3)


def test_summary_only_launches_use_median_from_last(skewed, tmp_path):
    d = tmp_path / "set"
    S.write_result_set(d, _points(), launches=2, reps=10, time_fn=_first, from_last_fn=_last, nprocs=4, ppn=4)
    (d / "raw-L1.csv").unlink()
    out = arrival.points(loader.load([d])).set_index(["algorithm", "arrival", "msg_bytes"])
    assert out.loc[("root-gathering", "linear", 65536), "n_launches"] == 2
    assert out.loc[("root-gathering", "linear", 65536), "from_last"] == pytest.approx(1.0e-3, rel=1e-12)


def test_patterns_without_valid_repetitions_are_named(tmp_path):
    d = S.write_result_set(tmp_path / "set", _points(), launches=2, reps=6, time_fn=_first, from_last_fn=_last,
                           valid_fn=lambda pt, launch, rep: 0 if pt["arrival"] in ("none", "one-late") else 1)
    blocks = arrival.blocks(loader.load([d]), tmp_path)
    text = " ".join(str(b[-1]) for b in blocks if b[0] == "p")
    assert "No valid repetition under none, one-late (200 µs)" in text
    assert "cannot be compared with simultaneous arrival" in text
    times = next(b[1] for b in blocks if b[0] == "table")
    assert set(times["none"]) == {"- / -"}


def test_no_section_when_every_rank_started_at_once(tmp_path):
    d = S.write_result_set(tmp_path / "set", S.seed000_points(), launches=2, reps=4)
    rs = loader.load([d])
    assert not arrival.skewed(rs)
    assert arrival.blocks(rs, tmp_path) == []
    assert not (tmp_path / "arrival.csv").exists()
    out = tmp_path / "report"
    assert cli.main(["report", str(d), "-o", str(out)]) == 0
    assert "Arrival patterns" not in (out / "report.md").read_text()
