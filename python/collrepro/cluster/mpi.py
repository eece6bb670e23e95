"""MPI across the cluster's nodes: the remote-shell agent, the host files and the environment.

Open MPI's mpirun and MPICH's hydra start their daemons on other nodes with a remote shell
(`AGENT [-options] HOST COMMAND...`). The cluster's agent (STATE_DIR/agent, written at `up`) is
that shell: it refuses a host that is not one of the cluster's nodes, and runs the command inside
the node's namespaces (net.enter) under `sh -c`, as rsh would. Everything else is ordinary:

  Open MPI  plm_rsh_agent = the agent, the host file STATE_DIR/hostfile (`crc-nI slots=C`),
            btl tcp,self,vader (shared memory within a node, TCP between nodes), TCP and the
            out-of-band channel only on the cluster's subnet;
  MPICH     hydra's ssh launcher with -launcher-exec the agent, STATE_DIR/hostfile.hydra
            (`crc-nI:C`), its TCP traffic on the node's interface (HYDRA_IFACE); Debian's MPICH
            is ch4:ucx, whose shared-memory transports would connect ranks of different nodes
            (UCX does not see namespaces), so UCX runs TCP only, also within a node.

A program runs with this environment on the head node (crc-n0): `cluster run -- CMD`.
"""

import os
import shlex

from collrepro import mpienv

from . import net
from . import plan as P

AGENT = "agent"
HOSTFILE = "hostfile"
HYDRA_HOSTFILE = "hostfile.hydra"


def agent_script(state_dir, cluster_json):
    """The remote-shell agent: bash, one case per node."""
    cases = []
    for node in cluster_json["nodes"]:
        cmd = " ".join(shlex.quote(w) for w in net.enter(state_dir, node, []))
        cases.append(f"  {node['name']}) exec {cmd} sh -c \"$*\" ;;")
    return "\n".join([
        "#!/bin/bash",
        "# The emulated cluster's remote shell (written by `collrepro-py cluster up`; python/collrepro/cluster/mpi.py):",
        "# AGENT [-options] HOST COMMAND... runs COMMAND with sh -c inside HOST's namespaces.",
        "while [[ ${1:-} == -* ]]; do shift; done",
        'host=${1:-}; shift || true',
        'case $host in',
        *cases,
        f'  *) echo "cluster agent: {{$host}} is not a node of the cluster ({P.node_name(0)} ..)" >&2; exit 255 ;;',
        "esac", ""])


def hostfiles(cluster_json):
    slots = cluster_json["cores_per_node"]
    names = [n["name"] for n in cluster_json["nodes"]]
    return ("".join(f"{n} slots={slots}\n" for n in names), "".join(f"{n}:{slots}\n" for n in names))


def write_files(state_dir, cluster_json):
    from collrepro import safeio
    safeio.write_text(os.path.join(state_dir, AGENT), agent_script(state_dir, cluster_json))
    os.chmod(os.path.join(state_dir, AGENT), 0o755)
    ompi, hydra = hostfiles(cluster_json)
    safeio.write_text(os.path.join(state_dir, HOSTFILE), ompi)
    safeio.write_text(os.path.join(state_dir, HYDRA_HOSTFILE), hydra)


def environment(state_dir, cluster_json, base=None):
    """The environment of a launch on the head node: both MPIs' settings for the cluster."""
    # Idle ranks yield, also on a node with its own cores: the nodes' TCP stacks run on the same
    # cores, and a packet's softirq work that a spinning rank pushes to ksoftirqd waits for the
    # next scheduler tick (the 1-byte latency was 4.0 ms at HZ=250 with one pinned core per node).
    env = mpienv.mpi_environment("openmpi", oversubscribed=True, base=base)
    env = mpienv.mpi_environment("mpich", oversubscribed=True, base=env)
    subnet = cluster_json["subnet"]
    agent = os.path.join(state_dir, AGENT)
    env.update({
        "OMPI_MCA_plm_rsh_agent": agent,
        "OMPI_MCA_orte_default_hostfile": os.path.join(state_dir, HOSTFILE),
        "OMPI_MCA_btl": "tcp,self,vader",
        "OMPI_MCA_btl_tcp_if_include": subnet,
        "OMPI_MCA_oob_tcp_if_include": subnet,
        "HYDRA_LAUNCHER": "ssh",
        "HYDRA_LAUNCHER_EXEC": agent,
        "HYDRA_HOST_FILE": os.path.join(state_dir, HYDRA_HOSTFILE),
        "HYDRA_IFACE": cluster_json["interface"],
        # MPICH here is ch4:ucx. UCX's shared-memory transports reach ranks of other nodes (its
        # machine identity ignores namespaces) and would bypass the link: TCP only, on crc0.
        "UCX_TLS": "self,tcp",
        "UCX_NET_DEVICES": cluster_json["interface"],
        "COLLREPRO_CLUSTER": os.path.join(state_dir, "cluster.json"),
    })
    if cluster_json.get("slurm"):
        env["SLURM_CONF"] = os.path.join(state_dir, "slurm", "slurm.conf")
    if cluster_json["cpus_shared"]:  # every node sees every core: binding would stack nodes' ranks on core 0
        env.setdefault("OMPI_MCA_hwloc_base_binding_policy", "none")
    return env


def head_command(state_dir, cluster_json, argv):
    """argv run on the head node (the first node)."""
    return net.enter(state_dir, cluster_json["nodes"][0], argv)
