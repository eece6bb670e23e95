"""A single-node SimGrid platform from measurements of the node: results in, XML out (pure: it
reads result directories' metadata and writes text; the command `collrepro-py sim platform`,
which can also measure this machine first, is python/collrepro/sim/running/make_platform.py).

The simulated node has one host per core (node-0 .. node-<cores-1>; run it with
`bench/sim/simrun --ppn 1`). A message from core i to core j crosses core i's link, the node's
shared memory (the backbone) and core j's link:

  - each core's link is the point-to-point cost the ping-pong measures: route latency and
    bandwidth from the ping-pong at several sizes (collbench's metadata: 1 B, 64 B to 64 KiB by
    powers of 4, 1 MiB, half the round trip, between ranks 0 and 1). A core's sends and receives share its
    link (SHARED): with shared-memory MPI a core copies what it sends and what it receives itself.
  - `--model piecewise` (default): SimGrid's SMPI network model with a latency and a bandwidth
    factor per size range, so that every measured ping-pong size comes back exactly (eager and
    rendezvous protocols cost differently); `alpha-beta`: one latency and one bandwidth
    (the least-squares fit of all sizes, relative residuals; SimGrid's CM02 model);
  - per-message overheads (SMPI's smpi/os, smpi/ois, smpi/or) from collbench's `callcosts` (the
    time inside MPI_Send, MPI_Isend and MPI_Recv) at the sizes where the send is buffered, the
    links fitted to the ping-pong less them (`overheads`); none where the metadata has no callcosts;
  - the datatype engine's cost per side of a non-contiguous message from collbench's `typecosts`
    (`type_cost()`): not a platform property but a charge of the simulated program, passed to
    `bench/sim/simrun --type-cost` (collrepro-py sim validate run --typecosts);
  - the backbone is the node's shared-memory copy bandwidth, shared by all its cores:
    `--copy-bw` (GB/s, all `--cores` copying at once; each message is copied twice, into the
    shared segment and out of it, so the backbone carries half of it). Without --copy-bw the
    cores share nothing (the backbone is the sum of the cores' links) and the platform says so.
    `--shared-size BYTES` sets it from collbench's `concurrent_pingpong` instead (the one-way
    time of 64 KiB to 4 MiB between every pair of ranks at once against one pair alone): the
    backbone that slows that many flows as much as the node did at messages of BYTES
    (`shared_backbone()`). A cache holds a few hundred KiB and memory the rest, so the node's
    limit depends on the size, and one platform serves the points of one size
    (`collrepro-py sim validate run --shared`).

The ping-pong comes from every meta-L*.json(.gz) under the result directories (the median per
size over all launches); the core count from the caller, else the metadata's hwloc cores. The
emulated cluster's platform (`write_cluster`) is python/collrepro/sim/platforms/cluster_platform.py's.
"""

import math
import os
import statistics

from collrepro import resultfiles, safeio
from collrepro.safeio import UserError
from collrepro.sim.platforms.cori import simgrid_prolog

META_LIMIT = 64 * safeio.MIB
COPIES_PER_MESSAGE = 2  # shared-memory MPI without a single-copy mechanism: into the segment, out of it
CALLS = ("send_s", "isend_s", "recv_s")  # collbench's callcosts: the time inside MPI_Send, MPI_Isend, MPI_Recv
SMPI_COSTS = {"send_s": "smpi/os", "isend_s": "smpi/ois", "recv_s": "smpi/or"}
# A size's call costs are per-message overheads where MPI_Send and MPI_Recv together took at most
# this share of the ping-pong's one-way time: the send returned before the message could have
# been delivered (buffered, eager), and the rest of the one-way time is the transfer, which the
# links carry. From the first size beyond it the calls wait for the transfer themselves.
EAGER_SHARE = 0.5
SMPI_DETACHED_THRESH = 65536  # SimGrid's default smpi/send-is-detached-thresh (bytes)
# The concurrent ping-pong's pairs within this factor of one pair alone show no clear shared limit:
# a margin for noise (the pairs' mean and one pair's median are separate samples), chosen, not
# measured, over which shared_backbone() blends from no limit to the measured one.
SHARED_NOISE = 1.05


# ---------------------------------------------------------------- the measurements, from result directories

