"""sim platform --from-cluster: a SimGrid platform of an emulated cluster from the numbers its
launches recorded (`collrepro-py cluster`, docs/cluster.md).

    collrepro-py sim platform --from-cluster RESULT_DIR [--copy-bw GBPS] -o PLATFORM.xml

The emulated cluster is N network namespaces (nodes crc-n0 .. crc-nN-1), each joined to one
switch (a bridge) by its own link, a veth pair with a token bucket (tc tbf) at the node's rate on
each end: one for what the node sends, one for what it receives. The platform says the same: one
host per node (node-<i> stands for crc-n<i>; run it with `bench/sim/simrun --ppn C`), two links per
node (`crc-n<i>-up`, node to switch; `crc-n<i>-down`, switch to node), and the route from node i
to node j crosses i's up link and j's down link. The bridge itself has no rate and is not a link.

Every launch on the cluster records it in its metadata (the key `cluster`): the nodes and the rate
each ran at, and the fidelity check's measured bandwidth and latency between two nodes. All
launches under RESULT_DIR must agree on the nodes and rates (a cluster reshaped between them is
two platforms). The model (SimGrid's CM02: a latency and a bandwidth per link, no correction
factors): each link at its node's configured rate times the fidelity check's measured ratio (the
goodput TCP gets through the bucket, headers and acknowledgements included); the route's latency
the measured one-byte latency, half on each link. Not modelled: the token bucket's burst (two
frames, free on a link that has been idle; a lone 64 KiB message at 100 Mbit/s takes 3.9 ms where
the rate says 5.3 ms), which no per-message latency or bandwidth can carry (it would be a negative
latency, and it is granted once per idle period, not per message).

--duplex-share S (default 1): each direction's share of the rate while two nodes send to each
other at once, measured apart (results/cluster/validation/duplex.sh: one message each way at once
against one message one way). Below 1 each pair of nodes gets a link of 2 x S x the rate crossed
by both directions: one direction alone is held by the nodes' own links, two share the pair's.
(A share per node, for every flow in and out of it, was tried first: it made a ring, whose flows
in and out of a node go to different nodes, twice as slow as the cluster runs it.)

Within a node (`--cores-per-node` above 1) ranks meet in the node's shared memory, a route from
the host to itself over `crc-n<i>-local`: not measured by the cluster (the platform says so),
--copy-bw GB/s, default 10.
"""

import math
import statistics

from collrepro.safeio import UserError

DEFAULT_LOCAL_BPS = 10e9
LOCAL_LATENCY_S = 1e-6  # within a node: not measured; small against a link's


def _positive(value, what, where):
    """`value` as a finite number above 0, or one line naming it."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise UserError(f"{where}: {what} is {value!r}, not a number; the launch's `cluster` record is damaged: "
                        "re-run it with `collrepro-py cluster run`") from None
    if not (math.isfinite(x) and x > 0):
        raise UserError(f"{where}: {what} is {value!r}; want a number above 0 (a link of rate 0 carries nothing)")
    return x


def _same(values, what, where):
    first = values[0]
    for v in values[1:]:
        if v != first:
            raise UserError(f"{where}: the launches disagree on {what} ({first} and {v}); give the launches of one "
                            "cluster shape (a reshaped cluster is another platform)")
    return first


def cluster_record(metas, where):
    """{nodes: [{name, rate_bit_s}], cores_per_node, ratio, latency_s, bandwidth_bit_s, launches}
    from the launches' metadata (a list of dicts); pure."""
    records = [m.get("cluster") for m in metas if isinstance(m, dict) and not m.get("simulated")]
    records = [r for r in records if isinstance(r, dict)]
    if not records:
        raise UserError(f"{where}: no launch ran on an emulated cluster (no `cluster` in the metadata); run it "
                        "with `collrepro-py cluster run -- mpirun ...`")
    try:
        shapes = [tuple((str(n["name"]), _positive(n["rate_bit_s"], f"{n['name']}'s rate_bit_s", where))
                        for n in r["nodes"]) for r in records]
        fid = [r["fidelity"] for r in records]
        ratios = [_positive(f["ratio"], "the fidelity ratio", where) for f in fid]
        lats = [_positive(f["latency_s"], "the fidelity latency_s", where) for f in fid]
    except KeyError as e:
        raise UserError(f"{where}: a launch's `cluster` record lacks {e} (nodes with name and rate_bit_s, fidelity "
                        "with ratio and latency_s)") from None
    except TypeError:
        raise UserError(f"{where}: a launch's `cluster` record is not shaped as collbench writes it (nodes: a list of "
                        "{name, rate_bit_s}; fidelity: {ratio, latency_s}); re-run the launch with "
                        "`collrepro-py cluster run`") from None
    if not shapes[0]:
        raise UserError(f"{where}: a launch's `cluster` record lists no nodes; re-run the launch with "
                        "`collrepro-py cluster run`")
    nodes = _same(shapes, "the nodes and their rates", where)
    cpn = _same([r.get("cores_per_node", 1) for r in records], "the cores per node", where)
    if isinstance(cpn, bool) or not isinstance(cpn, int) or cpn < 1:
        raise UserError(f"{where}: cores_per_node is {cpn!r}; want a whole number of at least 1")
    names = [n for n, _ in nodes]
    if names != [f"crc-n{i}" for i in range(len(names))]:
        raise UserError(f"{where}: nodes {', '.join(names)}: want crc-n0 .. crc-n{len(names) - 1}")
    ratio = statistics.median(ratios)
    if not ratio <= 2:
        raise UserError(f"{where}: the fidelity record's ratio {ratio} is not a measurement (want 0 .. 2)")
    return {"nodes": [{"name": n, "rate_bit_s": r} for n, r in nodes], "cores_per_node": int(cpn),
            "ratio": ratio, "latency_s": statistics.median(lats),
            "bandwidth_bit_s": statistics.median(float(f.get("bandwidth_bit_s", 0)) for f in fid),
            "launches": len(records)}


