"""Safe output, bounded input and one error line: the I/O rules every collrepro tool follows.

Output. A file or a directory a tool produces appears whole or not at all:
  - `atomic_file(path)` writes beside the target under a temporary name, flushes and fsyncs it,
    renames it over the target and fsyncs the folder;
  - `atomic_dir(path, owner)` builds a whole output directory beside the target, then swaps it
    in with two renames; the previous directory survives any fault before the swap.
Temporary names are `.<name>.collrepro-tmp-<pid>` (and `.<name>.collrepro-old-<pid>` during a
swap). Every writer first removes those whose process is gone, so a SIGKILL or a full disk
leaves nothing that outlives the next successful run. Whether a process is gone is judged on
this host: one output must not have writers on two hosts at once (on a shared file system one
could remove the other's temporary).

Input. `read_bounded(path, limit, what)` refuses a file over its size limit before reading it;
`parse_json` and `parse_yaml` turn a parse error, or nesting deep enough to exhaust Python's
stack, into one `UserError` line that quotes at most a short excerpt.

Errors. `run_cli(prog, main)` runs a command's main function and turns every failure into one
line on standard error and an exit code from the table below (docs/exit-codes.md);
no traceback reaches a user unless COLLREPRO_DEBUG=1.
"""

import contextlib
import errno
import json
import os
import shutil
import signal
import sys
from pathlib import Path

# The exit codes of every collrepro command (docs/exit-codes.md).
EXIT_OK = 0
EXIT_FINDING = 1       # a verdict to act on: a regression, a slower point, a violated guideline
EXIT_BAD_INPUT = 2     # usage, configuration, a missing, damaged or oversized input: nothing changed
EXIT_VALIDATION = 3    # an algorithm's result differs from the expected (native) result
EXIT_INCOMPLETE = 4    # ran, but part is missing: an MPI failure mid-run, a verdict refused for
                       # too few launches; what finished is kept
EXIT_ENVIRONMENT = 5   # the system refused: a write failed (no space, permission), a dependency,
                       # build or tool is missing
EXIT_INTERNAL = 70     # a bug in collrepro: one line, the traceback with COLLREPRO_DEBUG=1
EXIT_SIGINT = 130      # interrupted (Ctrl-C); finished work kept, a re-run resumes
EXIT_SIGTERM = 143     # terminated (SIGTERM, a time limit, scancel); finished work kept

EXIT_MEANING = {
    EXIT_OK: "done",
    EXIT_FINDING: "finding (regression, slower point or violated guideline)",
    EXIT_BAD_INPUT: "bad input (usage, configuration or input file)",
    EXIT_VALIDATION: "validation failure (a result differs from the native one)",
    EXIT_INCOMPLETE: "incomplete (MPI failure mid-run, or verdicts refused for too few launches)",
    EXIT_ENVIRONMENT: "environment (write failed, or a dependency or build is missing)",
    EXIT_INTERNAL: "internal error (a bug)",
    EXIT_SIGINT: "interrupted (SIGINT)",
    EXIT_SIGTERM: "terminated (SIGTERM: time limit or scancel)",
}

TMP_TAG = ".collrepro-tmp-"
OLD_TAG = ".collrepro-old-"
EXCERPT_CHARS = 60


class UserError(Exception):
    """A problem the user can fix: one line naming the file or field, the cause and the fix."""

    exit_code = EXIT_BAD_INPUT


class EnvironmentProblem(UserError):
    """The system refused (a write failed, a dependency is missing): exit 5."""

    exit_code = EXIT_ENVIRONMENT


class Terminated(BaseException):
    """Raised in the main thread by SIGTERM (installed by run_cli), so that cleanups run."""


