"""Writes a crossbar of multi-core nodes whose processes share the node's memory: the flat
crossbar (configs/platforms/flat-crossbar.xml) with each node opened up into its cores.

  collrepro-py sim node-memory --nodes 128 --cores 8 [--mem-gbps 34] [--nic-gbps 8]
      [--core-gbps 10] [--routes switch|pairs] -o PLATFORM.xml

Why: on the flat crossbar (and on every Cori model) the ranks of one node meet in a loopback that
SimGrid shares by nobody (FATPIPE: each intra-node flow gets 10 GB/s however many run at once),
and what arrives from the network costs the node nothing beyond its NIC. A real node moves every
byte its processes receive, from the NIC or from each other, through one memory system. Here:

  - each node is a SimGrid <cluster> n<node> whose hosts are its cores (one MPI process per host;
    simrun --ppn 1), named node-<i> with i = node * cores + core, so simrun's block order puts
    ranks 0..cores-1 on node 0, as --ppn cores does on the other platforms. The top zone's
    property collrepro/hosts-are-cores tells the simulation variant (bench/sim/node_of_core.cpp)
    to count the ranks of one cluster as one node, so the results say nodes x ppn as simulated;
  - a core's link (--core-gbps, each direction) is one process's copy rate: the crossbar's
    loopback (10 GB/s per flow);
  - the cores of a node meet in a SHARED backbone of --mem-gbps: the node's memory. An intra-node
    message crosses it once; a message between nodes crosses the sender's and the receiver's;
  - each node reaches a contention-free switch through its NIC, --nic-gbps each direction (the
    crossbar's node link: NERSC, "Cori Configuration": "~8GB/sec MPI bandwidth").
  Latencies: a core link 0.125 us each way (0.25 us inside a node, the crossbar's loopback), the
  NIC 0.375 us each way (1 us between nodes, the crossbar's alpha).

How the nodes reach each other (--routes): the switch is a router in a zone of its own, and the
top zone has two routes per node, n<i> to the switch (through nic<i> UP) and back (nic<i> DOWN);
its Floyd routing finds the one path between two nodes, n<a> -> switch -> n<b>, when SimGrid
starts. A message from a core of node a to a core of node b therefore crosses core link UP,
a's backbone, nic<a> UP, nic<b> DOWN, b's backbone, core link DOWN: the links, directions and
latencies the former file gave it with a route for every ordered pair of nodes (--routes pairs:
nodes x (nodes - 1) <zoneRoute>s, 2.8 MB at 128 nodes, 11 MB at 256, parsed and held by every
simulation). The switch adds no link of its own, so it stays contention-free, as before.
sim.node-memory-routes checks that both give the same medians; the file grows linearly in nodes.
(Loading cost and what does make the 1024 x 8 sets slow: results/sim/README.md, "The platform's size".)

--mem-gbps, and where a plausible range comes from: a Cori Haswell node has two sockets with four
DDR4-2133 channels each (NERSC, "Cori Configuration"): 8 x 17.07 GB/s = 136.5 GB/s of peak memory
bandwidth. A message copied once (single-copy transfer, read + write) costs the memory twice its
bytes, one copied twice (through a shared-memory buffer) four times: 68 and 34 GB/s of MPI bytes
per node at peak, less in practice: 8 processes on two sockets do not reach the peak, and a
Haswell node's STREAM rate is below it. 0 means no such limit (the backbone is left out): the
flat crossbar, node for node.

cori-memory (bench/sim/paper --platform cori-memory, the default) is this platform at 16 GB/s
for the run's shape: of the values swept (68, 34, 24, 16; collrepro-py sim sensitivity
--effects mem), the one that best reproduces seed 000's measured speedups at both 256 x 1 and
1024 x 8 (results/sim/README.md, "Which platform"). It is a fit inside the range the public
figures allow, at its low end, not a measured memory rate.
"""

import os
import sys

from collrepro import safeio
from collrepro.cliargs import ArgumentParser
from collrepro.sim.platforms.cori import pair_routes, simgrid_prolog
from collrepro.safeio import UserError

NIC_GBPS = 8.0
CORE_GBPS = 10.0
MEM_PEAK_GBPS = 136.5   # 2 sockets x 4 channels x DDR4-2133 (17.07 GB/s each)
CORI_MEM_GBPS = 16.0    # cori-memory (bench/sim/paper's default): chosen by results/sim/sensitivity/
CORE_LAT_US = 0.125
NIC_LAT_US = 0.375


# switch: two routes per node (the default); pairs: one per ordered node pair, the former file,
# kept as sim.node-memory-routes' reference
ROUTES = ("switch", "pairs")


def check(nodes, cores, mem_gbps, nic_gbps, core_gbps, routes="switch"):
    if routes not in ROUTES:
        raise UserError(f"--routes {routes}: use switch (two routes per node) or pairs (one per node pair)")
    if not 2 <= nodes <= 384:
        raise UserError(f"--nodes {nodes}: use 2..384 (nodes of the job; the paper sets need up to 256)")
    if not 1 <= cores <= 64:
        raise UserError(f"--cores {cores}: use 1..64 (processes per node)")
    if mem_gbps != 0 and not 1 <= mem_gbps <= 1000:
        raise UserError(f"--mem-gbps {mem_gbps:g}: use 1..1000 (GB/s of MPI bytes per node), or 0 for no limit")
    if not 0.1 <= nic_gbps <= 100 or not 0.1 <= core_gbps <= 1000:
        raise UserError("--nic-gbps and --core-gbps: use 0.1..100 and 0.1..1000 (GB/s)")


