"""simrun: run a collbench experiment in simulation (SimGrid SMPI), like bench/collrun does on
real MPI. Same configs, same CSV contract; the metadata says simulated: true and names the
platform, the SimGrid version and the network model.

  bench/sim/simrun --platform configs/platforms/cori-dragonfly.xml --np 256 [--ppn 1]
                   [--order spread] [--launches 1] [--jobs 1] [--slices S-E/T] [--out DIR]
                   [--build-dir build/smpi]
                   [--fold 4MiB] [--fill-folded] [--privatize no] CONFIG.yaml [-- collbench args...]

  --platform   SimGrid platform file (configs/platforms/*.xml; every host is named node-<i>)
  --np         simulated MPI processes
  --ppn        processes per node (default 1); rank r runs on the (r // ppn)-th node
  --order      how nodes are taken from the platform: block (default: node-0, node-1, ...;
               on the dragonfly a contiguous allocation, group by group, like Slurm on an idle
               machine) or spread (dragonfly models only: node j in group j mod G, a job scattered over
               a busy machine; consecutive ranks then sit in different groups, the worst case
               for ring-based collectives under SimGrid's minimal routing)
  --launches   separate simulations (default 1: a simulation is deterministic, so more
               launches repeat the same numbers; use 2 to check that)
  --jobs       simulations run at once (default 1). A simulation is one single-threaded
               process, so on a machine with N free cores --jobs N runs a launch N times faster:
               its points are cut into slices (collbench --slice) that run side by side, each
               writing its own files (*-L<launch>-S<slice>.*); the numbers do not change. Without
               --slices the launch is cut into --jobs slices.
  --slices     S-E/T (or S/T): run slices S..E of T (collbench --slice S/T ... E/T), at most
               --jobs at a time; e.g. --slices 0-1/8 --jobs 2 runs the first quarter of the
               points as two simulations
  --out        result directory (default results/<experiment>/smpi-<version>, as collbench)
  --build-dir  build of the `smpi` preset (default build/smpi)
  --fold       buffers of at least this many bytes are folded by SMPI's shared malloc
               (smpi/auto-shared-malloc-thresh; default 4MiB; 0 = never). Their data is garbage:
               set the config's validation_max_bytes so that validated points stay below it.
  --fill-folded  fill folded buffers (sentinel, send pattern) like any other: the slow path,
               to check that the default (folded buffers are never written: their contents are
               garbage, and writing them costs page faults, most of a large run's time) gives
               the same simulated times
  --hugepages  auto|yes|no (default auto): fold onto huge pages when a hugetlbfs is mounted with
               a free page for each of the --jobs simulations (pages another mapping reserved, or
               another simrun on this machine claimed, do not count) and vm.max_map_count is high
               enough (bench/sim/hugepages sets that up, as root): the same simulated times,
               several times less system time at scale. Otherwise 4 KiB pages, with a line
               saying why
  --privatize  yes|no (default no): SMPI global-variable privatization. collbench has no
               mutable global state, so no is safe and much lighter at 1000+ ranks.
  --coll-selector  mpich|ompi (default mpich): SimGrid's collective selector, the library whose
               algorithm choices the simulated MPI makes. mpich adds MPICH's large-message
               broadcast and Allgather ring for collbench's own calls (bench/sim/README.md) and
               the short broadcast and flat reductions below; ompi leaves every choice to
               SimGrid's Open MPI selector.
  --simgrid    auto|packaged|fast (default auto): the SimGrid library that simulates. packaged is
               Debian's; fast is the same 3.32 without its per-message list walk, built by
               `collrepro-py sim simgrid build` (python/collrepro/installations/simgrid.py): the
               same simulated times, 2.6 times faster on seed 001 setting 1 at 2048 x 32. auto takes fast when
               it is built. The metadata record which (simulation.simgrid_build, simgrid_library).
  --type-cost  A,B,UPTO (default none): charge each side of every message of a non-contiguous
               datatype A seconds plus B seconds per byte up to UPTO bytes of simulated time: the
               library's datatype engine, which SMPI does not charge (bench/sim/typecost.cpp;
               `collrepro-py sim validate` fits them from collbench's `typecosts`). Recorded in the
               metadata (simulation.type_cost)
  --dry-run    print the smpirun command and the hostfile summary, run nothing
  after --:    passed to collbench, except --slice (use --slices) (e.g. --set timing.reps=3 --set sizes=[1KiB,2KiB] --quiet);
               no spaces or quotes (smpirun passes program arguments unquoted)
The SimGrid configuration (network model, collective selector, ...) is fixed below and
recorded in the metadata; a platform file's own <config> settings (calibrated platforms,
python/collrepro/sim/platforms/platform.py) replace the defaults of the same names. Exit code: collbench's (0 ok, 2 config, 3 validation, 4 incomplete,
5 I/O), or simrun's own: 2 a bad option or platform file (checked before anything else), 5 the
smpi build or smpirun missing, 130/143 interrupted.
"""

