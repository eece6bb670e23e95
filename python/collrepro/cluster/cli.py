"""`./collrepro-py cluster up|status|run|shape|down`: the emulated multi-node cluster's command line.

  up --nodes N [--cores-per-node C] [--link RATE] [--node-rate NODE=RATE ...]
        makes the cluster (plan.py, net.py), writes STATE_DIR/cluster.json, the MPI agent and
        host files (mpi.py), then runs the fidelity check (fidelity.py) and writes
        STATE_DIR/fidelity.json; a refused check, a failure halfway, SIGTERM or Ctrl-C remove
        everything made. `up` again with the same settings does nothing; other settings: `down` first.
  status  the nodes, their links and the measured fidelity (JSON with --json, whose "up" is false
        for a half-made cluster); exit 4 if none is up, or if an interrupted `up` left one half made.
  run -- CMD   CMD on the head node with the cluster's MPI environment; its exit code.
  down  removes every object with the prefix (also leftovers of a crashed `up`) and the state.

One cluster at a time on a machine: its state (STATE_DIR, machine-wide) names the clone that made it
(`owner`); `up` and `down` from another clone are refused with a line naming that clone (`down
--any` removes it anyway); `shape` too; `status` and `run` work from any clone.

Exit codes: 2 bad input (nothing made or everything removed), 4 no cluster is up (status, run),
5 no root or a tool missing (checked first), or the fidelity check refused the link.
"""

import json
import os
import sys
import time

from collrepro import safeio
from collrepro.cliargs import ArgumentParser
from collrepro.launch.launcher import Forwarder
from collrepro.safeio import EnvironmentProblem, UserError

from . import fidelity, mpi, net, slurm
from . import plan as P

STATE_DIR = os.environ.get("COLLREPRO_CLUSTER_DIR", "/run/collrepro-cluster")
CLUSTER_JSON, FIDELITY_JSON = "cluster.json", "fidelity.json"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _load(state_dir, name):
    path = os.path.join(state_dir, name)
    return safeio.load_json_file(path, 1 << 20, "the cluster's state") if os.path.exists(path) else None


def _clash(cluster):
    """Objects with the prefix that this tool's state does not account for: a clash or leftovers."""
    wanted = {P.SWITCH, *(n.name for n in cluster.nodes)}
    present = [n for n in net.namespaces() if P.owned(n)]
    return [n for n in present if n in wanted] or present


def _cluster_asked(a):
    """The plan.Cluster of `up`'s options (every option checked before anything is made)."""
    P.check_nodes(a.nodes)
    node_rates = P.parse_node_rates(a.node_rate, a.nodes)
    cluster = P.plan(a.nodes, P.parse_rate(a.link), a.cores_per_node, node_rates, os.cpu_count() or 1, a.slurm)
    if a.slurm:
        slurm.check_tools()
    return cluster


def _already_up(a, cluster):
    """True when the cluster asked for is up; a UserError when another one (or a leftover) is."""
    if _load(a.state_dir, CLUSTER_JSON) is None:
        clash = _clash(cluster)
        if clash:
            raise UserError(f"network namespace {clash[0]} exists but no cluster of this tool is up "
                            "(a leftover, or someone else's name with the prefix crc-): "
                            "run `./collrepro-py cluster down` to remove every crc- object")
        return False
    state = _need_up(a.state_dir)
    _refuse_foreign(state, "up")
    if state.get("settings") != cluster.settings():
        raise UserError("a cluster with other settings is up (./collrepro-py cluster status); "
                        "run `./collrepro-py cluster down` first")
    return True