def _metas(dirs):
    """Every launch's metadata file (either form) in the result directories at or under dirs."""
    files = []
    for d in dirs:
        if not os.path.isdir(d):
            raise UserError(f"{d}: not a directory of collbench results (want meta-L*.json files under it)")
        for where in resultfiles.result_dirs([d]):
            files += [path for path, _, _ in resultfiles.result_files(where, ["meta"])["meta"]]
    return sorted(files)


def _load_meta(path):
    return safeio.parse_json(resultfiles.read_text(path, META_LIMIT, "a launch's metadata"), path)


def measurements(dirs, mpi=None):
    """{pingpong: [{bytes, time_s, launches}], callcosts: [{bytes, send_s, isend_s, recv_s,
    launches}], typecosts: [{bytes, extra_s, launches}], cores, libraries, launches} from the
    metadata under dirs (of the MPI library `mpi` only, when given); per size the median over the
    launches (typecosts: of struct_s - contiguous_s)."""
    per_size, calls, types, cores, libs, launches = {}, {}, {}, [], set(), 0
    concurrent = {}  # pairs -> bytes -> [(one_pair_s, all_pairs_s)]
    for path in _metas(dirs):
        meta = _load_meta(path)
        if not isinstance(meta, dict) or meta.get("simulated") or (mpi and meta.get("mpi_impl") != mpi):
            continue
        series = meta.get("pingpong") or []
        if series:
            launches += 1
        for s in series:
            try:
                b, t = int(s["bytes"]), float(s["time_s"])
            except (KeyError, TypeError, ValueError):
                raise UserError(f"{path}: pingpong entry {safeio.excerpt(str(s))!r}: want bytes and time_s") from None
            if b > 0 and t > 0 and math.isfinite(t):
                per_size.setdefault(b, []).append(t)
        for c in meta.get("callcosts") or []:
            try:
                b, costs = int(c["bytes"]), {k: float(c[k]) for k in CALLS}
            except (KeyError, TypeError, ValueError):
                raise UserError(f"{path}: callcosts entry {safeio.excerpt(str(c))!r}: want bytes, "
                                f"{', '.join(CALLS)}") from None
            if b > 0 and all(v >= 0 and math.isfinite(v) for v in costs.values()):
                calls.setdefault(b, []).append(costs)
        for c in meta.get("typecosts") or []:
            try:
                b, extra = int(c["bytes"]), float(c["struct_s"]) - float(c["contiguous_s"])
            except (KeyError, TypeError, ValueError):
                raise UserError(f"{path}: typecosts entry {safeio.excerpt(str(c))!r}: want bytes, contiguous_s "
                                "and struct_s") from None
            if b > 0 and math.isfinite(extra):
                types.setdefault(b, []).append(extra)
        for c in meta.get("concurrent_pingpong") or []:
            try:
                b, pairs, one, every = int(c["bytes"]), int(c["pairs"]), float(c["one_pair_s"]), float(c["all_pairs_s"])
            except (KeyError, TypeError, ValueError):
                raise UserError(f"{path}: concurrent_pingpong entry {safeio.excerpt(str(c))!r}: want bytes, pairs, "
                                "one_pair_s and all_pairs_s") from None
            if b > 0 and pairs >= 2 and one > 0 and every > 0 and math.isfinite(one) and math.isfinite(every):
                concurrent.setdefault(pairs, {}).setdefault(b, []).append((one, every))
        hw = meta.get("hwloc") or {}
        if isinstance(hw, dict) and isinstance(hw.get("cores"), int):
            cores.append(hw["cores"])
        libs.add(f"{meta.get('mpi_impl', '?')} {meta.get('mpi_version', '?')}")
    series = [{"bytes": b, "time_s": statistics.median(v), "launches": len(v)} for b, v in sorted(per_size.items())]
    callcosts = [{"bytes": b, **{k: statistics.median(c[k] for c in v) for k in CALLS}, "launches": len(v)}
                 for b, v in sorted(calls.items())]
    typecosts = [{"bytes": b, "extra_s": statistics.median(v), "launches": len(v)} for b, v in sorted(types.items())]
    # The launches with the most pairs: fewer pairs at once may not reach the node's limit.
    most = max(concurrent) if concurrent else None
    shared = [{"bytes": b, "pairs": most, "one_pair_s": statistics.median(o for o, _ in v),
               "all_pairs_s": statistics.median(e for _, e in v), "launches": len(v)}
              for b, v in sorted(concurrent[most].items())] if most else []
    return {"pingpong": series, "callcosts": callcosts, "typecosts": typecosts, "concurrent": shared,
            "cores": max(cores) if cores else None, "libraries": sorted(libs), "launches": launches}


