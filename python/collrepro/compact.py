"""Compress finished result directories in place (the forms of a result file: resultfiles.py).

  collrepro-py compact DIR...          compress every finished result file under each DIR
  collrepro-py compact --check DIR...  dry run: list what would be compressed, change nothing

A DIR may be a result directory or a tree of them (results/). A file is compressed only when its
launch is finished (no .tmp file of that launch and slice is beside it). Each file is compressed
aside (.<name>.gz.collrepro-tmp-<pid>), fsynced, read back and compared with the original, renamed
to <name>.gz, and only then is the original removed; an interrupted run leaves the original, or
both forms with equal contents, and the next run finishes the job (the original is removed once
the compressed copy is verified again). Both forms with different contents are refused.

Exit codes: 0 done (or, with --check, nothing left to compress), 1 with --check: files would be
compressed, 2 bad input (not a directory, a damaged .gz, both forms differing), 5 a write refused.
"""

import argparse
import os
from pathlib import Path

from . import contract as C
from . import safeio
from .resultfiles import read_bytes, result_dirs, write_bytes
from .safeio import UserError

LEVEL = 9          # gzip level: the files are written once and read many times


# ---------------------------------------------------------------- compressing in place

def _pending(directory, name):
    """Whether the launch and slice of result file `name` is still being written (.tmp files)."""
    _, launch, slc = C.parse_file_name(name)
    return any((directory / (C.file_name(kind, launch, slc) + C.TMP_SUFFIX)).exists() for kind in C.FILE_KINDS)


def _read_whole(path):
    try:
        size = path.stat().st_size
    except OSError as err:
        raise UserError(safeio.os_error_line(err, "read a result file", path)) from None
    return safeio.read_bounded(path, size, "a result file", binary=True)


def _same(path, data):
    """Whether the .gz `path` holds exactly `data`. Its bound is the larger of the data and the
    file: the .gz of a small file is larger than the file (gzip's header and trailer)."""
    try:
        limit = max(len(data), path.stat().st_size, 1)
        return read_bytes(path, limit, "a compressed result file") == data
    except (UserError, OSError):
        return False


def _compress_one(plain):
    """plain -> plain.gz, verified, then plain removed. Never loses data: the .gz appears only
    whole (written aside, fsynced, renamed) and the original goes only after the .gz reads back
    to its exact bytes."""
    packed = plain.with_name(plain.name + C.COMPRESSED_SUFFIX)
    data = _read_whole(plain)
    write_bytes(packed, data, LEVEL)
    if not _same(packed, data):
        os.unlink(packed)
        raise safeio.EnvironmentProblem(f"{packed}: the compressed copy does not read back to {plain.name}'s "
                                        "bytes (removed; the original is kept): check the disk and re-run")
    os.unlink(plain)
    safeio._fsync_dir(plain.parent)


def _finish_interrupted(plain):
    """Both forms present: drop the plain one when the .gz holds its exact bytes."""
    packed = plain.with_name(plain.name + C.COMPRESSED_SUFFIX)
    data = _read_whole(plain)
    if not _same(packed, data):
        raise UserError(f"{plain.parent}: holds both {plain.name} and {packed.name} with different contents: "
                        "keep the right one (check it against the metadata's integrity record) and remove "
                        "the other")
    os.unlink(plain)
    safeio._fsync_dir(plain.parent)


def plan(directory):
    """(to compress, both forms present) plain paths of a directory's finished result files."""
    directory = Path(directory)
    todo, both = [], []
    for kind, spec in C.FILE_KINDS.items():
        for path in sorted(directory.glob(f"{kind}-*.{spec['extension']}")):
            if not path.is_file() or C.parse_file_name(path.name) is None or _pending(directory, path.name):
                continue
            packed = path.with_name(path.name + C.COMPRESSED_SUFFIX)
            (both if packed.exists() else todo).append(path)
    return todo, both


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="compact", description="Compress the result files of finished launches in place (gzip); "
        "readers and collbench read both forms.")
    parser.add_argument("dirs", nargs="+", help="result directories, or trees of them (e.g. results/)")
    parser.add_argument("--check", action="store_true",
                        help="dry run: list the files that would be compressed; exit 1 when there are any")
    a = parser.parse_args(argv)
    dirs = result_dirs(a.dirs)
    before = after = count = 0
    for d in dirs:
        todo, both = plan(d)
        if a.check:
            for p in todo + both:
                print(f"would compress {p}" if p in todo else f"would finish {p} (both forms present)")
            count += len(todo) + len(both)
            continue
        for p in both:
            _finish_interrupted(p)
        for p in todo:
            size = p.stat().st_size
            _compress_one(p)
            before += size
            after += p.with_name(p.name + C.COMPRESSED_SUFFIX).stat().st_size
            count += 1
    if a.check:
        print(f"{count} file(s) to compress in {len(dirs)} result director{'y' if len(dirs) == 1 else 'ies'}")
        return 1 if count else 0
    print(f"compressed {count} file(s) in {len(dirs)} result director{'y' if len(dirs) == 1 else 'ies'}: "
          f"{safeio.format_size(before)} -> {safeio.format_size(after)}")
    return 0

