"""tests/skipped.py: every skipped test's reason, from ctest's JUnit report (as CMake 3.25 writes it)."""

import importlib.util
from pathlib import Path

SPEC = importlib.util.spec_from_file_location("skipped", Path(__file__).resolve().parents[1] / "skipped.py")
skipped = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(skipped)

REPORT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="suite" tests="3" failures="0" disabled="0" skipped="2">
  <testcase name="cluster.up_down" classname="cluster.up_down" time="0.1" status="notrun">
    <skipped message="SKIP_RETURN_CODE=77"/>
    <system-out>checking
SKIP: a cluster made by another clone is up
</system-out>
  </testcase>
  <testcase name="quiet" classname="quiet" time="0.1" status="notrun">
    <skipped message="SKIP_RETURN_CODE=77"/>
    <system-out></system-out>
  </testcase>
  <testcase name="ran" classname="ran" time="0.1" status="run"><system-out>SKIP: not this one</system-out></testcase>
</testsuite>
"""


def test_each_skip_with_its_own_line(tmp_path, capsys):
    path = tmp_path / "junit.xml"
    path.write_text(REPORT)
    assert skipped.skipped(path) == [("cluster.up_down", "SKIP: a cluster made by another clone is up"),
                                     ("quiet", None)]
    assert skipped.main(["skipped.py", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["skipped cluster.up_down: SKIP: a cluster made by another clone is up",
                   "skipped quiet: the test printed no reason (a bug in the test)"]


def test_unreadable_report_is_one_line(tmp_path, capsys):
    assert skipped.main(["skipped.py", str(tmp_path / "missing.xml")]) == 0
    assert "cannot read" in capsys.readouterr().err
