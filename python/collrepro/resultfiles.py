"""The forms of a result file, known here and nowhere else: every kind of result file (raw,
summary, meta, phases) is stored plain (raw-L0.csv) or compressed (raw-L0.csv.gz: gzip, exactly
the bytes of the plain file; contract.json `files.compressed`). The integrity record in the
metadata is of the plain bytes, so it holds for both forms. A directory never holds both forms
of one file. Every reader of result files (the analysis, the simulation tools, the studies)
finds and reads them here; `collrepro-py compact` (compact.py) turns one form into the other.
"""

import gzip
import io
import os
import zlib
from pathlib import Path

from . import contract as C
from . import safeio
from .safeio import UserError

CHUNK = 1 << 20    # read and written in pieces: never a buffer of a whole limit


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
                     f"in two forms; run `collrepro-py compact {directory}` (it keeps one when they "
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


def write_bytes(path, data, level=9):
    """Replace `path` whole with `data` (its plain bytes), in the form its name says (safeio.atomic_file)."""
    if not C.is_compressed(Path(path).name):
        with safeio.atomic_file(path, "wb") as f:
            f.write(data)
        return
    with safeio.atomic_file(path, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, compresslevel=level, mtime=0) as z:
            for at in range(0, len(data), CHUNK):
                z.write(data[at:at + CHUNK])


def write_atomically(path, write, level=9):
    """Replace `path` whole (safeio.atomic_file: temporary sibling, fsync, rename) with what
    write(text stream) writes, in the form its name says: a .gz name is written compressed."""
    if not C.is_compressed(Path(path).name):
        with safeio.atomic_file(path, "w", newline="") as f:
            write(f)
        return
    with safeio.atomic_file(path, "wb") as f, \
            gzip.GzipFile(filename="", mode="wb", fileobj=f, compresslevel=level, mtime=0) as z, \
            io.TextIOWrapper(z, encoding="utf-8", newline="") as text:
        write(text)