import contextlib
import glob
import os
import shlex
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
import xml.parsers.expat

from collrepro import paths, resultfiles, safeio
from collrepro.analysis.frames.units import parse_bytes
from collrepro.cliargs import ArgumentParser
from collrepro.installations import simgrid as fast_simgrid
from collrepro.launch.launcher import Forwarder, Launcher
from collrepro.mpienv import installed_program
from collrepro.paths import checkout_only
from collrepro.safeio import EnvironmentProblem, UserError

REPO = paths.REPO

# The simulation model (recorded in every launch's metadata by collbench itself):
#   CM02: max-min bandwidth sharing with per-link latency, no TCP factors: the alpha-beta,
#         one-port model of the papers, with contention where routes share links. SMPI's own
#         default model (SMPI) multiplies in piecewise factors calibrated for TCP over Ethernet
#         (latency x11.6 above 64 KiB), which fit neither Aries nor InfiniBand.
#   crosstraffic 0: no TCP acknowledgement traffic in the reverse direction (RDMA networks).
#   simulate-computation no: only communication takes simulated time, so runs are
#         deterministic (local copies inside the algorithms are free).
#   coll-selector mpich: intra-group collectives (MPI_Allgather(v), MPI_Bcast, MPI_Gather, ...)
#         use MPICH's algorithm selection, like the papers' Cray MPICH.
SIM_CONFIG = [
    "network/model:CM02",
    "network/crosstraffic:0",
    "smpi/simulate-computation:no",
    "smpi/coll-selector:mpich",  # simrun --coll-selector replaces it (MPICH_ONLY below goes with it)
    # SimGrid's mpich selector broadcasts on any "uniform" communicator (same ppn everywhere)
    # with SMP_binomial: log2(p) times the message for large messages. MPICH itself (and the
    # papers' Cray MPICH) broadcasts messages >= 512 KiB - every broadcast of root gathering
    # here - by scatter + ring allgather (~2x the message), and short ones (< 12 KiB) by a
    # binomial tree. The setting below serves the short ones, SMPI's own included (it
    # broadcasts 4 bytes in every communicator it creates; scatter + ring would cost p^2
    # messages each); collbench's simulation variant sends its broadcasts of 12 KiB and more
    # through scatter + ring allgather (bench/sim/bcast_choice.cpp).
    "smpi/bcast:binomial_tree",
    # The selector also makes MPI_Allreduce and MPI_Reduce SMP-aware on every communicator,
    # and to learn a communicator's node layout it first runs a ring allgather over all of it
    # (SMPI's Comm::init_smp): p^2 simulated messages per communicator, minutes of start-up at
    # 1024 ranks. The only reductions here are small (the harness's, and fullduplex-allgatherv's
    # 8-byte sums), for which MPICH's flat choices are recursive doubling and a binomial tree:
    # use those. (Without a second rank on a node they are the same messages: sim.fast-path.)
    "smpi/allreduce:rdb",
    "smpi/reduce:binomial",
    "smpi/host-speed:1Gf",
    "smpi/shared-malloc:global",
]
# Folded buffers map one block of SimGrid's shared file again and again. With 4 KiB pages every
# mapping's page tables are filled page by page (most of a large run's time); on huge pages
# (hugetlbfs) 512 times fewer entries are needed. SimGrid then wants a block of one huge page.
BLOCK_4K_PAGES = "smpi/shared-malloc-blocksize:67108864"  # 64 MiB: few mappings per folded buffer
BLOCK_HUGE_PAGES = "smpi/shared-malloc-blocksize:2097152"  # one 2 MiB huge page
HUGEPAGE_MAPS = 1 << 22  # vm.max_map_count needed: a 2048-rank point maps millions of 2 MiB blocks
HUGEPAGE_SETUP = "bench/sim/hugepages (as root)"
# The settings that make the simulated MPICH's choices, dropped under --coll-selector ompi.
MPICH_ONLY = ("smpi/bcast", "smpi/allreduce", "smpi/reduce")
QUIET_LOGS = ["xbt_cfg.thresh:warning", "surf_parse.thresh:warning", "smpi_config.thresh:warning", "smpi_coll.thresh:warning"]


PLATFORM_LIMIT = 16 * safeio.MIB  # dragonfly-adaptive.xml at 64 groups (the generator's most) is ~0.6 MiB
PLATFORM_DEPTH = 64               # SimGrid platforms nest zones a few levels deep
PLATFORM_FIX = "give a SimGrid platform file (configs/platforms/*.xml)"