def excerpt(text, limit=EXCERPT_CHARS):
    """At most `limit` characters of `text` on one line, marked when shortened."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def os_error_line(err, action, path=None):
    """'cannot write P: No space left on device (free space ...)' for an OSError."""
    where = path if path is not None else (err.filename or "?")
    reason = err.strerror or str(err)
    fix = {
        errno.ENOSPC: "free space there and re-run: finished work is kept",
        errno.EDQUOT: "free space within the quota and re-run: finished work is kept",
        errno.EACCES: "check the permissions, or choose another location",
        errno.EPERM: "check the permissions, or choose another location",
        errno.EROFS: "choose a writable location",
        errno.ENOENT: "check the path",
    }.get(err.errno)
    head = f"cannot {action} {where}" if action else f"{where}"
    return f"{head}: {reason}" + (f" ({fix})" if fix else "")


# ------------------------------------------------------------------ stale temporary files

def pid_alive(pid):
    """Whether process `pid` runs on this host (this process counts as running)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _temporary_pid(name, stem):
    """The pid of a temporary sibling `.<stem><tag><pid>`, or None when `name` is not one."""
    for tag in (TMP_TAG, OLD_TAG):
        prefix = f".{stem}{tag}"
        if name.startswith(prefix) and name[len(prefix):].isdigit():
            return int(name[len(prefix):])
    return None


def stale_temporaries(path):
    """The temporary siblings of `path` left by processes that no longer run."""
    path = Path(path)
    try:
        names = os.listdir(path.parent if str(path.parent) else ".")
    except OSError:
        return []
    found = []
    for name in names:
        pid = _temporary_pid(name, path.name)
        if pid is not None and not pid_alive(pid):
            found.append(path.parent / name)
    return sorted(found)


def _remove(path):
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def remove_stale(path):
    """Remove what interrupted writers of `path` left; return how many entries went."""
    stale = stale_temporaries(path)
    for entry in stale:
        _remove(entry)
    return len(stale)


def _staging(path, tag=TMP_TAG):
    return path.parent / f".{path.name}{tag}{os.getpid()}"


def _fsync_dir(directory):
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# ------------------------------------------------------------------ atomic output

@contextlib.contextmanager
def atomic_file(path, mode="w", encoding="utf-8", newline=None):
    """Open a temporary sibling of `path` for writing; on success it replaces `path` whole.
    On any exception the temporary is removed and `path` is untouched."""
    path = Path(path)
    if path.parent and not path.parent.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(path)
    tmp = _staging(path)
    binary = "b" in mode
    try:
        with open(tmp, mode, **({} if binary else {"encoding": encoding, "newline": newline})) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as err:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        if isinstance(err, OSError) and err.filename is None:  # write/fsync: name the file in the error line
            err.filename = str(path)
        raise
    _fsync_dir(path.parent)


def write_text(path, text, encoding="utf-8"):
    with atomic_file(path, "w", encoding=encoding) as f:
        f.write(text)
    return Path(path)


def write_bytes(path, data):
    with atomic_file(path, "wb") as f:
        f.write(data)
    return Path(path)


def write_json(path, obj, indent=2, **kwargs):
    return write_text(path, json.dumps(obj, indent=indent, **kwargs) + "\n")


def write_csv(path, frame, **kwargs):
    """A pandas DataFrame as CSV, atomically (index=False unless given)."""
    kwargs.setdefault("index", False)
    with atomic_file(path, "w", newline="") as f:
        frame.to_csv(f, **kwargs)
    return Path(path)


OWNER_MARKER = ".collrepro-output"