def type_cost(meas):
    """(A s, B s per byte, UPTO bytes) that each side of a non-contiguous message costs (simrun
    --type-cost), from the typecosts' one-way extra time of a struct message over a contiguous
    one: the sizes from the smallest on while the extra is positive (larger ones take another
    protocol than the contiguous message, which the platform's ping-pong already holds), a
    least-squares line through them with a slope of at least 0, halved (a send packs, a receive
    unpacks), the per-byte term up to the largest of them. None without a positive extra."""
    used = []
    for t in meas.get("typecosts") or []:
        if t["extra_s"] <= 0:
            break
        used.append((t["bytes"], t["extra_s"]))
    if not used:
        return None
    xs, ys = [b for b, _ in used], [e for _, e in used]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in used) / sxx if sxx > 0 else 0.0
    if slope <= 0:
        slope, intercept = 0.0, statistics.median(ys)
    else:
        intercept = max(0.0, my - slope * mx)
    return intercept / 2, slope / 2, float(max(xs))


def slowdowns(meas, pieces, paid=None):
    """[(bytes, k)] from collbench's concurrent_pingpong: how many times longer a message's
    transfer takes when every pair of ranks moves one at once than when one pair does, what does
    not travel left out of both (the platform's latency at that size, and `paid`: {bytes: the
    per-message overheads os + or charged at that size}): k = (all - fixed) / (one - fixed), at
    least 1. Empty without the measurement, and without a size whose transfer is positive."""
    out = []
    for c in meas.get("concurrent") or []:
        fixed = _piece_at(pieces, c["bytes"])[1] + (paid or {}).get(c["bytes"], 0.0)
        one, every = c["one_pair_s"] - fixed, c["all_pairs_s"] - fixed
        if one > 0 and every > 0:
            out.append((c["bytes"], max(1.0, every / one)))
    return out


def slowdown_at(slow, nbytes):
    """k at `nbytes`: linear in log2(bytes) between the measured sizes, the nearest one's outside."""
    if nbytes <= slow[0][0]:
        return slow[0][1]
    for (b0, k0), (b1, k1) in zip(slow, slow[1:]):
        if nbytes <= b1:
            w = (math.log2(nbytes) - math.log2(b0)) / (math.log2(b1) - math.log2(b0))
            return k0 + w * (k1 - k0)
    return slow[-1][1]


def shared_backbone(meas, pieces, bw, cores, nbytes, paid=None):
    """(backbone B/s, k, pairs) for messages of `nbytes`: the node's shared memory as SimGrid
    shares it. Each of the P pairs' flows gets min(bw, backbone / P) of its links' bandwidth (the
    size's bandwidth factor scales both alike), so the measured slow-down k needs a backbone of
    P * bw / k; never below one link (one flow alone keeps its ping-pong) nor above all cores'
    links. Pairs no slower than one (k = 1) show no limit, not one at P flows: all cores' links;
    up to SHARED_NOISE the backbone goes linearly from there to P * bw / SHARED_NOISE, so that
    neighbouring sizes get neighbouring backbones. None without the measurement (UserError where
    it is there but no size's transfer outlasts its latency)."""
    if not meas.get("concurrent"):
        return None
    slow = slowdowns(meas, pieces, paid)
    if not slow:
        raise UserError("concurrent_pingpong: no size's one-pair time exceeds the platform's latency there; "
                        "nothing to fit a shared limit from")
    pairs = meas["concurrent"][0]["pairs"]
    k = slowdown_at(slow, nbytes)
    if k < SHARED_NOISE:
        w = (k - 1.0) / (SHARED_NOISE - 1.0)
        bb = (1 - w) * bw * cores + w * pairs * bw / SHARED_NOISE
    else:
        bb = pairs * bw / k
    return min(max(bb, bw), bw * cores), k, pairs


# ---------------------------------------------------------------- the model

def alpha_beta(series):
    """(latency s, bandwidth B/s) of the relative least-squares fit t = alpha + bytes/bw."""
    from collrepro.analysis.figures.models import fit_pingpong
    alpha, beta, _ = fit_pingpong(series, "relative")
    if not (beta > 0 and math.isfinite(beta)):
        raise UserError("the ping-pong gives no positive bandwidth (times do not grow with size)")
    return max(alpha, 1e-9), 1.0 / beta