class _Refused(Exception):
    """Raised from inside the XML parser's callbacks; becomes one UserError line."""


def _xml_checker(depth_limit):
    """An expat parser that refuses what the platform files never hold: an internal DTD subset,
    entity declarations (entity expansion: the billion laughs), and nesting beyond depth_limit."""
    parser = xml.parsers.expat.ParserCreate()
    depth = [0]

    def doctype(name, _system_id, _public_id, internal_subset):
        if internal_subset:
            raise _Refused(f"its <!DOCTYPE {safeio.excerpt(name, 20)}> declares an internal subset; a SimGrid "
                           "platform names only the SimGrid DTD (<!DOCTYPE platform SYSTEM \"...simgrid.dtd\">)")

    def entity(name, *_):
        raise _Refused(f"it declares the entity {safeio.excerpt(name, 20)!r}; platform files use none")

    def start(_name, _attrs):
        depth[0] += 1
        if depth[0] > depth_limit:
            raise _Refused(f"elements nest deeper than {depth_limit} levels")

    def end(_name):
        depth[0] -= 1

    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = entity
    parser.UnparsedEntityDeclHandler = entity
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    return parser


def load_platform(platform):
    """The root <platform> element of a SimGrid platform file, read within PLATFORM_LIMIT bytes;
    UserError (one line naming the file, the cause and the fix) for a missing, empty, oversized,
    malformed or foreign file, and for one that declares entities or an internal DTD subset."""
    data = safeio.read_bounded(platform, PLATFORM_LIMIT, "a SimGrid platform file", binary=True)
    if not data.strip():
        raise UserError(f"{platform}: the platform file is empty; {PLATFORM_FIX}")
    try:
        _xml_checker(PLATFORM_DEPTH).Parse(data, True)
    except _Refused as err:
        raise UserError(f"{platform}: refused: {err}") from None
    except xml.parsers.expat.ExpatError as err:
        what = xml.parsers.expat.ErrorString(err.code)
        raise UserError(f"{platform}: not a well-formed XML file (line {err.lineno}, column {err.offset + 1}: "
                        f"{what}); {PLATFORM_FIX}") from None
    root = ET.fromstring(data)  # checked above: well formed, no entities, bounded depth
    if root.tag != "platform":
        raise UserError(f"{platform}: the root element is <{safeio.excerpt(root.tag, 30)}>, not <platform>; "
                        f"{PLATFORM_FIX}")
    return root


def _ints(platform, what, text, count, positive=True):
    """`count` integers of an attribute (separated by - , ; =), or UserError naming it."""
    try:
        values = [int(x) for x in text]
    except (TypeError, ValueError):
        values = []
    if len(values) != count or (positive and min(values) < 1) or min(values, default=0) < 0:
        raise UserError(f"{platform}: {what}: want {count} {'positive ' if positive else ''}whole number(s); "
                        f"{PLATFORM_FIX}")
    return values


def _dragonfly_layout(platform, cluster):
    """(groups, chassis, routers, nodes) of a dragonfly <cluster>'s topo_parameters."""
    text = cluster.get("topo_parameters") or ""
    levels = [p.strip() for p in text.split(";")]
    what = f'topo_parameters="{safeio.excerpt(text, 40)}" (want "G,L;C,L;R,L;N")'
    return tuple(_ints(platform, what, [level.split(",")[0] for level in levels[:3]] + levels[3:], 4))


def _layout_property(platform, root):
    """(groups, chassis, routers, nodes) from a <prop id="collrepro/layout"> (generated platforms,
    python/collrepro/sim/platforms/cori.py), or None."""
    for prop in root.iter("prop"):
        if prop.get("id") == "collrepro/layout":
            text = prop.get("value") or ""
            fields = dict(item.partition("=")[::2] for item in text.split(","))
            what = f'<prop id="collrepro/layout" value="{safeio.excerpt(text, 40)}"> (want groups=,chassis=,routers=,nodes=)'
            return tuple(_ints(platform, what, [fields.get(k) for k in ("groups", "chassis", "routers", "nodes")], 4))
    return None


def _host_range(platform, c):
    """(first, last) host id of a <cluster>, whose hosts must be named node-<i>."""
    if c.get("prefix") != "node-" or c.get("suffix", "") != "":
        raise UserError(f"{platform}: hosts must be named node-<i> (prefix node-, no suffix)")
    text = c.get("radical") or ""
    lo, hi = _ints(platform, f'<cluster radical="{safeio.excerpt(text, 30)}"> (want "FIRST-LAST")',
                   text.split("-"), 2, positive=False)
    if lo > hi:
        raise UserError(f"{platform}: <cluster radical=\"{text}\">: the first host id is above the last")
    return lo, hi