def _g(x):
    return f"{x:.6g}"


def _links(record):
    """{node: (bandwidth B/s, one link's latency s)}."""
    return {n["name"]: (n["rate_bit_s"] * record["ratio"] / 8, record["latency_s"] / 2) for n in record["nodes"]}


def platform_xml(record, name="cluster", source="", local_bps=None, duplex_share=1.0):
    """The platform file's text; pure. duplex_share: what each direction of a node's link gets
    while both carry traffic, as a share of what one direction alone gets (1: the directions are
    independent, as configured; 0.5: they share one rate)."""
    from collrepro.sim.platforms.cori import simgrid_prolog
    if not (0.25 <= duplex_share <= 1):
        raise UserError(f"--duplex-share {duplex_share}: want 0.25 .. 1 (each direction's share of the rate while "
                        "both directions carry traffic)")
    links = _links(record)
    shared = duplex_share < 1
    local = local_bps or DEFAULT_LOCAL_BPS
    n = len(record["nodes"])
    hosts = [f"node-{i}" for i in range(n)]
    names = [nd["name"] for nd in record["nodes"]]
    body = [f'    <host id="{h}" speed="1Gf"/>' for h in hosts]
    for nd in record["nodes"]:
        bw, lat = links[nd["name"]]
        for end in ("up", "down"):
            body.append(f'    <link id="{nd["name"]}-{end}" bandwidth="{_g(bw)}Bps" latency="{_g(lat)}s"/>')
        body.append(f'    <link id="{nd["name"]}-local" bandwidth="{_g(local)}Bps" latency="{_g(LOCAL_LATENCY_S)}s"/>')
    if shared:
        for i in range(n):
            for j in range(i + 1, n):
                bw = 2 * duplex_share * min(links[names[i]][0], links[names[j]][0])
                body.append(f'    <link id="{names[i]}-{names[j]}" bandwidth="{_g(bw)}Bps" latency="0s"/>')
    for i, src in enumerate(hosts):
        for j, dst in enumerate(hosts):
            pair = f"{names[min(i, j)]}-{names[max(i, j)]}"
            via = ([f"{names[i]}-local"] if i == j else
                   [f"{names[i]}-up", *([pair] if shared else []), f"{names[j]}-down"])
            ctn = "".join(f'<link_ctn id="{v}"/>' for v in via)
            body.append(f'    <route src="{src}" dst="{dst}" symmetrical="NO">{ctn}</route>')
    rates = sorted({nd["rate_bit_s"] for nd in record["nodes"]})
    head = [
        *simgrid_prolog(),
        "<!--",
        f"  {name}: an emulated cluster of {n} nodes (collrepro-py cluster), node-<i> for crc-n<i>, one switch;",
        "  generated by `collrepro-py sim platform` from the cluster's launches",
        "  (python/collrepro/sim/platforms/cluster_platform.py);",
        "  do not edit.",
        f"  Measured: {source or 'the launches on the cluster'}; {record['launches']} launches' `cluster` records.",
        f"    - configured: {n} nodes, {record['cores_per_node']} core(s) each, links at "
        f"{', '.join(f'{r / 1e6:g} Mbit/s' for r in rates)}",
        f"    - fidelity check: {record['bandwidth_bit_s'] / 1e6:.1f} Mbit/s between two nodes "
        f"({record['ratio']:.4f} of the link), one-byte latency {record['latency_s'] * 1e6:.2f} us",
        f"    - each link at its node's rate x {record['ratio']:.4f} (the measured ratio); one-byte latency "
        f"{record['latency_s'] * 1e6:.2f} us per route, half on each link; SimGrid's CM02 model",
        (f"    - two nodes sending to each other at once: each direction gets {duplex_share:.3f} of the rate "
         "(measured apart); a link per pair of nodes, crc-n<i>-crc-n<j>, of 2 x that share, crossed both ways"
         if shared else "    - the two directions of a node's link independent, as configured"),
        "    - not modelled: the token bucket's burst (two frames, free on a link that has been idle)",
        f"    - within a node: {local / 1e9:g} GB/s shared memory, not measured by the cluster",
        "  Route node i -> node j: crc-n<i>-up (the node's tbf), "
        + ("the pair's link, " if shared else "") + "crc-n<j>-down (the switch port's tbf).",
        "-->",
        '<platform version="4.1">',
        "  <config>",
        '    <prop id="network/model" value="CM02"/>',
        '    <prop id="network/crosstraffic" value="0"/>',
        "  </config>",
        f'  <zone id="{name}" routing="Full">',
    ]
    return "\n".join(head + body + ["  </zone>", "</platform>"]) + "\n"
