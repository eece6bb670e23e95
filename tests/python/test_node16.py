"""results/node16: the committed summary is what node16_summary makes of the committed archive,
and the archive reader takes nothing but plain relative files."""

import io
import tarfile
from pathlib import Path

import pytest

from collrepro.studies import node16 as N
from collrepro import safeio

REPO = Path(__file__).resolve().parents[2]
ARCHIVE = "results/node16/runs.tar.xz"


def test_summary_is_regenerated_from_the_archive(tmp_path):
    N.unpack(REPO / ARCHIVE, tmp_path)
    text = N.summarize(tmp_path, title=ARCHIVE)
    assert text == (REPO / "results/node16/SUMMARY.md").read_text(), \
        "results/node16/SUMMARY.md is stale: ./collrepro-py study node16 " \
        f"{ARCHIVE} --out results/node16/SUMMARY.md"
    # What the closing note and docs/results.md quote: halfduplex-fc's slow step at 12:4 is allgather-G.
    assert "| 12:4, kA:kB=1:0 | 4 MiB | halfduplex-fc |" in text and "allgather-G" in text


def _archive(path, name):
    data = b"x"
    with tarfile.open(path, "w:xz") as tar:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))


@pytest.mark.parametrize("name", ["../escape.csv", "/abs.csv"])
def test_archive_members_must_be_plain_and_relative(tmp_path, name):
    _archive(tmp_path / "bad.tar.xz", name)
    with pytest.raises(safeio.UserError, match="not a plain relative file"):
        N.unpack(tmp_path / "bad.tar.xz", tmp_path / "out")
    assert not (tmp_path / "escape.csv").exists()


def test_not_an_archive(tmp_path):
    (tmp_path / "x.tar.xz").write_text("no")
    with pytest.raises(safeio.UserError, match="not a readable"):
        N.unpack(tmp_path / "x.tar.xz", tmp_path / "out")