def cluster_of(platform):
    """The platform's hosts: (host count, topology, groups, nodes per group, layout), layout being
    (groups, chassis, routers, nodes per router) on a dragonfly model, else None. One <cluster>, or
    several of equal size (one per group) numbered contiguously from node-0."""
    root = load_platform(platform)
    clusters = root.findall(".//cluster")
    if not clusters:
        hosts = _plain_hosts(platform, root)
        return hosts, "FLAT", 1, hosts, None
    ranges = sorted(_host_range(platform, c) for c in clusters)
    if ranges[0][0] != 0 or any(b[0] != a[1] + 1 for a, b in zip(ranges, ranges[1:])):
        raise UserError(f"{platform}: the clusters' radicals must number the hosts 0, 1, ... without gaps")
    hosts = ranges[-1][1] + 1
    if hosts_are_cores(root):  # python/collrepro/sim/platforms/node_memory.py: a <cluster> per node
        if len({hi - lo for lo, hi in ranges}) != 1:
            raise UserError(f"{platform}: a platform whose hosts are cores needs nodes of equal size")
        return hosts, CORES_AS_HOSTS, len(clusters), hosts // len(clusters), None
    if len(clusters) > 1:
        if len({hi - lo for lo, hi in ranges}) != 1:
            raise UserError(f"{platform}: several <cluster>s (one per group) must have equal sizes")
        return hosts, "CLUSTER-PER-GROUP", len(clusters), hosts // len(clusters), _layout_property(platform, root)
    topology = (clusters[0].get("topology") or "FLAT").upper()
    if topology == "DRAGONFLY":
        layout = _dragonfly_layout(platform, clusters[0])
        return hosts, topology, layout[0], hosts // layout[0], layout
    return hosts, topology, 1, hosts, None


def _plain_hosts(platform, root):
    """How many hosts node-0 .. node-<N-1> a platform without a <cluster> declares one by one (the
    emulated cluster's platforms, python/collrepro/sim/platforms/cluster_platform.py)."""
    ids = sorted(int(h.get("id")[5:]) for h in root.iter("host")
                 if (h.get("id") or "").startswith("node-") and h.get("id")[5:].isdigit())
    if not ids:
        raise UserError(f"{platform}: no <cluster> and no host node-<i> found (simrun places ranks on node-<i> hosts)")
    if ids != list(range(len(ids))):
        raise UserError(f"{platform}: hosts node-<i> must be numbered 0, 1, ... without gaps")
    return len(ids)


CORES_AS_HOSTS = "CORES-AS-HOSTS"


def hosts_are_cores(root):
    """Whether the platform says its hosts are cores and its <cluster>s nodes (the node-memory
    platforms): then ranks sit one per host, and bench/sim/node_of_core.cpp counts a cluster as a node."""
    return any(prop.get("id") == "collrepro/hosts-are-cores" and prop.get("value") == "yes"
               for prop in root.iter("prop"))


