"""Compressed result files: read both forms, and compress finished result directories in place.

Every kind of result file (raw, summary, meta, phases) may be stored compressed: raw-L0.csv.gz
holds exactly the bytes of raw-L0.csv (gzip). The integrity record in the metadata is of the
plain bytes, so it holds for both forms. A directory never holds both forms of one file.

  python3 -m collrepro.compact DIR...          compress every finished result file under each DIR
  python3 -m collrepro.compact --check DIR...  dry run: list what would be compressed, change nothing

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
import gzip
import io
import os
import zlib
from pathlib import Path

from . import contract as C
from . import safeio
from .safeio import UserError

LEVEL = 9          # gzip level: the files are written once and read many times
CHUNK = 1 << 20


# ---------------------------------------------------------------- reading both forms

def _damaged(path, err):
    return UserError(f"{path}: not a complete gzip file ({safeio.excerpt(err) or type(err).__name__}); "
                     "the file is damaged: restore it from version control or re-run the launch")


def read_bytes(path, limit, what):
    """The plain bytes of a result file in either form, refused with one line when over `limit`
    bytes (compressed or decompressed), unreadable or, for a .gz file, damaged."""
    path = Path(path)
    if not C.is_compressed(path.name):
        return safeio.read_bounded(path, limit, what, binary=True)
    safeio.check_size(path, limit, what)
    parts, total = [], 0
    try:
        with gzip.open(path, "rb") as f:
            while total <= limit:
                part = f.read(CHUNK)    # in chunks: never a buffer of the whole limit
                if not part:
                    break
                parts.append(part)
                total += len(part)
    except OSError as err:
        if isinstance(err, gzip.BadGzipFile) or not err.errno:
            raise _damaged(path, err) from None
        raise UserError(safeio.os_error_line(err, f"read {what}", path)) from None
    except (EOFError, zlib.error) as err:
        raise _damaged(path, err) from None
    data = b"".join(parts)
    if len(data) > limit:
        raise UserError(f"{path}: decompresses to over the {safeio.format_size(limit)} limit for {what}; "
                        "check that this is the right file")
    return data


def read_text(path, limit, what):
    """read_bytes() as UTF-8 text (one line naming the file and the byte when it is not)."""
    data = read_bytes(path, limit, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise UserError(f"{path}: not UTF-8 text at byte {err.start} ({what})") from None


def text_stream(path, limit, what):
    """A text stream over a result file in either form (for csv.reader)."""
    return io.StringIO(read_text(path, limit, what), newline="")


def both_forms_error(directory, plain):
    return UserError(f"{directory}: holds both {plain} and {plain}{C.COMPRESSED_SUFFIX}: one launch's file "
                     f"in two forms; run `python3 -m collrepro.compact {directory}` (it keeps one when they "
                     "are equal) or remove the stale one")


def result_files(directory, kinds=None):
    """{kind: [(path, launch, slice)]} of a result directory, in either form, sorted by name;
    temporary files skipped; a file in both forms refused with one line."""
    directory = Path(directory)
    out = {}
    for kind in kinds or C.FILE_KINDS:
        ext = C.FILE_KINDS[kind]["extension"]
        found = {}
        for pattern in (f"{kind}-*.{ext}", f"{kind}-*.{ext}{C.COMPRESSED_SUFFIX}"):
            for path in directory.glob(pattern):
                if path.is_file():
                    found.setdefault(C.plain_name(path.name), []).append(path)
        rows = []
        for plain, paths in sorted(found.items()):
            if len(paths) > 1:
                raise both_forms_error(directory, plain)
            parsed = C.parse_file_name(paths[0].name)
            if parsed is None:
                raise UserError(f"{paths[0]}: unexpected file name (want {C.file_name_help()})")
            rows.append((paths[0], parsed[1], parsed[2]))
        out[kind] = rows
    return out


def find(directory, name):
    """The path of result file `name` (plain name) in either form, or None; both refused."""
    plain, packed = Path(directory) / name, Path(directory) / (name + C.COMPRESSED_SUFFIX)
    if plain.is_file() and packed.is_file():
        raise both_forms_error(directory, name)
    return plain if plain.is_file() else packed if packed.is_file() else None


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
    with safeio.atomic_file(packed, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, compresslevel=LEVEL, mtime=0) as z:
            for at in range(0, len(data), CHUNK):
                z.write(data[at:at + CHUNK])
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


def result_dirs(roots):
    """Every directory at or below the roots that holds a contract result file (either form)."""
    out = []
    for root in roots:
        root = Path(root)
        if not root.is_dir():
            raise UserError(f"{root}: not a directory: give result directories or a tree of them")
        for where, _, names in sorted(os.walk(root)):
            if any(C.parse_file_name(n) for n in names):
                out.append(Path(where))
    return out


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


if __name__ == "__main__":
    safeio.main_exit("compact", main)
