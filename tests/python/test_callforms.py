"""The call form as an axis in the analysis (collbench's sweep key call): points differing only
in their form are separate points, the report's call-form section puts them side by side with
the persistent init, the break-even start count and the nonblocking call's overlap."""

import pandas as pd

import synthetic as S
from collrepro.analysis import callforms
from collrepro.analysis.loading import loader
from collrepro.analysis.frames.aggregate import aggregate
from collrepro.analysis.report import build_blocks, render_markdown

# Seconds per call of each form, and the persistent init: a start 2 us faster than the blocking
# call, so 51 us of init pay off after 26 starts (26 * 2 us = 52 us > 51 us > 25 * 2 us).
TIMES = {"blocking": 10e-6, "nonblocking": 11e-6, "persistent": 8e-6}
INIT_S = 51e-6
OVERLAP = {"overlap_pct": 37.5, "overlap_pure_s": 12e-6, "overlap_compute_s": 13e-6}


def forms_set(tmp_path):
    points = [S.point("halfduplex-fc", kb=0, call=form, init_s=INIT_S if form == "persistent" else None,
                      **(OVERLAP if form == "nonblocking" else {}))
              for form in TIMES]
    points.append(S.point("root-gathering", kb=0))          # measured blocking only
    return S.write_result_set(tmp_path / "forms", points, launches=2, reps=5,
                              time_fn=lambda pt, launch, rep: TIMES[pt.get("call", "blocking")])


def test_break_even_is_the_first_start_count_that_pays_off():
    assert callforms.break_even(51e-6, 10e-6, 8e-6) == 26
    assert callforms.break_even(49e-6, 10e-6, 8e-6) == 25
    assert callforms.break_even(0.0, 10e-6, 8e-6) == 1
    assert callforms.break_even(50e-6, 10e-6, 10e-6) is None      # a start no faster: never
    assert callforms.break_even(float("nan"), 10e-6, 8e-6) is None


def test_the_forms_are_separate_points_and_side_by_side(tmp_path):
    rs = loader.load([forms_set(tmp_path)])
    agg = aggregate(rs)
    hd = agg[agg["algorithm"] == "halfduplex-fc"].set_index("call")
    assert sorted(hd.index) == sorted(TIMES)                       # three points, not one
    for form, seconds in TIMES.items():
        assert abs(hd.loc[form, "median"] - seconds) < 1e-12
    tab = callforms.table(agg, rs.summary).set_index("algorithm")
    row = tab.loc["halfduplex-fc"]
    assert abs(row["init_s"] - INIT_S) < 1e-15 and row["break_even_starts"] == 26
    assert abs(row["persistent_over_blocking"] - 0.8) < 1e-9
    assert row["overlap_pct"] == OVERLAP["overlap_pct"]             # the nonblocking point's, not another's
    rg = tab.loc["root-gathering"]
    assert pd.isna(rg["persistent_s"]) and pd.isna(rg["break_even_starts"])


def test_report_has_the_section_only_with_several_forms(tmp_path):
    d = forms_set(tmp_path)
    text = render_markdown(build_blocks(loader.load([d]), tmp_path / "report"))
    assert "## Call forms" in text and (tmp_path / "report" / "callforms.csv").exists()
    assert "| 26 | 38 % |" in text and "call=blocking, nonblocking, persistent" not in text
    plain = S.write_result_set(tmp_path / "plain", [S.point("halfduplex-fc", kb=0)], launches=1, reps=3)
    assert "## Call forms" not in render_markdown(build_blocks(loader.load([plain]), tmp_path / "report2"))
