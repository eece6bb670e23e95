"""The unpacked source tree of a release, made ready for configure.

Debian's upstream tarballs are not always what `configure && make` expects: MPICH 3.4.1's lacks
files that MPICH's autogen.sh makes (recipes.py lists them). `prepare` completes the tree the
way autogen.sh would, and no further.
"""

import glob
import os
import shutil
import tarfile

from ..safeio import EnvironmentProblem


class SourceTreeError(EnvironmentProblem, RuntimeError):
    """One line: what is wrong with the release's source."""


def upstream_tarball(tree, recipe):
    """The release's upstream tarball beside the unpacked Debian source (checked by dpkg-source)."""
    found = glob.glob(os.path.join(os.path.dirname(tree), f"{recipe.kind}_{recipe.version}.orig.tar.*"))
    if len(found) != 1:
        raise SourceTreeError(f"{recipe.name}: the Debian source in {os.path.dirname(tree)} has no "
                         f"{recipe.kind}_{recipe.version}.orig tarball (the suite packages another version?)")
    return found[0]


def unpack(tarball, into):
    with tarfile.open(tarball) as tar:
        tar.extractall(into, filter="tar") if hasattr(tarfile, "data_filter") else tar.extractall(into)
    tops = [d for d in os.listdir(into) if os.path.isdir(os.path.join(into, d))]
    if len(tops) != 1:
        raise SourceTreeError(f"{tarball}: expected one top directory, found {len(tops)}")
    return os.path.join(into, tops[0])


def fill_missing(source, copy):
    """Copy into `copy` the files of `source` it lacks (recursively, never overwriting), dated as
    old as `copy`'s oldest file, so that make does not take files generated from them for stale."""
    present = [os.path.join(d, f) for d, _, files in os.walk(copy) for f in files]
    oldest = min((os.path.getmtime(p) for p in present if not os.path.islink(p)), default=None)
    for dirpath, _, files in os.walk(source):
        target_dir = os.path.join(copy, os.path.relpath(dirpath, source))
        for name in files:
            dest = os.path.join(target_dir, name)
            if os.path.lexists(dest):
                continue
            os.makedirs(target_dir, exist_ok=True)
            shutil.copy2(os.path.join(dirpath, name), dest, follow_symlinks=False)
            if oldest is not None and not os.path.islink(dest):
                os.utime(dest, (oldest, oldest))


def sync_pairs(src, pairs):
    """The (source, copy) directory pairs of a recipe, with */confdb expanded."""
    for source, copy in pairs:
        if copy == "*/confdb":
            top = os.path.join(src, source)
            for dirpath, dirnames, _ in os.walk(src):
                if "confdb" in dirnames and os.path.join(dirpath, "confdb") != top:
                    yield top, os.path.join(dirpath, "confdb")
        elif os.path.isdir(os.path.join(src, source)) and os.path.isdir(os.path.join(src, copy)):
            yield os.path.join(src, source), os.path.join(src, copy)


def prepare(recipe, src, run):
    """The recipe's steps before configure (recipes.py says why MPICH 3.4.1 needs them);
    run(cmd, what, cwd) runs one command, logged."""
    for source, copy in list(sync_pairs(src, recipe.sync_dirs)):
        fill_missing(source, copy)
    for subdir, cmd, creates in recipe.prepare_steps:
        where = os.path.join(src, subdir)
        if os.path.isdir(where) and not os.path.exists(os.path.join(where, creates)):
            run(cmd, f"generate {os.path.normpath(os.path.join(subdir, creates))}", where)
