"""The emulated cluster's plan: names, addresses, link rates and the cleanup, without touching the system.

Everything here is pure (tests/python/test_cluster_plan.py checks it without root); net.py carries
it out. One cluster exists at a time and every object it makes carries the prefix PREFIX:

  network namespaces   crc-sw (the switch: the bridge crc-br, one port crc-pI per node)
                       crc-n0 .. crc-n{N-1} (the nodes; hostname = namespace name)
  links                crc-pI (switch side) and crc0 (node side) of node I's veth pair, created
                       inside the switch namespace with the peer put straight into the node: no
                       interface of the tool ever exists in the host's namespace
  qdiscs               tbf on crc0 (node -> switch, the uplink) and on crc-pI (switch -> node,
                       the downlink): a full-duplex link of the node's rate
  UTS namespaces       files STATE_DIR/uts/crc-nI, bind mounts of each node's UTS namespace
  processes            whatever runs in a node's namespace (found by `ip netns pids`)

Addresses: node I is 198.18.0.(I+1)/24, inside 198.18.0.0/15, the block RFC 2544 reserves for
benchmarking; no address on the bridge, no default route, no route to anything else.
"""

import ipaddress
import re
from dataclasses import dataclass, field

from collrepro.safeio import UserError

PREFIX = "crc-"
SWITCH = PREFIX + "sw"
BRIDGE = PREFIX + "br"
NODE_IF = "crc0"  # the node's end of its veth pair (inside the node's namespace)
BENCHMARK_BLOCK = ipaddress.ip_network("198.18.0.0/15")  # RFC 2544
SUBNET = ipaddress.ip_network("198.18.0.0/24")
MAX_NODES = 64
MTU = 9000  # jumbo frames: TCP/IP headers are 0.7 % of a frame, so goodput is close to the link rate
# The token bucket holds this long at the link's rate (at least two frames): the burst a sender
# may send above the rate, small against the 1 MiB ping-pong that measures the rate.
BURST_S = 200e-6
FRAME_BYTES = MTU + 14
QUEUE_LATENCY = "50ms"  # tbf's queue: packets waiting longer are dropped (TCP backs off)
# The slowest and fastest link accepted: the fidelity ping-pong moves 1 MiB 16 times (a few
# seconds at 10 Mbit/s); above 100 Gbit/s tbf's arithmetic and this machine are both out of range.
MIN_RATE = 10e6
MAX_RATE = 100e9

_UNITS = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "tbit": 1e12,
          "bps": 8, "kbps": 8e3, "mbps": 8e6, "gbps": 8e9, "tbps": 8e12}
_RATE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]+)\s*$")


def parse_rate(text, option="--link"):
    """A rate in tc's words (1gbit, 100mbit, 12.5mbps = bytes) -> bits per second."""
    m = _RATE.match(str(text).lower())
    if not m or m.group(2) not in _UNITS:
        raise UserError(f"{option} {text!r}: not a rate; write a number and a unit of tc's: "
                        f"{', '.join(_UNITS)} (e.g. 1gbit, 100mbit)")
    bits = float(m.group(1)) * _UNITS[m.group(2)]
    if not MIN_RATE <= bits <= MAX_RATE:
        raise UserError(f"{option} {text!r}: {format_rate(bits)} is outside {format_rate(MIN_RATE)} .. "
                        f"{format_rate(MAX_RATE)}; choose a rate in that range")
    return bits