def piecewise(series):
    """Per size range [s_k, s_k+1) the line through the measured points k and k+1 (the last range
    continues the last pair's line): [(from_bytes, latency s, bandwidth B/s)]. Every measured
    size comes back exactly."""
    if len(series) < 2:
        raise UserError(f"the ping-pong has {len(series)} size(s); at least 2 are needed")
    out = []
    for a, b in zip(series, series[1:]):
        slope = (b["time_s"] - a["time_s"]) / (b["bytes"] - a["bytes"])
        if slope <= 0:  # noise: a larger message measured faster; keep the larger point's average rate
            slope = b["time_s"] / b["bytes"]
        lat = max(a["time_s"] - a["bytes"] * slope, 1e-9)
        out.append((a["bytes"], lat, 1.0 / slope))
    return out


def overheads(meas):
    """The per-message overheads SMPI charges a process (SimGrid's calibration: smpi/os, smpi/ois,
    smpi/or) from collbench's callcosts: [{bytes, send_s, isend_s, recv_s}] at the sizes where
    the send is buffered (EAGER_SHARE), smallest first; empty without callcosts. Those sizes' one-way
    time is os + transfer + or, so the links are fitted to the ping-pong less os and or."""
    pingpong = {s["bytes"]: s["time_s"] for s in meas["pingpong"]}
    out = []
    for c in meas.get("callcosts") or []:
        one_way = pingpong.get(c["bytes"])
        if one_way is None or c["send_s"] + c["recv_s"] > EAGER_SHARE * one_way:
            break  # this size and every larger one: the send waits for its transfer
        out.append({k: c[k] for k in ("bytes",) + CALLS})
    return out


def assume_overhead(meas, seconds):
    """`meas` with every ping-pong size given `seconds` inside MPI_Send, MPI_Isend and MPI_Recv,
    for a sensitivity study of a per-message cost the measurements do not hold; refused when they
    hold callcosts (those are the measurement). Only sizes below SMPI's detached-send bound (64 KiB),
    which both libraries send eagerly; overheads() keeps those where it fits."""
    if meas.get("callcosts"):
        raise UserError("--overhead: these launches' metadata hold callcosts, the measured overheads; "
                        "leave --overhead out")
    costs = [{"bytes": s["bytes"], **{k: seconds for k in CALLS}, "launches": 0} for s in meas["pingpong"]
             if s["bytes"] < SMPI_DETACHED_THRESH]  # below it both libraries send eagerly
    return dict(meas, callcosts=costs)


def smpi_cost_config(costs, key, after):
    """SMPI's piecewise value `key` (smpi/os, ...) through the measured sizes: per section
    "threshold:offset:factor" (SMPI applies a section to sizes above its threshold), from each
    measured size the line to the next one, the first section also below the first size, the
    last the last size's value, and 0 from `after` bytes on. Every measured size gets its value
    back; where a line would need a negative offset (the cost per byte rises) or fall, the
    section keeps its size's value instead."""
    sections = []
    for i, c in enumerate(costs):
        factor = 0.0
        if i + 1 < len(costs):
            nxt = costs[i + 1]
            factor = max((nxt[key] - c[key]) / (nxt["bytes"] - c["bytes"]), 0.0)
        if c[key] - factor * c["bytes"] < 0:
            factor = 0.0
        offset = c[key] - factor * c["bytes"]
        sections.append(f"{max(c['bytes'] - 1, 0) if i else 0}:{_g(offset)}:{_g(factor)}")
    sections.append(f"{max(after - 1, 0)}:0:0")
    return ";".join(sections)


def _piece_at(pieces, nbytes):
    piece = pieces[0]
    for p in pieces:
        if nbytes >= p[0]:
            piece = p
    return piece


def model_time(pieces, nbytes):
    """The modelled one-way time of a message (for the tests and the platform's comment)."""
    piece = _piece_at(pieces, nbytes)
    return piece[1] + nbytes / piece[2]


def _g(x):
    return f"{x:.6g}"


