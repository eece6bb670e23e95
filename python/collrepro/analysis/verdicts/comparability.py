"""Whether two sides of a comparison may be compared, decided from their metadata and data
(docs/verdicts.md, "Comparability").

Two sides are comparable when every one of these holds:
- the same machine fingerprint: the metadata's `machine` (host; CPU) and hwloc counts
  (packages, cores, PUs, NUMA nodes), where both sides record them;
- neither side oversubscribed (the metadata's `oversubscription.oversubscribed`);
- the same device class where the library reports one: MPICH's device (ch3 / ch4:ofi /
  ch4:ucx) from its identity string; Open MPI's pml / btl where the metadata record them;
- no scheduler-tick quantisation at the point on either side (`tick_bound`).

A field recorded on one side only is a reason (it cannot be checked); on neither, none.
"""

import re

import numpy as np

TICKS_S = (0.001, 0.004, 0.010)   # the scheduler ticks looked for: 1000, 250 and 100 Hz kernels
TICK_TOLERANCE = 0.02             # a value within 2 % of a tick of a whole number of ticks
TICK_SHARE = 0.6                  # ... for at least this share of the values


def _get(meta, dotted):
    value = meta
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def fingerprint(meta):
    """The machine a launch ran on, as recorded: (machine, packages, cores, PUs, NUMA), or None."""
    fields = ["machine", "hwloc.packages", "hwloc.cores", "hwloc.pus", "hwloc.numa"]
    values = tuple(_get(meta, f) for f in fields)
    return None if all(v is None for v in values) else values


def device(meta):
    """The library's device class where it reports one: 'ch3:nemesis', 'ch4:ucx', ... for MPICH
    (its identity string's 'Device:' line), 'pml=...; btl=...' for Open MPI where recorded."""
    text = str(meta.get("mpi_library") or "")
    m = re.search(r"Device:\s*([A-Za-z0-9_:]+)", text)
    if m:
        return m.group(1).lower()
    parts = []
    for key in ("pml", "btl"):
        value = meta.get(f"mpi_{key}") or _get(meta, f"mpi_installation.{key}") or \
            _get(meta, f"mpi_parameters.{key}")
        if value:
            parts.append(f"{key}={value}")
    return "; ".join(parts) or None


def oversubscribed(meta):
    return bool(_get(meta, "oversubscription.oversubscribed"))


def _one(values, what, name):
    """The single value a side records for a field; several are a reason of their own."""
    found = sorted({repr(v) for v in values if v is not None})
    return found, (f"{name}: launches differ in {what}" if len(found) > 1 else "")


def side_reasons(metas_a, metas_b, name_a="A", name_b="B"):
    """Reasons (list of str) why two sides' metadata make them not comparable; [] when none."""
    reasons = []
    for name, metas in ((name_a, metas_a), (name_b, metas_b)):
        over = [m for m in metas if oversubscribed(m)]
        if over:
            rpc = _get(over[0], "oversubscription.ranks_per_core")
            reasons.append(f"{name} oversubscribed" + (f" ({rpc:g} ranks per core)" if
                                                       isinstance(rpc, (int, float)) else ""))
    for what, fn in (("machine", fingerprint), ("device", device)):
        fa, ra = _one([fn(m) for m in metas_a], what, name_a)
        fb, rb = _one([fn(m) for m in metas_b], what, name_b)
        reasons += [r for r in (ra, rb) if r]
        if fa and fb and fa != fb:
            if what == "device":
                reasons.append(f"device {device_text(metas_a)} vs {device_text(metas_b)}")
            else:
                reasons.append("different machine")
        elif bool(fa) != bool(fb):
            reasons.append(f"{what} recorded for {name_a if fa else name_b} only")
    return reasons


def device_text(metas):
    return ",".join(sorted({device(m) or "?" for m in metas}))


def tick_share(times, ticks=TICKS_S, tolerance=TICK_TOLERANCE):
    """(largest share, tick): the largest share of `times` that are at least one tick long and
    within tolerance * tick of a whole number of ticks, over the ticks looked for."""
    t = np.asarray(times, float)
    t = t[np.isfinite(t)]
    best = (0.0, None)
    if len(t) == 0:
        return best
    for tick in sorted(ticks, reverse=True):          # the longest tick that explains a share
        k = np.round(t / tick)
        near = (k >= 1) & (np.abs(t - k * tick) <= tolerance * tick)
        share = float(np.mean(near))
        if share > best[0]:
            best = (share, tick)
    return best


def tick_bound(times, share=TICK_SHARE):
    """'' when no scheduler-tick quantisation is detected in `times` (one side's per-launch
    medians of a point), else the reason."""
    found, tick = tick_share(times)
    if tick is None or found < share:
        return ""
    return f"{found:.0%} of launch medians on multiples of {tick * 1e3:g} ms"


def point_reasons(before, after, name_a="A", name_b="B"):
    """The point-level reasons: tick quantisation on either side."""
    out = []
    for name, times in ((name_a, before), (name_b, after)):
        text = tick_bound(times)
        if text:
            out.append(f"{name} tick-bound ({text})")
    return out


def comparable(metas_a, metas_b, before=(), after=(), name_a="A", name_b="B"):
    """(comparable, reasons): whether one point's two sides may be compared."""
    reasons = side_reasons(metas_a, metas_b, name_a, name_b) + point_reasons(before, after, name_a, name_b)
    return not reasons, reasons