def occupancy(ids, layout):
    """Which groups, chassis and routers the nodes `ids` occupy, as one line of text."""
    _, chassis, routers, nodes = layout
    router_ids = {i // nodes for i in ids}
    chassis_ids = {r // routers for r in router_ids}
    group_ids = sorted({c // chassis for c in chassis_ids})
    shown = ",".join(str(g) for g in group_ids[:8]) + (",..." if len(group_ids) > 8 else "")
    return (f"occupies {len(group_ids)} group(s) [{shown}], {len(chassis_ids)} chassis, "
            f"{len(router_ids)} router(s) ({nodes} nodes per router)")


def node_ids(n_nodes, hosts, order, groups, per_group):
    """The platform node of each of the job's n_nodes nodes (block: contiguous; spread: round
    robin over the groups)."""
    if n_nodes > hosts:
        raise UserError(f"{n_nodes} nodes needed, the platform has {hosts}")
    if order == "block" or groups == 1:
        return list(range(n_nodes))
    ids = []
    for j in range(n_nodes):
        g, slot = j % groups, j // groups
        if slot >= per_group:
            raise UserError("too many nodes for a spread placement")
        ids.append(g * per_group + slot)
    return ids


def parse_type_cost(text):
    """--type-cost A,B,UPTO -> (A, B, UPTO) as floats (None without it); exits with a message
    on anything else."""
    if text is None:
        return None
    try:
        parts = [float(x) for x in text.split(",")]
    except ValueError:
        parts = []
    if len(parts) != 3 or any(not (x >= 0 and x < float("inf")) for x in parts) or parts[0] > 1e-3 or parts[1] > 1e-6:
        raise UserError(f"--type-cost {text}: want A,B,UPTO: A seconds (0 to 1e-3) plus B seconds per byte "
                        "(0 to 1e-6) up to UPTO bytes, e.g. --type-cost 3.7e-7,6.9e-10,1024")
    return tuple(parts)


def check_passthrough(args):
    """smpirun hands the program's arguments on unquoted (word splitting and globbing), so refuse
    what would arrive changed: whitespace and quoting characters always, glob patterns only when
    they match a file here (an unmatched pattern stays as written, e.g. --set sizes=[1KiB,2KiB])."""
    for arg in args:
        if any(ch.isspace() for ch in arg) or any(ch in arg for ch in "\"'$`\\"):
            raise UserError(f"collbench argument {arg!r}: smpirun splits arguments at spaces and cannot pass "
                             "quotes, $, ` or \\; write lists without spaces (--set sizes=[1KiB,2KiB]) or put the "
                             "value in the config file")
        matches = sorted(glob.glob(arg)) if any(ch in arg for ch in "*?[") else []
        if matches:
            raise UserError(f"collbench argument {arg!r}: smpirun's shell would expand it to the file(s) "
                             f"{', '.join(matches[:3])}; run simrun from another directory or put the value in "
                             "the config file")


def _parser():
    ap = ArgumentParser(prog="simrun", add_help=False)
    ap.add_argument("--platform")
    ap.add_argument("--np", type=int)
    ap.add_argument("--ppn", type=int, default=1)
    ap.add_argument("--order", choices=["block", "spread"])
    ap.add_argument("--launches", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--slices")
    ap.add_argument("--out")
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build", "smpi"))
    ap.add_argument("--fold", default="4MiB")
    ap.add_argument("--fill-folded", action="store_true")
    ap.add_argument("--hugepages", choices=["auto", "yes", "no"], default="auto")
    ap.add_argument("--privatize", choices=["yes", "no"], default="no")
    ap.add_argument("--coll-selector", choices=["mpich", "ompi"], default="mpich")
    ap.add_argument("--simgrid", choices=["auto", "packaged", "fast"], default="auto")
    ap.add_argument("--type-cost")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("-h", "--help", action="store_true")
    ap.add_argument("config", nargs="?")
    return ap


def parse_slices(text, jobs):
    """--slices S-E/T (or S/T) -> ["S/T", ..., "E/T"]; without it, --jobs > 1 cuts the launch
    into that many slices; [None] is the whole launch in one simulation."""
    if text is None:
        return [f"{s}/{jobs}" for s in range(jobs)] if jobs > 1 else [None]
    try:
        span, total = text.split("/")
        first, _, last = span.partition("-")
        first, last, total = int(first), int(last or first), int(total)
    except ValueError:
        raise UserError(f"--slices {text}: want S-E/T or S/T (e.g. --slices 0-1/8)") from None
    if not 0 <= first <= last < total:
        raise UserError(f"--slices {text}: want 0 <= S <= E < T")
    return [f"{s}/{total}" for s in range(first, last + 1)]


META_LIMIT = 64 * safeio.MIB  # a launch's metadata (collbench writes some KiB)


def check_layout(out, launch, slices):
    """Refuse to cut a launch differently from the results already in `out`: slices would not
    see the points an unsliced run (or one cut into another number of slices) has written, and
    the directory would end up holding them twice."""
    if not out or not os.path.isdir(out):
        return
    whole = bool(glob.glob(os.path.join(out, f"meta-L{launch}.json*")))  # *.tmp: an interrupted run
    cut = set()
    for meta in glob.glob(os.path.join(out, f"meta-L{launch}-S*.json*")):
        try:
            record = safeio.parse_json(resultfiles.read_text(meta, META_LIMIT, "a launch's metadata"), meta)
        except UserError:  # damaged or unreadable: a slice all the same, of an unknown count
            record = None
        cut.add(record.get("slices") if isinstance(record, dict) else None)
    want = None if slices == [None] else int(slices[0].split("/")[1])
    have = (["whole"] if whole else []) + sorted(f"{t} slices" if t else "slices" for t in cut)
    if have and have != (["whole"] if want is None else [f"{want} slices"]):
        now = "in one simulation" if want is None else f"in {want} slices"
        raise UserError(f"--out {out} holds launch {launch} cut as {', '.join(have)}; this run would cut it "
                         f"{now} and hold its points twice: use the same --jobs/--slices as before, or another --out")


def _split_passthrough(argv):
    """simrun's own arguments, and those after `--` (for collbench)."""
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    return argv, []


def _check_programs(build_dir, simgrid="packaged"):
    """collbench of the smpi build, smpirun and the name of the SimGrid build it runs
    (`packaged`, or the fast build's directory name), or exit with what to do."""
    exe = os.path.join(build_dir, "bench", "collbench")
    if not os.path.exists(exe):
        checkout_only("simulation (an smpi build of collbench)")
        raise EnvironmentProblem(f"{exe} not found: build first (cmake --preset smpi && cmake --build --preset smpi), "
                                 "or give --build-dir")
    fast = fast_simgrid.installed() if simgrid != "packaged" else None
    if simgrid == "fast" and fast is None:
        raise EnvironmentProblem("--simgrid fast: not built; run `./collrepro-py sim simgrid build` (12 min "
                                 "on 2 cores), or use --simgrid packaged")
    if fast is not None:  # its smpirun puts its own library first (the same soname as Debian's)
        return exe, os.path.join(fast, "bin", "smpirun"), os.path.basename(fast)
    smpirun = installed_program("smpi")
    if not os.path.exists(smpirun):
        raise EnvironmentProblem(f"{smpirun} not found: install libsimgrid-dev (./collrepro deps)")
    return exe, smpirun, "packaged"


class Placement:
    """Which platform node each simulated rank runs on, and the one-line description of it."""

    def __init__(self, platform, np, ppn, order):
        hosts, topology, groups, per_group, layout = cluster_of(platform)
        self.np, self.ppn = np, ppn
        n_nodes = -(-np // ppn)
        if topology == CORES_AS_HOSTS:
            if ppn != 1 or order != "block":
                raise UserError(f"--ppn {ppn} --order {order}: {platform}'s hosts are cores ({per_group} per node): "
                                "give --ppn 1 --order block (one rank per core; the platform sets the node size)")
            self.ids = node_ids(n_nodes, hosts, order, 1, hosts)
            self.text = (f"{np} ranks, one per core, on {-(-np // per_group)} nodes x {per_group} cores "
                         f"(a platform whose hosts are cores)")
            return
        self.ids = node_ids(n_nodes, hosts, order, groups, per_group)
        self.text = f"{np} ranks on {n_nodes} nodes x {ppn} ppn, {order} order over {groups} group(s) of {topology}"
        if layout:
            self.text += "; " + occupancy(self.ids, layout)

    def write_hostfile(self):
        """A temporary hostfile, one line per rank; the caller removes it."""
        hostfile = tempfile.NamedTemporaryFile("w", prefix="simrun-hosts-", suffix=".txt", delete=False)
        with hostfile:
            for r in range(self.np):
                hostfile.write(f"node-{self.ids[r // self.ppn]}\n")
        return hostfile.name


def _read(path, default=""):
    try:
        with open(path) as fh:
            return fh.read()
    except OSError:
        return default


def hugepage_mount(pages=1, claimed=0):
    """A hugetlbfs mount of 2 MiB pages with `pages` pages free beyond the `claimed` ones, when
    vm.max_map_count allows the many mappings of huge-page folding: (directory, None), or (None,
    why not). Free means neither in use nor reserved by another mapping (HugePages_Rsvd)."""
    mounts = [line.split() for line in _read("/proc/mounts").splitlines()]
    dirs = [m[1] for m in mounts if len(m) > 3 and m[2] == "hugetlbfs" and "pagesize=1024M" not in m[3]]
    info = {line.split(":")[0]: line.split()[1] for line in _read("/proc/meminfo").splitlines() if ":" in line}
    free = int(info.get("HugePages_Free", 0)) - int(info.get("HugePages_Rsvd", 0)) - claimed
    maps = int(_read("/proc/sys/vm/max_map_count", "0").strip() or 0)
    if not dirs:
        return None, "no hugetlbfs mounted"
    if free < pages:
        held = f", {claimed} claimed by other simulations running here" if claimed else ""
        return None, (f"{max(free, 0)} free huge page(s){held}, {pages} needed (one per simulation "
                      "running at once; vm.nr_hugepages)")
    if maps < HUGEPAGE_MAPS:
        return None, f"vm.max_map_count is {maps}, below {HUGEPAGE_MAPS}"
    return dirs[0], None


# Simulations that share the machine (another clone's, a Slurm node's other task) claim their
# huge pages here: between simrun's look at /proc/meminfo and smpimain's mapping of its page,
# another simulation could take the page, and SMPI aborts ("Could not map folded virtual memory").
# A claim is a file named by the claiming process holding its page count, share-locked while it
# lives; the look and the claim happen under one exclusive lock. A dead claimer's lock is gone,
# and its file is removed by the next look. Counting a claim whose pages are already mapped twice
# (in the claim and as pages no longer free) only errs toward 4 KiB pages.
HUGEPAGE_CLAIMS = os.path.join(tempfile.gettempdir(), "collrepro-hugepages")


def _live_claims(folder):
    """The pages claimed by living simruns (their files share-locked); dead claims removed."""
    import fcntl
    total = 0
    for name in os.listdir(folder):
        if not name.endswith(".claim"):
            continue
        path = os.path.join(folder, name)
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                os.unlink(path)  # nobody holds it: its simrun is gone
                continue
            except BlockingIOError:
                pass
            text = os.read(fd, 32).decode("ascii", "replace").strip()
            total += int(text) if text.isdigit() else 0
        finally:
            os.close(fd)
    return total


class HugepageClaim:
    """The folded buffers' SimGrid settings for --hugepages auto|yes|no and `jobs` simulations at
    once, with the pages claimed for as long as the object is open (a context manager)."""

    def __init__(self, hugepages, jobs, folder=HUGEPAGE_CLAIMS):
        self.hugepages, self.jobs, self.folder = hugepages, jobs, folder
        self.fd = None

    def __enter__(self):
        if self.hugepages == "no":
            return [BLOCK_4K_PAGES], "folded buffers on 4 KiB pages (--hugepages no)"
        import fcntl
        os.makedirs(self.folder, mode=0o1777, exist_ok=True)
        lock = os.open(os.path.join(self.folder, "lock"), os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            where, why_not = hugepage_mount(self.jobs, _live_claims(self.folder))
            if where:
                path = os.path.join(self.folder, f"{os.getpid()}.claim")
                self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o666)
                fcntl.flock(self.fd, fcntl.LOCK_SH)
                os.write(self.fd, str(self.jobs).encode())
                self.path = path
        finally:
            os.close(lock)
        if where:
            return ([BLOCK_HUGE_PAGES, f"smpi/shared-malloc-hugepage:{where}"],
                    f"folded buffers on huge pages ({where}; {self.jobs} claimed)")
        if self.hugepages == "yes":
            raise UserError(f"--hugepages yes: {why_not}; set them up with {HUGEPAGE_SETUP}")
        return [BLOCK_4K_PAGES], (f"folded buffers on 4 KiB pages ({why_not}; {HUGEPAGE_SETUP} makes large "
                                  "runs faster)")

    def __exit__(self, *exc):
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            os.close(self.fd)
            self.fd = None
        return False


def platform_config(platform):
    """The <config><prop id=... value=.../></config> settings of a platform file, as "key:value"
    strings in file order (a calibrated platform carries its network model there)."""
    root = load_platform(platform)
    out = []
    for config in root.findall("config"):
        for prop in config.findall("prop"):
            key, value = prop.get("id") or "", prop.get("value") or ""
            if not key or any(ch in key + value for ch in " \t\n\"'$`\\"):
                raise UserError(f"{platform}: <config> <prop id={safeio.excerpt(key, 30)!r}>: want an id and a value "
                                f"without spaces or quotes; {PLATFORM_FIX}")
            out.append(f"{key}:{value}")
    return out


def sim_config(selector="mpich", platform_cfg=()):
    """SIM_CONFIG for a collective selector, with the platform's own settings replacing the
    defaults of the same keys."""
    cfg = [c.replace("smpi/coll-selector:mpich", f"smpi/coll-selector:{selector}") for c in SIM_CONFIG]
    if selector != "mpich":
        cfg = [c for c in cfg if c.split(":")[0] not in MPICH_ONLY]
    keys = {c.split(":")[0] for c in platform_cfg}
    return [c for c in cfg if c.split(":")[0] not in keys] + list(platform_cfg)


def smpirun_flags(hostfile, platform, fold, privatize, folding=(BLOCK_4K_PAGES,), config=None):
    """smpirun's options before the program: hosts, platform, privatization, the model, logs."""
    config = SIM_CONFIG if config is None else config
    cfgs = [f"--cfg={c}" for c in list(config) + list(folding) + [f"smpi/auto-shared-malloc-thresh:{fold}"]]
    logs = [f"--log={name}" for name in QUIET_LOGS]
    priv = [] if privatize == "yes" else ["-no-privatize"]
    return ["-hostfile", hostfile, "-platform", platform] + priv + cfgs + logs


def shown_path(path):
    """A path relative to the repository when it lies inside, else as given."""
    rel = os.path.relpath(path, REPO)
    return rel if not rel.startswith("..") else path


def _run_launches(a, launcher, exe, passthrough, placement, env, hostfile):
    """Run (or with --dry-run only print) the launches, each as one simulation per slice, --jobs
    at a time; returns the exit code."""
    slices = parse_slices(a.slices, a.jobs)
    out = ["--out", a.out] if a.out else []
    with Forwarder(groups=True) as fwd:  # smpirun forwards a signal but does not wait for smpimain
        for launch in range(a.launches):
            check_layout(a.out, launch, slices)
            cmds = []
            for sl in slices:
                piece = ["--slice", sl] if sl else []
                cmds.append(launcher.command(a.np, [exe, os.path.abspath(a.config), "--launch", str(launch)] + piece
                                             + out + passthrough))
            print(f"simrun: launch {launch} of {a.launches}: {placement.text}", file=sys.stderr)
            for cmd in cmds:
                print("simrun: " + " ".join(shlex.quote(c) for c in cmd).replace(hostfile, "<hostfile>"), file=sys.stderr)
            if a.dry_run:
                continue
            t0 = time.time()

            def ended(i, code):
                what = f"slice {slices[i]} of launch {launch}" if slices[i] else f"launch {launch}"
                print(f"simrun: {what} finished with code {code} after {time.time() - t0:.1f} s of wall time",
                      file=sys.stderr)

            codes = fwd.run_all(cmds, env, jobs=a.jobs, on_exit=ended)
            if fwd.received is not None:
                return fwd.interrupt_code()
            rc = next((c for c in codes if c), 0)
            if rc != 0:
                return rc
    return 0


def _check_options(a, passthrough):
    """Everything simrun can check without the build: options, the platform file, the placement.
    Returns (platform path, placement, fold bytes)."""
    missing = [o for o, v in (("--platform", a.platform), ("--np", a.np), ("CONFIG.yaml", a.config)) if v is None]
    if missing:
        raise UserError(f"{', '.join(missing)} required (bench/sim/simrun --help shows the options)")
    check_passthrough(passthrough)
    if a.np < 1 or a.ppn < 1 or a.jobs < 1 or a.launches < 1:
        raise UserError("--np, --ppn, --jobs and --launches must be positive")
    if "--slice" in passthrough and (a.jobs > 1 or a.slices):
        raise UserError("collbench's --slice and simrun's --jobs/--slices both cut the points: "
                        "give the slices to simrun (--slices S-E/T)")
    parse_slices(a.slices, a.jobs)
    parse_type_cost(a.type_cost)
    if not os.path.isfile(a.config):
        raise UserError(f"{a.config}: no such config file")
    platform = os.path.abspath(a.platform)
    placement = Placement(platform, a.np, a.ppn, a.order or "block")
    return platform, placement, parse_bytes(a.fold)


def main(argv=None):
    """bench/sim/simrun: parse the command line, write the hostfile, run smpirun per launch.
    Raises UserError (exit 2) / EnvironmentProblem (exit 5); run it through safeio.run_cli."""
    argv = sys.argv[1:] if argv is None else argv
    argv, passthrough = _split_passthrough(argv)
    a = _parser().parse_args(argv)
    if a.help:
        print(__doc__)
        return 0
    platform, placement, fold = _check_options(a, passthrough)  # before the build: no SimGrid needed
    exe, smpirun, simgrid = _check_programs(a.build_dir, a.simgrid)
    print(f"simrun: SimGrid: {simgrid} ({smpirun})", file=sys.stderr)
    env = dict(os.environ)
    env["COLLREPRO_SIM_SIMGRID"] = simgrid
    env["COLLREPRO_SIM_PLATFORM"] = shown_path(platform)
    env["COLLREPRO_SIM_PLACEMENT"] = placement.text
    env["COLLREPRO_SIM_COMMAND"] = " ".join(sys.argv)
    env["COLLREPRO_SIM_FILL_FOLDED"] = "1" if a.fill_folded else "0"
    env["COLLREPRO_SIM_MPICH_CHOICES"] = "1" if a.coll_selector == "mpich" else "0"
    env.pop("COLLREPRO_SIM_TYPE_COST", None)
    if a.type_cost:
        env["COLLREPRO_SIM_TYPE_COST"] = ",".join(f"{x:.6g}" for x in parse_type_cost(a.type_cost))
    config = sim_config(a.coll_selector, platform_config(platform))
    with HugepageClaim(a.hugepages, 1 if a.dry_run else a.jobs) as (folding, note):
        print(f"simrun: {note}", file=sys.stderr)
        hostfile = placement.write_hostfile()
        try:
            flags = smpirun_flags(hostfile, platform, fold, a.privatize, folding, config)
            launcher = Launcher("smpi", program=smpirun, flags=flags)
            return _run_launches(a, launcher, exe, passthrough, placement, env, hostfile)
        finally:
            os.unlink(hostfile)

