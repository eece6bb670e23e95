"""Every result directory committed under results/ loads with the analysis loader (what
`analysis/analyze report` reads), or is refused with one line that names a missing file; none
fails on a value (an enum, a type) or on a damaged file. Load only: rendering every report
would take minutes."""

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from collrepro import resultfiles
from collrepro import contract as C
from collrepro.analysis.loading import loader
from collrepro.analysis.loading.errors import InputError

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "results"


def committed_dirs():
    """The directories under results/ that hold a tracked result file (either form)."""
    try:
        names = subprocess.run(["git", "ls-files", "results"], cwd=REPO, check=True, capture_output=True,
                               text=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):        # an export without .git: what is there
        return resultfiles.result_dirs([RESULTS])
    return sorted({REPO / Path(n).parent for n in names if C.parse_file_name(Path(n).name)})


DIRS = committed_dirs()


def test_there_are_committed_directories():
    assert len(DIRS) >= 50, DIRS


@pytest.mark.parametrize("directory", DIRS, ids=[str(d.relative_to(RESULTS)) for d in DIRS])
def test_committed_directory_loads(directory):
    try:
        rs = loader.load_dir(directory)
    except InputError as err:
        line = str(err)
        assert "\n" not in line
        missing = [name for name in line.split() if C.parse_file_name(name.strip(",;:()")) and "missing" in line]
        assert missing, f"refused for another reason than a missing file: {line}"
        return
    assert len(rs.summary) > 0 and len(rs.metas) > 0


def test_committed_raw_files_are_compressed():
    """The tracked raw, summary and meta files are stored compressed (results/ stays small)."""
    plain = [d for d in DIRS for kind, files in loader.data_files(d).items()
             for path, _, _ in files if not C.is_compressed(path.name)]
    assert not plain, plain[:5]


def walked_committed_dirs():
    """What the tree walk of `analyze trend/dashboard results/` finds, less what git ignores:
    results/local/, where `./collrepro run` writes, is a user's scratch, not committed results."""
    from collrepro.analysis.loading import inventory
    walked = inventory.result_dirs([RESULTS])
    try:
        ignored = subprocess.run(["git", "check-ignore", "--stdin"], cwd=REPO, capture_output=True, text=True,
                                 input="".join(f"{d.relative_to(REPO)}\n" for d in walked)).stdout.splitlines()
    except OSError:                                            # no git: nothing is ignored
        ignored = []
    return [d for d in walked if str(d.relative_to(REPO)) not in set(ignored)]


def with_tables():
    return [d for d in DIRS if any(loader.data_files(d)[k] for k in ("raw", "summary"))]


def test_the_tree_walk_finds_every_compressed_directory():
    """`analyze trend/dashboard results/...` find the directories of .gz files (inventory)."""
    assert sorted(walked_committed_dirs()) == sorted(with_tables())


def test_the_tree_walk_check_holds_after_a_run():
    """`./collrepro run` then `./collrepro test`: the run's results/local/ scratch is no
    committed directory (a result directory made there must not break the check above)."""
    from collrepro.analysis.loading import inventory
    local = RESULTS / "local"
    made_local = not local.exists()
    local.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="test-committed-", dir=local))
    try:
        (scratch / "summary-L0.csv").write_text("")
        assert scratch in inventory.result_dirs([RESULTS])
        assert sorted(walked_committed_dirs()) == sorted(with_tables())
    finally:
        shutil.rmtree(local if made_local else scratch)
