"""Per-phase timing in the analysis: the phases file read against its raw file, the table, the
report's section and its stacked bars."""

import csv

import pandas as pd
import pytest

import synthetic as S
from collrepro import contract as C
from collrepro.analysis.loading import loader
from collrepro.analysis.figures import phases as P
from collrepro.analysis import report

# Two algorithms, two and three phases, each phase a fixed share of the repetition's time.
SPLITS = {"halfduplex-fc": [("pair-send", 0.25), ("allgather-G", 0.75)],
          "root-gathering": [("gather", 0.5), ("root-exchange", 0.3), ("bcast", 0.2)]}


def _time(pt, launch, rep):
    base = 1e-3 if pt["algorithm"] == "halfduplex-fc" else 2e-3
    return base * (1 + 0.01 * rep + 0.1 * launch) * (pt["msg_bytes"] / 65536)


def _write_phases(directory, scale=1.0):
    """phases-L*.csv beside the raw files, split by SPLITS (scale != 1 damages them)."""
    for raw_path in sorted(directory.glob("raw-L*.csv")):
        raw = pd.read_csv(raw_path)
        rows = []
        for r in raw.itertuples():
            end = 0.0
            for index, (name, share) in enumerate(SPLITS[r.algorithm]):
                phase = r.time_s * share * scale
                end += phase
                rows.append([r.experiment, r.launch, r.point, r.algorithm, r.msg_bytes, r.rep, index, name,
                             repr(phase), repr(end)])
        with open(directory / raw_path.name.replace("raw-", "phases-"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(C.PHASES_COLUMNS)
            w.writerows(rows)


@pytest.fixture()
def result_dir(tmp_path):
    pts = [S.point(a, **S.inter_shape("allgather", 6, 2, size, ratio=(1, 0)))
           for a in SPLITS for size in (65536, 262144)]
    d = S.write_result_set(tmp_path / "set", pts, launches=3, reps=10, time_fn=_time)
    _write_phases(d)
    return d


def test_table_medians_and_shares(result_dir):
    rows = P.load(loader.load([result_dir]))
    assert len(rows) == 3 * 10 * 2 * (2 + 3)
    n, worst = P.sum_check(rows)
    assert n == 3 * 10 * 4 and worst < 1e-15
    tab = P.table(rows)
    fc = tab[(tab["algorithm"] == "halfduplex-fc") & (tab["msg_bytes"] == 65536)]
    assert fc["phase"].tolist() == ["pair-send", "allgather-G"]
    assert fc["share"].tolist() == pytest.approx([0.25, 0.75])
    # Launch medians 1.045, 1.145, 1.245 ms (x share): the median over launches is launch 1's.
    assert fc["median_s"].tolist() == pytest.approx([0.25 * 1.145e-3, 0.75 * 1.145e-3])
    assert (tab["launches"] == 3).all()


def test_report_section_and_stacked_bars(result_dir, tmp_path):
    out = tmp_path / "report"
    report.run(loader.load([result_dir]), out)
    text = (out / "report.md").read_text()
    assert "## Phases" in text and "add up to time_s" in text and "WARNING" not in text
    assert "pair-send" in text and "root-exchange" in text
    assert (out / "phases.csv").is_file()
    pngs = sorted(p.name for p in (out / "figures").glob("phases-*.png"))
    assert len(pngs) == 1  # one shape: 6:2, kA:kB=1:0


def test_stacked_bars_sum_to_totals(result_dir):
    tab = P.table(P.load(loader.load([result_dir])))
    (fo,) = P.figure(tab, [], loader.load([result_dir]).raw)
    assert fo.panels == 2  # one panel per message size
    for ax, size in zip(fo.fig.axes, (65536, 262144)):
        labels = [t.get_text() for t in ax.get_xticklabels()]
        assert labels == sorted(SPLITS)
        tops = {}
        for patch in ax.patches:
            x = round(patch.get_x() + patch.get_width() / 2)
            tops[x] = max(tops.get(x, 0.0), patch.get_y() + patch.get_height())
        segments = {}
        for patch in ax.patches:
            x = round(patch.get_x() + patch.get_width() / 2)
            segments[x] = segments.get(x, 0) + (patch.get_height() > 0)
        unit = ax.get_ylabel().split("(")[-1].rstrip(")")
        scale = {"s": 1.0, "ms": 1e3, "us": 1e6}[unit]
        for i, algo in enumerate(labels):
            want = tab[(tab["algorithm"] == algo) & (tab["msg_bytes"] == size)]["median_s"].sum() * scale
            assert tops[i] == pytest.approx(want, rel=1e-9)  # the bars stack to the total
            assert segments[i] == len(SPLITS[algo])


def test_damaged_phases_are_flagged(result_dir, tmp_path):
    _write_phases(result_dir, scale=1.5)
    out = tmp_path / "report"
    report.run(loader.load([result_dir]), out)
    assert "WARNING: in 120 repetitions the phases differ from time_s" in (out / "report.md").read_text()


def test_foreign_phases_file_is_refused(result_dir):
    path = result_dir / "phases-L0.csv"
    rows = path.read_text().splitlines()
    rows[1] = rows[1].replace(",0,0,", ",999,0,", 1)  # a point no raw row has
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(Exception, match="name a repetition that no raw row has"):
        P.load(loader.load([result_dir]))


def test_no_phases_no_section(tmp_path):
    pts = [S.point("halfduplex-fc", **S.inter_shape("allgather", 6, 2, 65536, ratio=(1, 0)))]
    d = S.write_result_set(tmp_path / "plain", pts, launches=1, reps=5)
    assert P.load(loader.load([d])).empty
    out = tmp_path / "report"
    report.run(loader.load([d]), out)
    assert "## Phases" not in (out / "report.md").read_text()