def format_rate(bits):
    """bits/s -> tc's words, exact when the rate is a whole number of the unit (1gbit, 2500kbit)."""
    for unit, scale in (("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3)):
        if bits >= scale and float(bits / scale).is_integer():
            return f"{int(bits / scale)}{unit}"
    return f"{int(round(bits))}bit"


def node_name(i):
    return f"{PREFIX}n{i}"


def switch_port(i):
    return f"{PREFIX}p{i}"


def address(i):
    """Node i's address (no prefix length)."""
    return str(SUBNET.network_address + 1 + i)


def burst_bytes(rate):
    return max(2 * FRAME_BYTES, int(rate / 8 * BURST_S))


def tbf_args(rate):
    """The tbf qdisc's words after `tc qdisc replace dev DEV root`."""
    return ["tbf", "rate", f"{int(rate)}bit", "burst", str(burst_bytes(rate)), "latency", QUEUE_LATENCY]


@dataclass
class Node:
    name: str
    index: int
    address: str
    rate: float            # bits/s, both directions of the node's link
    cpus: list = field(default_factory=list)  # the cores its processes may use ([]: all, shared)


@dataclass
class Cluster:
    nodes: list
    link: float            # the configured --link (bits/s)
    cores_per_node: int
    cpus_shared: bool      # fewer cores than nodes x cores-per-node: nodes share the machine's cores
    slurm: bool = False    # a Slurm on the nodes (slurm.py)

    def settings(self):
        """What decides whether an existing cluster is the one asked for (`up` twice)."""
        return {"nodes": len(self.nodes), "link": self.link, "cores_per_node": self.cores_per_node,
                "rates": {n.name: n.rate for n in self.nodes}, "slurm": self.slurm}

    def to_json(self):
        return {"prefix": PREFIX, "switch": SWITCH, "bridge": BRIDGE, "interface": NODE_IF,
                "subnet": str(SUBNET), "mtu": MTU, "link_bit_s": self.link,
                "cores_per_node": self.cores_per_node, "cpus_shared": self.cpus_shared, "slurm": self.slurm,
                "nodes": [{"name": n.name, "address": n.address, "rate_bit_s": n.rate, "cpus": n.cpus,
                           "burst_bytes": burst_bytes(n.rate)} for n in self.nodes]}


def parse_node_rates(items, nodes):
    """--node-rate NAME=RATE (repeatable): one node's link at another rate -> {name: bits/s}."""
    out = {}
    for item in items or []:
        name, sep, rate = str(item).partition("=")
        if not sep:
            raise UserError(f"--node-rate {item!r}: write NODE=RATE, e.g. {node_name(1)}=800mbit")
        if name not in {node_name(i) for i in range(nodes)}:
            raise UserError(f"--node-rate {item!r}: no node {name!r}; the nodes are "
                            f"{node_name(0)} .. {node_name(nodes - 1)}")
        out[name] = parse_rate(rate, f"--node-rate {name}=")
    return out


def check_nodes(nodes):
    if not isinstance(nodes, int) or not 2 <= nodes <= MAX_NODES:
        raise UserError(f"--nodes {nodes}: a cluster has 2 .. {MAX_NODES} nodes")


def plan(nodes, link, cores_per_node=1, node_rates=None, machine_cpus=1, slurm=False):
    """The cluster `up` makes: N nodes at `link` bits/s (node_rates overriding), C cores each
    (disjoint cores where the machine has N x C of them, else every node may use every core)."""
    check_nodes(nodes)
    if not isinstance(cores_per_node, int) or cores_per_node < 1:
        raise UserError(f"--cores-per-node {cores_per_node}: give a whole number of at least 1")
    shared = nodes * cores_per_node > machine_cpus
    rates = node_rates or {}
    out = []
    for i in range(nodes):
        cpus = [] if shared else list(range(i * cores_per_node, (i + 1) * cores_per_node))
        out.append(Node(node_name(i), i, address(i), rates.get(node_name(i), link), cpus))
    return Cluster(out, link, cores_per_node, shared, slurm)


# ------------------------------------------------------------------ finding what is ours

def owned(name):
    return str(name).startswith(PREFIX)


def cleanup_plan(namespaces, host_links, mounts, state_dir):
    """What `down` removes, from what the system shows: [(kind, name)] in the order to remove it.

    namespaces  the names `ip netns list` gives; host_links the interface names of the host's own
                namespace; mounts the mount points of /proc/self/mountinfo. Only names with the
                prefix (and mounts under STATE_DIR/uts) are touched; the nodes go before the switch.
    """
    uts_dir = str(state_dir).rstrip("/") + "/uts/"
    ours = sorted((n for n in namespaces if owned(n)), key=lambda n: (n == SWITCH, n))
    steps = [("processes", n) for n in ours]
    steps += [("netns", n) for n in ours]
    steps += [("link", n) for n in sorted(host_links) if owned(n)]
    steps += [("mount", m) for m in sorted(mounts) if m.startswith(uts_dir)]
    return steps


def routes_out(routes):
    """The routes (from `ip -j route` in a node, as dicts) that lead anywhere but the cluster's
    subnet: a default route, a gateway, or a destination outside 198.18.0.0/15."""
    bad = []
    for r in routes:
        dst = r.get("dst", "")
        if dst == "default" or r.get("gateway"):
            bad.append(r)
            continue
        try:
            net = ipaddress.ip_network(dst, strict=False)
        except ValueError:
            bad.append(r)
            continue
        if net.version != 4 or not net.subnet_of(BENCHMARK_BLOCK):
            bad.append(r)
    return bad