def _shared_line(nbytes, k, pairs, bb, cores):
    """The platform comment's line on a backbone from the concurrent ping-pong (shared_backbone())."""
    if k < SHARED_NOISE:
        how = (f"the backbone is {bb / 1e9:.3f} GB/s: between the {cores} cores' links together (k = 1, nothing "
               f"shared shows) and {pairs} links / {SHARED_NOISE:g} (the noise margin)")
    elif pairs / k < 1:
        how = (f"the backbone would be {pairs} links / {k:.3f}, less than one link: raised to one link "
               f"({bb / 1e9:.3f} GB/s; one flow alone keeps its ping-pong)")
    else:
        how = f"the backbone is {pairs} links / {k:.3f} = {bb / 1e9:.3f} GB/s"
    return (f"    - shared memory, for messages of {nbytes} B: {pairs} pairs of ranks moving such messages at once "
            f"took {k:.3f} times one pair's transfer time (concurrent ping-pong, latency and per-message overheads "
            f"left out, between the measured sizes linear in log2 of the size), so {how}, shared by every flow")


def platform_xml(meas, cores, copy_bw=None, model="piecewise", name="node", source="", duplex="shared",
                 shared_size=None):
    """The platform file's text. copy_bw: all cores' copy bandwidth at once (B/s) or None;
    shared_size: the backbone from the metadata's concurrent ping-pong at messages of that many
    bytes (shared_backbone()) instead."""
    series = meas["pingpong"]
    if len(series) < 2:
        raise UserError(f"{len(series)} ping-pong size(s) found; at least 2 are needed (collbench's metadata has 4)")
    if not cores or cores < 2:
        raise UserError(f"cores: {cores}; a node of at least 2 cores is needed (give --cores)")
    config = [("network/crosstraffic", "0")]
    costs = overheads(meas) if model == "piecewise" else []
    if costs:
        paid = {c["bytes"]: c["send_s"] + c["recv_s"] for c in costs}
        series = [dict(s, time_s=s["time_s"] - paid.get(s["bytes"], 0.0)) for s in series]  # > 0: EAGER_SHARE
        after = next((s["bytes"] for s in meas["pingpong"] if s["bytes"] > costs[-1]["bytes"]), costs[-1]["bytes"] + 1)
        config += [(SMPI_COSTS[k], smpi_cost_config(costs, k, after)) for k in CALLS]
        # Those sizes are eager in the simulation too: sent before the receive is posted (SMPI
        # otherwise starts a transfer only once both sides match).
        config += [("smpi/async-small-thresh", str(after))]
        if after > SMPI_DETACHED_THRESH:  # SMPI refuses an eager bound above its detached-send bound
            config += [("smpi/send-is-detached-thresh", str(after))]
    if model == "piecewise":
        pieces = piecewise(series)
        # The links: the smallest messages' latency and the largest bandwidth. SimGrid multiplies
        # them by the factor of the largest threshold below the size (size > threshold), 1 for
        # empty messages; a bandwidth factor cannot raise a flow above its links' bandwidth.
        lat, bw = pieces[0][1], max(p[2] for p in pieces)
        lat_f = ";".join(f"{max(p[0] - 1, 0)}:{_g(p[1] / lat)}" for p in pieces)
        bw_f = ";".join(f"{max(p[0] - 1, 0)}:{_g(p[2] / bw)}" for p in pieces)
        config = [("network/model", "SMPI"), ("smpi/lat-factor", lat_f), ("smpi/bw-factor", bw_f)] + config
        fit_lines = [f"      from {p[0]} B: latency {p[1] * 1e6:.3f} us, bandwidth {p[2] / 1e9:.3f} GB/s" for p in pieces]
    else:
        lat, bw = alpha_beta(series)
        pieces = [(0, lat, bw)]
        config = [("network/model", "CM02")] + config
        fit_lines = [f"      latency {lat * 1e6:.3f} us, bandwidth {bw / 1e9:.3f} GB/s (least squares, relative)"]
    shared = copy_bw is not None
    # A backbone below one flow's bandwidth would contradict the ping-pong it was measured beside
    # (a copy of large arrays runs from memory; messages of a few MiB stay in the caches): it is
    # never set below the links' bandwidth.
    bb = max(copy_bw / COPIES_PER_MESSAGE, bw) if shared else bw * cores
    clamped = shared and bb > copy_bw / COPIES_PER_MESSAGE
    paid = {c["bytes"]: c["send_s"] + c["recv_s"] for c in costs}
    if shared_size is not None:
        found = shared_backbone(meas, pieces, bw, cores, shared_size, paid)
        if found is None:
            raise UserError("--shared-size: the metadata hold no concurrent_pingpong (collbench measures it at "
                            "every launch's start on one node of 4 or more unshared cores); leave the option out")
        bb, k, pairs = found
    checks = [f"      {s['bytes']} B: measured {s['time_s'] * 1e6:.3f} us, platform "
              f"{(model_time(pieces, s['bytes']) + paid.get(s['bytes'], 0.0)) * 1e6:.3f} us "
              f"({s['launches']} launches)" for s in meas["pingpong"]]
    cost_lines = ([f"    - per-message overheads (SMPI's smpi/os, smpi/ois, smpi/or: the time inside MPI_Send, "
                   f"MPI_Isend, MPI_Recv at the sizes where send and receive take at most {EAGER_SHARE:g} of the "
                   f"one-way time; 0 from {after} B, below which a send is eager (smpi/async-small-thresh); the links "
                   f"carry the rest of the ping-pong):"]
                  + [f"      {c['bytes']} B: send {c['send_s'] * 1e6:.3f} us, isend {c['isend_s'] * 1e6:.3f} us, "
                     f"recv {c['recv_s'] * 1e6:.3f} us" for c in costs]
                  if costs else ["    - per-message overheads: none (the metadata holds no callcosts, or no size "
                                 "is buffered)"] if model == "piecewise" else [])
    copy_line = (f"    - shared memory: {copy_bw / 1e9:.3f} GB/s copied by all {cores} cores at once; two copies per "
                 f"message, so the backbone carries {bb / 1e9:.3f} GB/s of messages, shared by every flow"
                 + (" (raised to one link's bandwidth: the copy measured less than the ping-pong moved)" if clamped else "")
                 if shared else
                 _shared_line(shared_size, k, pairs, bb, cores) if shared_size is not None else
                 f"    - shared memory: not measured (no copy bandwidth given); the backbone is the {cores} cores' "
                 f"links together ({bb / 1e9:.3f} GB/s), so cores share nothing but their own link")
    lines = [
        *simgrid_prolog(),   # the XML declaration and DOCTYPE of the committed platforms
        "<!--",
        f"  {name}: one shared-memory node as a SimGrid cluster of {cores} hosts, one per core",
        "  (node-0 .. node-N; bench/sim/simrun places one rank per host by default). Generated by",
        "  `collrepro-py sim platform` (python/collrepro/sim/platforms/platform.py); do not edit.",
        f"  Measured: {source or 'this machine'}; {', '.join(meas.get('libraries') or []) or 'collbench ping-pong'}.",
        f"    - ping-pong, half the round trip, median over launches ({model} model):",
        *checks,
        f"    - the platform's links (one per core, {'sends and receives sharing it' if duplex == 'shared' else 'sends and receives each at full bandwidth'}):",
        *fit_lines,
        *cost_lines,
        copy_line,
        "  Route core i -> core j: link i, backbone, link j; the route's latency is the links' sum.",
        "-->",
        '<platform version="4.1">',
        "  <config>",
        *[f'    <prop id="{k}" value="{v}"/>' for k, v in config],
        "  </config>",
        f'  <zone id="{name}" routing="Full">',
        f'    <cluster id="{name}-cores" prefix="node-" suffix="" radical="0-{cores - 1}" speed="1Gf"',
        f'             bw="{_g(bw)}Bps" lat="{_g(lat / 2)}s" sharing_policy="{"SHARED" if duplex == "shared" else "SPLITDUPLEX"}"',
        f'             bb_bw="{_g(bb)}Bps" bb_lat="0s" bb_sharing_policy="SHARED"',
        f'             loopback_bw="{_g(bw)}Bps" loopback_lat="{_g(lat)}s"/>',
        "  </zone>",
        "</platform>",
    ]
    return "\n".join(lines) + "\n"


def write_cluster(dirs, out, name="cluster", source="", local_gbps=None, duplex_share=1.0):
    """The emulated cluster's platform from the launches under dirs (cluster_platform.py), written
    to out; returns the cluster record."""
    from collrepro.sim.platforms import cluster_platform
    record = cluster_platform.cluster_record([_load_meta(f) for f in _metas(dirs)], ", ".join(dirs))
    safeio.write_text(out, cluster_platform.platform_xml(record, name, source, local_gbps * 1e9 if local_gbps else None,
                                                         duplex_share))
    return record