def check_output_dir(path, owner):
    """Refuse, with one line, an output directory `owner` may not replace: a path that is not a
    directory, or a non-empty directory without the marker of a collrepro tool."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        return
    if not path.is_dir():
        raise UserError(f"{path}: exists and is not a directory; give a new or empty output directory")
    if not (path / OWNER_MARKER).is_file() and any(path.iterdir()):
        raise UserError(f"{path}: exists, is not empty and was not written by {owner} (no {OWNER_MARKER} "
                        "in it); give a new or empty output directory (its contents would be replaced)")


@contextlib.contextmanager
def atomic_dir(path, owner):
    """Build an output directory aside and swap it in whole.

    Yields the staging directory to write into. On success the staging directory, marked as
    written by `owner` (e.g. "analyze report"), replaces `path` in one exchange (two renames
    where the file system cannot exchange) and the old one is removed last. On any exception (SIGTERM under run_cli included) the staging
    directory is removed and `path` is left as it was. A `path` that exists, is not empty and
    was not written by a collrepro tool is refused: it would be replaced."""
    path = Path(path)
    check_output_dir(path, owner)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise EnvironmentProblem(os_error_line(err, "create", path.parent)) from None
    _restore_interrupted_swap(path)
    remove_stale(path)
    staging = _staging(path)
    try:
        staging.mkdir()  # inside: a SIGTERM just after it must remove it too
        yield staging
        (staging / OWNER_MARKER).write_text(f"written by {owner}; replaced whole on every run\n",
                                            encoding="utf-8")
        _swap_in(staging, path)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _fsync_dir(path.parent)


def _restore_interrupted_swap(path):
    """Where the two-rename swap was killed between its renames, `path` is missing and the
    previous output waits under a dead writer's `.collrepro-old-` name: put it back before
    anything stale is removed."""
    if path.exists():
        return
    for entry in stale_temporaries(path):
        if OLD_TAG in entry.name and entry.is_dir():
            entry.rename(path)
            return


def _exchange(a, b):
    """Swap two existing paths in one step (Linux renameat2 with RENAME_EXCHANGE); False where
    the system or the file system cannot, OSError when it refuses."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _swap_in(staging, path):
    """Put staging at path. Where the system can exchange the two in one step, there is no
    moment at which path is missing (a SIGKILL anywhere leaves the old or the new output there);
    the staging name then holds the previous output, removed here or, after a SIGKILL, by the
    next writer. Elsewhere two renames, and the previous output is put back on any exception
    (a SIGTERM between them included)."""
    if path.exists() and _exchange(staging, path):
        shutil.rmtree(staging, ignore_errors=True)
        return
    old = _staging(path, OLD_TAG)
    try:
        if path.exists():
            path.rename(old)
        staging.rename(path)
    except BaseException:
        if old.exists() and not path.exists():
            old.rename(path)
        raise
    shutil.rmtree(old, ignore_errors=True)


# ------------------------------------------------------------------ bounded input

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30


def format_size(n):
    for unit, size in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


def check_size(path, limit, what):
    """Raise UserError when `path` is larger than `limit` bytes; return its size."""
    try:
        size = os.stat(path).st_size
    except OSError as err:
        raise UserError(os_error_line(err, f"read {what}", path)) from None
    if size > limit:
        raise UserError(f"{path}: {format_size(size)} is over the {format_size(limit)} limit for {what}; "
                        "check that this is the right file")
    return size


def read_bounded(path, limit, what, binary=False):
    """The contents of `path` (text unless `binary`), refused with one line when over `limit`
    bytes, unreadable or not text."""
    check_size(path, limit, what)
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)  # a pipe or a growing file: never more than the cap
    except OSError as err:
        raise UserError(os_error_line(err, f"read {what}", path)) from None
    if len(data) > limit:
        raise UserError(f"{path}: over the {format_size(limit)} limit for {what}")
    if binary:
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise UserError(f"{path}: not UTF-8 text at byte {err.start} ({what})") from None


