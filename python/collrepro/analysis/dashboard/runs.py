"""The dashboard's runs: the result directories of one experiment measured together.

A run is the set of result directories of one experiment that share a parent directory
(results/versions/quick/<installation> is one run, results/versions/np2/quick/<installation>
another). Each installation appears once per run; when one parent holds two directories of one
installation (other process counts), the run is split by process layout. Everything a run shows
about an entry (process count, placement, oversubscription) comes from that entry's own metadata,
so two runs of one installation are never merged.
"""

import os
from dataclasses import dataclass, field
from pathlib import Path

from collrepro.analysis.figures import plotting as pl


@dataclass
class Run:
    experiment: str
    label: str                  # the parent directory below the common root, plus a layout if split
    entries: list = field(default_factory=list)
    page: str = ""              # the run's page (set by the dashboard)

    @property
    def title(self):
        return f"{self.experiment} · {self.label}" if self.label != self.experiment else self.experiment


def _values(values):
    return list(dict.fromkeys(str(v) for v in values if v not in (None, "")))


def layout(entry):
    """'N (nodes x ppn)' of the entry's launches, from its own metadata."""
    return ", ".join(_values(f"{m.get('nprocs')} ({m.get('nodes')} x {m.get('ppn')})"
                             for m in entry.rs.metas)) or "-"


def placement(entry):
    """The placements of the entry's points (data column `placement`) and its requested binding."""
    data = entry.rs.summary if len(entry.rs.summary) else entry.rs.raw
    placed = _values(data["placement"].unique()) if "placement" in data else []
    bound = _values((m.get("binding") or {}).get("requested") for m in entry.rs.metas
                    if isinstance(m.get("binding"), dict))
    text = ", ".join(placed) or "-"
    return text + (f"; binding {', '.join(bound)}" if bound else "")


def oversubscribed(entry, record):
    """The warning line of an entry that ran oversubscribed (record(meta): its oversubscription
    record, recorded or inferred), else ""."""
    return pl.oversubscription_note([dict(m, oversubscription=record(m)) for m in entry.rs.metas])


def _common_root(parents):
    try:
        return Path(os.path.commonpath([str(p.resolve()) for p in parents]))
    except ValueError:            # different drives; not on POSIX
        return None


def _parent_label(parent, root):
    if root is None:
        return str(parent)
    relative = os.path.relpath(str(parent.resolve()), str(root))
    return parent.resolve().name if relative == "." else relative


def split_runs(entries):
    """The runs of `entries` (loaded result directories), in the entries' order; each entry's
    label becomes its installation's name (unique within its run)."""
    groups = {}
    for e in entries:
        groups.setdefault((e.experiment, Path(e.directory).parent), []).append(e)
    root = _common_root([parent for _, parent in groups])
    runs = []
    for (experiment, parent), members in groups.items():
        label = _parent_label(parent, root)
        names = [e.installation.name for e in members]
        if len(set(names)) == len(names):
            runs.append(Run(experiment, label, members))
            continue
        by_layout = {}
        for e in members:
            by_layout.setdefault(layout(e), []).append(e)
        runs += [Run(experiment, f"{label}, {shape} processes", group) for shape, group in by_layout.items()]
    for run in runs:
        names = [e.installation.name for e in run.entries]
        for e in run.entries:
            e.label = e.installation.name if names.count(e.installation.name) == 1 else \
                f"{e.installation.name} ({Path(e.directory).name})"
    return runs
