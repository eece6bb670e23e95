"""The fast SimGrid's build (python/collrepro/installations/simgrid.py) and simrun's choice of
library (--simgrid), without building SimGrid: the edit on a made-up ActorImpl.hpp, the refusal
of a source it does not fit, and which smpirun simrun takes with and without a complete build."""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

from collrepro.installations import simgrid  # noqa: E402
from collrepro.safeio import EnvironmentProblem  # noqa: E402
from collrepro.sim.running import run as simrun  # noqa: E402

# The lines of 3.32's header the edit touches; the rest of the file is made up.
ACTOR_HPP = """#ifndef X
#include "Simcall.hpp"
#include <list>
class ActorImpl {
  activity::ActivityImplPtr waiting_synchro_ = nullptr;
  std::list<activity::ActivityImplPtr> activities_;     /* the current non-blocking synchros */
};
#endif
"""


def _tree(tmp_path, text=ACTOR_HPP):
    actor = tmp_path / "src" / "kernel" / "actor"
    actor.mkdir(parents=True)
    (actor / "ActorImpl.hpp").write_text(text)
    return tmp_path


def test_the_edit_makes_activities_an_activity_list(tmp_path):
    tree = _tree(tmp_path)
    simgrid.apply_edit(str(tree))
    text = (tree / "src/kernel/actor/ActorImpl.hpp").read_text()
    assert "std::list<activity::ActivityImplPtr> activities_" not in text
    assert "  ActivityList<activity::ActivityImplPtr> activities_;" in text
    assert text.index('#include "ActivityList.hpp"') < text.index('#include "Simcall.hpp"')
    assert (tree / "src/kernel/actor/ActivityList.hpp").read_text() == Path(simgrid.HEADER).read_text()


@pytest.mark.parametrize("text", [ACTOR_HPP.replace("std::list<", "std::set<"),  # 3.34's set
                                  ACTOR_HPP + "std::list<activity::ActivityImplPtr> activities_;\n"])
def test_a_source_the_edit_does_not_fit_is_refused_untouched(tmp_path, text):
    tree = _tree(tmp_path, text)
    with pytest.raises(simgrid.SimGridBuildError, match="declaration of activities_"):
        simgrid.apply_edit(str(tree))
    assert (tree / "src/kernel/actor/ActorImpl.hpp").read_text() == text
    assert not (tree / "src/kernel/actor/ActivityList.hpp").exists()


def _fast_build(cache, complete=True):
    prefix = Path(simgrid.prefix_for("3.32-2"))
    (prefix / "bin").mkdir(parents=True)
    (prefix / "bin" / "smpirun").write_text("#!/bin/sh\n")
    if complete:
        (prefix / simgrid.STAMP).write_text("")
    return prefix


@pytest.fixture
def build_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("COLLREPRO_CACHE", str(tmp_path / "cache"))
    exe = tmp_path / "build" / "bench" / "collbench"
    exe.parent.mkdir(parents=True)
    exe.write_text("")
    return str(tmp_path / "build")


def test_simrun_takes_the_fast_build_only_when_complete(build_dir, tmp_path):
    assert simrun._check_programs(build_dir, "auto")[2] == "packaged"
    prefix = _fast_build(tmp_path / "cache", complete=False)
    assert simgrid.installed() is None, "an interrupted build (no stamp) never counts"
    assert simrun._check_programs(build_dir, "auto")[2] == "packaged"
    (prefix / simgrid.STAMP).write_text("")
    _, smpirun, name = simrun._check_programs(build_dir, "auto")
    assert (smpirun, name) == (str(prefix / "bin" / "smpirun"), "3.32-2+activity-list")
    assert simrun._check_programs(build_dir, "packaged")[2] == "packaged"


def test_simrun_fast_without_the_build_says_how_to_build_it(build_dir):
    with pytest.raises(EnvironmentProblem, match="sim simgrid build"):
        simrun._check_programs(build_dir, "fast")