def parse_json(text, where):
    """json.loads with one-line errors (bad syntax, nesting too deep) naming `where`."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise UserError(f"{where}: not valid JSON at line {err.lineno} column {err.colno}: {err.msg}") from None
    except RecursionError:
        raise UserError(f"{where}: JSON nested too deeply") from None
    except ValueError as err:  # e.g. an integer of more digits than Python converts
        raise UserError(f"{where}: not valid JSON: {excerpt(err)}") from None


def parse_yaml(text, where):
    """yaml.safe_load with one-line errors (bad syntax, nesting too deep) naming `where`."""
    import yaml
    try:
        return yaml.safe_load(text)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark
        at = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
        raise UserError(f"{where}: not valid YAML{at}: {excerpt(err.problem or err)}") from None
    except yaml.YAMLError as err:
        raise UserError(f"{where}: not valid YAML: {excerpt(err)}") from None
    except RecursionError:
        raise UserError(f"{where}: YAML nested too deeply") from None
    except ValueError as err:  # e.g. an integer of more digits than Python converts
        raise UserError(f"{where}: not valid YAML: {excerpt(err)}") from None


def load_json_file(path, limit, what):
    return parse_json(read_bounded(path, limit, what), path)


def load_yaml_file(path, limit, what):
    return parse_yaml(read_bounded(path, limit, what), path)


# ------------------------------------------------------------------ one error line

def _raise_terminated(signum, frame):
    raise Terminated()


def _one_line(prog, text):
    sys.stderr.write(f"{prog}: {' '.join(str(text).split())}\n")
    sys.stderr.flush()


def _underlying(err):
    """The SIGTERM, Ctrl-C or failed write (no space, I/O error) that `err` happened while
    handling (e.g. matplotlib's PDF writer fails in its cleanup after a full disk or a SIGTERM),
    or None. Nothing else is unwrapped: a bug raised while handling an ordinary error stays a bug."""
    seen, cause = set(), err.__context__
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, (Terminated, KeyboardInterrupt)) or (
                isinstance(cause, OSError) and cause.errno in (errno.ENOSPC, errno.EDQUOT, errno.EIO)):
            return cause
        cause = cause.__context__
    return None


def _raiser(err):
    def main(_argv):
        raise err
    return main


def run_cli(prog, main, argv=None):
    """Run `main(argv)` and return its exit code; every failure becomes one line and a code of
    the exit-code table. SIGTERM is turned into an exception so that `atomic_*` clean up."""
    debug = os.environ.get("COLLREPRO_DEBUG") == "1"
    with contextlib.suppress(ValueError):  # not the main thread
        signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        code = main(argv)
        return EXIT_OK if code is None else code
    except UserError as err:
        _one_line(prog, err)
        return err.exit_code
    except SystemExit as err:
        if isinstance(err.code, str):  # raise SystemExit("message"): a usage error
            _one_line(prog, err.code.removeprefix(f"{prog}: "))
            return EXIT_BAD_INPUT
        return EXIT_OK if err.code is None else err.code
    except KeyboardInterrupt:
        _one_line(prog, "interrupted (SIGINT); finished work is kept, a re-run resumes")
        return EXIT_SIGINT
    except Terminated:
        _one_line(prog, "terminated (SIGTERM); finished work is kept, a re-run resumes")
        return EXIT_SIGTERM
    except BrokenPipeError:  # e.g. `... | head`
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as err:
        _one_line(prog, os_error_line(err, None))
        return EXIT_ENVIRONMENT
    except MemoryError:
        _one_line(prog, "out of memory; use smaller inputs or a machine with more memory")
        return EXIT_ENVIRONMENT
    except Exception as err:  # noqa: BLE001 - the last resort: a bug
        underlying = _underlying(err)
        if underlying is not None:  # a library's cleanup failed after a SIGTERM or a full disk
            return run_cli(prog, _raiser(underlying), argv)
        if debug:
            import traceback
            traceback.print_exc()
        _one_line(prog, f"internal error: {type(err).__name__}: {excerpt(err, 200)} (a bug in collrepro; "
                  "re-run with COLLREPRO_DEBUG=1 for the traceback and report it)")
        return EXIT_INTERNAL


def main_exit(prog, main, argv=None):
    """sys.exit(run_cli(...)): the last line of every command's module."""
    sys.exit(run_cli(prog, main, argv))