def owner():
    """Who makes a cluster: this clone, user and process (cluster.json's `owner`). The machine has
    one cluster at a time; another clone sees whose it is and is refused with that line."""
    return {"clone": REPO, "user": os.environ.get("USER") or str(os.geteuid()), "pid": os.getpid(),
            "made_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def _foreign(state):
    """The clone that made the cluster in `state` when it is not this one, else None."""
    clone = (state or {}).get("owner", {}).get("clone")
    return clone if clone and os.path.realpath(clone) != os.path.realpath(REPO) else None


def _refuse_foreign(state, verb, force_hint=""):
    other = _foreign(state)
    if other:
        o = state["owner"]
        raise UserError(f"{verb}: the cluster that is up was made by another clone ({other}, user {o.get('user')}, "
                        f"{o.get('made_at')}); this machine holds one cluster at a time: run `./collrepro-py "
                        f"cluster down` in that clone when it is done{force_hint}")


def _make(a, cluster):
    """Namespaces, links, the MPI files and cluster.json; checks that no node has a route out."""
    os.makedirs(a.state_dir, exist_ok=True)
    net.make_switch()
    for node in cluster.nodes:
        net.make_node(a.state_dir, node)
    doc = dict(cluster.to_json(), settings=cluster.settings(), state_dir=a.state_dir, owner=owner())
    mpi.write_files(a.state_dir, doc)
    for node in doc["nodes"]:
        bad = P.routes_out(net.routes(node["name"]))
        if bad:
            raise EnvironmentProblem(f"{node['name']} has a route out of the cluster ({bad[0]}); refusing")
    safeio.write_json(os.path.join(a.state_dir, CLUSTER_JSON), doc)
    return doc


class Stopped(UserError):
    """`up` stopped by a signal after removing what it made: its own line, the signal's exit code."""

    def __init__(self, message, exit_code):
        super().__init__(message)
        self.exit_code = exit_code


def _fidelity_line(result):
    return (f"{P.format_rate(result['link_bit_s'])} link: measured {result['bandwidth_bit_s'] / 1e6:.1f} Mbit/s "
            f"({result['ratio']:.3f} of the link), latency {result['latency_s'] * 1e6:.0f} us")


def up(a):
    net.check_system()
    cluster = _cluster_asked(a)
    if _already_up(a, cluster):
        print(f"cluster: already up with these settings ({len(cluster.nodes)} nodes, "
              f"{P.format_rate(cluster.link)}); nothing to do")
        return 0
    try:  # from here on, any failure, SIGTERM or Ctrl-C removes everything made
        doc = _make(a, cluster)
        result = fidelity.measure(a.state_dir, doc, a.collbench)
        if not result["within"]:
            raise EnvironmentProblem(f"--link {a.link}: the fidelity check refused the cluster: "
                                     f"{_fidelity_line(result)}, outside +-{fidelity.TOLERANCE:.0%}; this machine "
                                     "cannot hold that link (choose a lower rate)")
        if cluster.slurm:
            slurm.start(a.state_dir, doc)
        safeio.write_json(os.path.join(a.state_dir, FIDELITY_JSON), result)  # last: the cluster is up
    except (KeyboardInterrupt, safeio.Terminated) as err:
        net.remove(a.state_dir)
        how = "interrupted (SIGINT)" if isinstance(err, KeyboardInterrupt) else "terminated (SIGTERM)"
        raise Stopped(f"up: {how}; everything it had made is removed, nothing is kept to resume: "
                      "run `./collrepro-py cluster up` again", safeio.EXIT_SIGINT if isinstance(err, KeyboardInterrupt)
                      else safeio.EXIT_SIGTERM) from None
    except BaseException:
        net.remove(a.state_dir)
        raise
    print(f"cluster: up, {len(cluster.nodes)} nodes {cluster.nodes[0].name} .. {cluster.nodes[-1].name}"
          f"{' with Slurm (./collrepro-py cluster run -- sinfo)' if cluster.slurm else ''}, "
          f"{'cores shared between nodes' if cluster.cpus_shared else f'{cluster.cores_per_node} own core(s) each'}; "
          f"fidelity: {_fidelity_line(result)}")
    print(f"cluster: {fidelity.sizes_line(result['sizes'])}")
    return 0


def _need_up(state_dir):
    """cluster.json of the cluster that is up; fidelity.json, written last, says that `up` finished."""
    state = _load(state_dir, CLUSTER_JSON)
    if state is None:
        raise UserError("no cluster is up: run `./collrepro-py cluster up --nodes N` first")
    if _load(state_dir, FIDELITY_JSON) is None:
        raise UserError("an interrupted `cluster up` left a cluster behind: run `./collrepro-py cluster down` first")
    return state


def status(a):
    state, fid = _load(a.state_dir, CLUSTER_JSON), _load(a.state_dir, FIDELITY_JSON)
    leftovers = [n for n in net.namespaces() if P.owned(n)] if os.geteuid() == 0 else []
    if a.json:
        print(json.dumps({"up": state is not None and fid is not None, "interrupted": state is not None and fid is None,
                          "cluster": state, "fidelity": fid, "namespaces": leftovers}, indent=2))
    elif state is None:
        print("cluster: none is up"
              + (f"; leftovers: {', '.join(leftovers)} (./collrepro-py cluster down)" if leftovers else ""))
    elif fid is None:  # fidelity.json is written last: `up` never finished
        print(f"cluster: an interrupted `up` left {len(state['nodes'])} nodes behind (no fidelity check was "
              "recorded); it is not usable: run `./collrepro-py cluster down`, then `up` again", file=sys.stderr)
        return safeio.EXIT_INCOMPLETE
    else:
        if _foreign(state):
            print(f"made by another clone: {state['owner']['clone']} ({state['owner'].get('made_at')})")
        for n in state["nodes"]:
            print(f"{n['name']:<8} {n['address']:<14} link {P.format_rate(n['rate_bit_s']):<8} "
                  f"cpus {','.join(map(str, n['cpus'])) or 'shared'}")
        if fid:
            print(f"fidelity: {fid['between'][0]} <-> {fid['between'][1]}: {_fidelity_line(fid)}")
            if fid.get("sizes"):
                print(f"fidelity: {fidelity.sizes_line(fid['sizes'])}")
    return 0 if state is not None and fid is not None else safeio.EXIT_INCOMPLETE


def launch_metadata(state, fid):
    """What every launch on the cluster records (collbench's metadata key `cluster`)."""
    meta = {k: state[k] for k in ("link_bit_s", "mtu", "cores_per_node", "cpus_shared")}
    meta["nodes"] = [{k: n[k] for k in ("name", "address", "rate_bit_s", "cpus")} for n in state["nodes"]]
    meta["fidelity"] = {k: fid.get(k) for k in ("bandwidth_bit_s", "latency_s", "ratio", "link_bit_s", "between",
                                                "measured_at", "sizes")} if fid else None
    return meta


def run(a):
    net.check_system()
    state = _need_up(a.state_dir)
    argv = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not argv:
        raise UserError("run: give the command after --, e.g. ./collrepro-py cluster run -- mpirun -n 4 hostname")
    fid = _load(a.state_dir, FIDELITY_JSON)
    env = mpi.environment(a.state_dir, state)
    env["COLLREPRO_CLUSTER_METADATA"] = json.dumps(launch_metadata(state, fid), separators=(",", ":"))
    with Forwarder() as fw:
        return fw.run(mpi.head_command(a.state_dir, state, argv), env=env)


def shape(a):
    """Set node links' rates on the cluster that is up (--node-rate NODE=RATE, or --reset: every
    link back at the cluster's --link), recorded in cluster.json, so that every later launch's
    metadata carries the rates it ran at. The fidelity record stays the one `up` measured."""
    net.check_system()
    state = _need_up(a.state_dir)
    _refuse_foreign(state, "shape")
    nodes = state["nodes"]
    if not a.node_rate and not a.reset:
        raise UserError("shape: give --node-rate NODE=RATE (repeatable) or --reset")
    rates = {n["name"]: int(state["link_bit_s"]) for n in nodes} if a.reset else {}
    rates.update(P.parse_node_rates(a.node_rate, len(nodes)))
    for index, node in enumerate(nodes):
        if node["name"] in rates and rates[node["name"]] != node["rate_bit_s"]:
            net.set_rate(node["name"], index, rates[node["name"]], "--node-rate")
            node.update(rate_bit_s=rates[node["name"]], burst_bytes=P.burst_bytes(rates[node["name"]]))
    safeio.write_json(os.path.join(a.state_dir, CLUSTER_JSON), state)
    print("cluster: links " + ", ".join(f"{n['name']} {P.format_rate(n['rate_bit_s'])}" for n in nodes))
    return 0


def down(a):
    net.check_system()
    if not a.any:
        _refuse_foreign(_load(a.state_dir, CLUSTER_JSON), "down",
                        ", or `./collrepro-py cluster down --any` here to remove it anyway")
    steps = net.remove(a.state_dir)
    gone = sorted({name for kind, name in steps if kind == "netns"})
    print(f"cluster: down; removed {', '.join(gone) if gone else 'nothing (none was up)'}")
    return 0


def parser():
    ap = ArgumentParser(prog="cluster", description="An emulated multi-node cluster on this machine: network "
                        "namespaces with their own hostnames, a bridge, tbf-shaped links (docs/cluster.md).")
    ap.add_argument("--state-dir", default=STATE_DIR, help=f"the cluster's state (default {STATE_DIR}, "
                    "or $COLLREPRO_CLUSTER_DIR)")
    sub = ap.add_subparsers(dest="verb", required=True)
    u = sub.add_parser("up", help="make the cluster and check its links")
    u.add_argument("--nodes", type=int, required=True, help=f"number of nodes (2 .. {P.MAX_NODES})")
    u.add_argument("--cores-per-node", type=int, default=1, help="cores a node's processes may use (own cores "
                   "where the machine has nodes x C of them, else shared; default 1)")
    u.add_argument("--link", default="1gbit", help="every node's link rate, both directions (tc words: 100mbit, "
                   "1gbit; default 1gbit)")
    u.add_argument("--node-rate", action="append", metavar="NODE=RATE",
                   help="one node's link at another rate (repeatable), e.g. crc-n1=800mbit")
    u.add_argument("--slurm", action="store_true", help="also a Slurm on the nodes: munged and slurmctld on the "
                   "head node, one slurmd per node (sinfo, sbatch, collslurm through `cluster run`)")
    u.add_argument("--collbench", default=os.path.join(REPO, "build", "openmpi", "bench", "collbench"),
                   help="the Open MPI collbench of the fidelity ping-pong (default build/openmpi's)")
    s = sub.add_parser("status", help="the nodes, links and measured fidelity")
    s.add_argument("--json", action="store_true")
    r = sub.add_parser("run", help="a command on the head node with the cluster's MPI environment")
    r.add_argument("command", nargs="...", help="-- CMD [ARGS...]")
    h = sub.add_parser("shape", help="change node links' rates on the cluster that is up (a slowed link)")
    h.add_argument("--node-rate", action="append", metavar="NODE=RATE",
                   help="one node's link at this rate, both directions (repeatable), e.g. crc-n3=80mbit")
    h.add_argument("--reset", action="store_true", help="every link back at the cluster's --link rate first")
    d = sub.add_parser("down", help="remove everything the cluster made (and leftovers with its prefix)")
    d.add_argument("--any", action="store_true", help="also when another clone made the cluster")
    return ap


def main(argv=None):
    a = parser().parse_args(argv)
    return {"up": up, "status": status, "run": run, "shape": shape, "down": down}[a.verb](a)