def header(nodes, cores, mem_gbps, nic_gbps, core_gbps, routes):
    mem = f"{mem_gbps:g} GB/s shared by the node's cores" if mem_gbps else "none (no backbone: the flat crossbar)"
    how = ("through one router (zone switch): two routes per node" if routes == "switch"
           else "by a route for every ordered pair of nodes (the former file, the reference)")
    return f"""
  node-memory crossbar: {nodes} nodes x {cores} cores, each core a host (node-<node * {cores} + core>),
  the cores of a node meeting in its memory, the nodes in a contention-free switch, reached
  {how}.
  GENERATED by python/collrepro/sim/platforms/node_memory.py (options nodes {nodes}, cores {cores},
  mem-gbps {mem_gbps:g}, nic-gbps {nic_gbps:g}, core-gbps {core_gbps:g}, routes {routes}); edit the generator,
  whose docstring gives the sources (peak memory bandwidth of a Cori Haswell node: {MEM_PEAK_GBPS:g} GB/s).
  Core link: {core_gbps:g} GB/s each way, {CORE_LAT_US:g} us. Node memory: {mem}.
  NIC: {nic_gbps:g} GB/s each way, {NIC_LAT_US:g} us.
"""


def nic_up(n):
    return f'<link_ctn id="nic{n}" direction="UP"/>'


def nic_down(n):
    return f'<link_ctn id="nic{n}" direction="DOWN"/>'


SWITCH_ZONE = '    <zone id="switch" routing="Full"><router id="switch-router"/></zone>'


def switch_routes(nodes):
    """The two <zoneRoute>s of each node: to the switch over its NIC's up direction, back over its
    down direction (the top zone's Floyd routing joins them)."""
    out = []
    for n in range(nodes):
        out.append(f'    <zoneRoute src="n{n}" dst="switch" gw_src="r{n}" gw_dst="switch-router" '
                   f'symmetrical="NO">{nic_up(n)}</zoneRoute>')
        out.append(f'    <zoneRoute src="switch" dst="n{n}" gw_src="switch-router" gw_dst="r{n}" '
                   f'symmetrical="NO">{nic_down(n)}</zoneRoute>')
    return out


def platform_xml(nodes, cores, mem_gbps=0.0, nic_gbps=NIC_GBPS, core_gbps=CORE_GBPS, routes="switch"):
    check(nodes, cores, mem_gbps, nic_gbps, core_gbps, routes)
    backbone = f' bb_bw="{mem_gbps:g}GBps" bb_lat="0us" bb_sharing_policy="SHARED"' if mem_gbps else ""
    switch = routes == "switch"
    out = simgrid_prolog() + [f"<!--{header(nodes, cores, mem_gbps, nic_gbps, core_gbps, routes)}-->",
                              '<platform version="4.1">',
                              f'  <zone id="node-memory" routing="{"Floyd" if switch else "Full"}">',
                              '    <prop id="collrepro/hosts-are-cores" value="yes"/>']
    for n in range(nodes):
        lo = n * cores
        out.append(f'    <cluster id="n{n}" prefix="node-" suffix="" radical="{lo}-{lo + cores - 1}" speed="36.8Gf" '
                   f'bw="{core_gbps:g}GBps" lat="{CORE_LAT_US:g}us" sharing_policy="SPLITDUPLEX"{backbone} '
                   f'router_id="r{n}"/>')
    out += [SWITCH_ZONE] if switch else []
    for n in range(nodes):
        out.append(f'    <link id="nic{n}" bandwidth="{nic_gbps:g}GBps" latency="{NIC_LAT_US:g}us" '
                   'sharing_policy="SPLITDUPLEX"/>')
    out += switch_routes(nodes) if switch else pair_routes(nodes, "n{}", "r{}", lambda a, b: nic_up(a) + nic_down(b))
    out += ["  </zone>", "</platform>", ""]
    return "\n".join(out)


def node_shape(np_, ppn):
    """(nodes, cores per node) of a job of np_ processes, ppn per node."""
    return -(-int(np_) // int(ppn)), int(ppn)


def write_for_job(path, np_, ppn, mem_gbps, routes="switch"):
    """Write (atomically) the platform for a job of np_ processes, ppn per node, and return its path."""
    nodes, cores = node_shape(np_, ppn)
    safeio.write_text(path, platform_xml(nodes, cores, mem_gbps, routes=routes))
    return path


def main(argv=None):
    ap = ArgumentParser(prog="sim node-memory", description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, required=True)
    ap.add_argument("--cores", type=int, required=True, help="processes per node (hosts per node)")
    ap.add_argument("--mem-gbps", type=float, default=0.0, help="node memory, GB/s of MPI bytes (0: no limit)")
    ap.add_argument("--nic-gbps", type=float, default=NIC_GBPS)
    ap.add_argument("--core-gbps", type=float, default=CORE_GBPS)
    ap.add_argument("--routes", choices=ROUTES, default="switch",
                    help="switch: through one router, two routes per node (default); pairs: a route per node pair")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args(argv)
    text = platform_xml(a.nodes, a.cores, a.mem_gbps, a.nic_gbps, a.core_gbps, a.routes)
    where = os.path.dirname(os.path.abspath(a.output))
    if not os.path.isdir(where):
        raise UserError(f"-o {a.output}: the directory {where} does not exist (create it first, or write elsewhere)")
    safeio.write_text(a.output, text)
    print(f"sim node-memory: wrote {a.output} ({len(text)} bytes)", file=sys.stderr)
    return 0

