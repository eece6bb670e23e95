"""Result directories as (experiment, installation) pairs.

A results tree has the form `<root>/<experiment>/<installation>/` (any depth works: every
directory holding collbench files is one result directory). The installation of a directory
is named by its metadata, never by its path:
- the meta key `mpi_installation` that collbench writes when it ran on a registered installation
  (`python/collrepro/installations`: an object with `name`, `version`, `prefix`, ...), or
  `installation` (a name, or an object with `name` and optionally `identity`) from other tools;
- else `<mpi_impl>-<mpi_version>`;
- two directories of one experiment with the same name but different library identity strings
  (`mpi_library`, MPI_Get_library_version) get a short fingerprint of the identity appended.
"""

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from collrepro import contract as C
from collrepro.analysis.loading import loader
from collrepro.analysis.loading.errors import InputError

PRE_RELEASE = {"a", "alpha", "b", "beta", "rc", "pre", "dev"}


def version_key(version):
    """Natural version order: 4.1.9 < 4.1.10, 4.2.0rc1 < 4.2.0 < 4.2.0.1."""
    key = []
    for token in re.findall(r"\d+|[A-Za-z]+", str(version)):
        if token.isdigit():
            key.append((2, int(token), ""))
        elif token.lower() in PRE_RELEASE:
            key.append((0, 0, token.lower()))
        else:
            key.append((3, 0, token.lower()))
    key.append((1, 0, ""))
    return key


@dataclass
class Installation:
    """The MPI installation a result directory ran on, as its metadata describe it."""
    name: str
    impl: str
    version: str
    identity: str            # first line of MPI_Get_library_version ("" when unknown)
    base: str = ""           # a derived installation (a synthetic release, an A/A copy): its base

    @property
    def library(self):
        return self.impl

    def order_key(self):
        return (self.impl, version_key(self.version), self.name)


def _one(metas, key, directory):
    values = sorted({str(m.get(key, "")) for m in metas})
    if len(values) != 1:
        raise InputError(f"{directory}: the launches disagree on {key} ({', '.join(values)}); "
                         "a result directory holds one experiment on one installation: split it")
    return values[0]


def _record(meta):
    """The installation record of one launch's metadata, or None."""
    return meta.get("mpi_installation") or meta.get("installation")


def _identity(meta):
    """The library identity: the installation record's `identity` when the launcher wrote one,
    else the first line of MPI_Get_library_version."""
    record = _record(meta)
    text = str(record.get("identity") or "") if isinstance(record, dict) else ""
    text = text.strip() or str(meta.get("mpi_library", "")).strip()
    return text.splitlines()[0].strip() if text else ""


def installation_of(metas, directory):
    """The Installation of one result directory's metadata."""
    if not metas:
        raise InputError(f"{directory}: no meta-*.json file; the installation is unknown: "
                         "copy the launch's metadata beside its CSV files")
    impl, version = _one(metas, "mpi_impl", directory), _one(metas, "mpi_version", directory)
    record = _record(metas[0])
    named = record.get("name") if isinstance(record, dict) else record
    base = str(record.get("base") or "") if isinstance(record, dict) and record.get("origin") == "derived" else ""
    name = str(named) if named else f"{impl}-{version}"
    identities = sorted({_identity(m) for m in metas} - {""})
    return Installation(name=name, impl=impl, version=version, identity="; ".join(identities), base=base)


def disambiguate(installations):
    """Append an identity fingerprint to names shared by installations of different identity."""
    by_name = {}
    for inst in installations:
        by_name.setdefault(inst.name, set()).add(inst.identity)
    for inst in installations:
        if len(by_name[inst.name]) > 1:
            inst.name += "~" + hashlib.sha256(inst.identity.encode()).hexdigest()[:6]
    return installations


def result_dirs(paths):
    """Every directory at or below `paths` that holds collbench files, sorted, once each."""
    found = []
    for path in map(Path, paths):
        if not path.is_dir():
            raise InputError(f"{path}: not a directory; give result directories or results trees")
        candidates = [path] + sorted(p for p in path.rglob("*") if p.is_dir())
        found += [d for d in candidates if any(next(d.glob(f"{kind}-*.csv{gz}"), None)
                                               for kind in ("summary", "raw") for gz in ("", C.COMPRESSED_SUFFIX))]
    unique = list(dict.fromkeys(found))
    if not unique:
        raise InputError(f"{', '.join(map(str, paths))}: no result directory (summary-*.csv or "
                         "raw-*.csv files) at or below it")
    return unique


@dataclass
class Entry:
    """One loaded result directory with its experiment and installation."""
    experiment: str
    installation: Installation
    rs: object               # loader.ResultSet
    label: str = ""          # the installation's name, plus the directory's when an experiment
                             # has several directories of one installation (other process counts)

    @property
    def directory(self):
        return self.rs.dirs[0]


def split(rs):
    """The Entry of every directory of an already loaded ResultSet."""
    entries = []
    for directory in rs.dirs:
        mine = lambda frame: frame[frame["source"] == str(directory)]  # noqa: E731
        metas = [m for m in rs.metas if m["_dir"] == str(directory)]
        part = loader.ResultSet(dirs=[directory], raw=mine(rs.raw), summary=mine(rs.summary), metas=metas)
        entries.append(Entry(_one(metas, "experiment", directory) if metas else Path(directory).name,
                             installation_of(metas, directory), part))
    return label_entries(entries)


def label_entries(entries):
    """Set each entry's label: its installation's name, with the directory's name added when
    one experiment has several directories of that installation."""
    count = {}
    for e in entries:
        count[(e.experiment, e.installation.name)] = count.get((e.experiment, e.installation.name), 0) + 1
    for e in entries:
        several = count[(e.experiment, e.installation.name)] > 1
        where = e.directory.parent.name if e.directory.name == e.installation.name else e.directory.name
        e.label = f"{e.installation.name} ({where})" if several else e.installation.name
    return entries


def load_tree(paths):
    """Load every result directory below `paths`: a list of Entry sorted by experiment, then by
    library and version."""
    entries = []
    for directory in result_dirs(paths):
        rs = loader.load_dir(directory)
        entries.append(Entry(_one(rs.metas, "experiment", directory) if rs.metas else directory.name,
                             installation_of(rs.metas, directory), rs))
    for experiment in {e.experiment for e in entries}:
        disambiguate([e.installation for e in entries if e.experiment == experiment])
    label_entries(entries)
    return sorted(entries, key=lambda e: (e.experiment, e.installation.order_key()))
