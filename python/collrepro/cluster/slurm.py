"""A real multi-node Slurm on the emulated cluster: munged and slurmctld on the head node, one
slurmd per node, each in its node's namespaces, on the cluster's addresses only.

The daemons run inside the nodes, so `down` stops them with everything else (net.remove), and
the commands (sinfo, sbatch, collslurm) reach the controller only from a node: `cluster run --
sinfo`. The configuration follows tests/slurm/local_slurm.sh (no cgroups, select/linear, munge on
its own socket and key), with one NodeName per node at its address and CPUs = --cores-per-node.
The daemons listen on any address, which inside a node is only its own (lo and crc0); binding a
named address would need the names in /etc/hosts. Everything is under STATE_DIR/slurm.
"""

import contextlib
import os
import subprocess
import time

from collrepro import safeio
from collrepro.safeio import EnvironmentProblem

from . import net

TOOLS = ("munged", "slurmctld", "slurmd", "sinfo")
CTLD_PORT, SLURMD_PORT = 6817, 6818  # every node has its own network namespace: no clash
IDLE_WAIT_S = 60


def folder(state_dir):
    return os.path.join(state_dir, "slurm")


def conf_path(state_dir):
    return os.path.join(folder(state_dir), "slurm.conf")


def config(d, cluster_json):
    """slurm.conf for the cluster's nodes; pure."""
    head = cluster_json["nodes"][0]
    lines = [
        "# Written by `collrepro-py cluster up --slurm` (python/collrepro/cluster/slurm.py).",
        "ClusterName=collrepro-emulated",
        f"SlurmctldHost={head['name']}({head['address']})",
        f"SlurmctldPort={CTLD_PORT}", f"SlurmdPort={SLURMD_PORT}",
        "SlurmUser=root", "SlurmdUser=root",
        "AuthType=auth/munge", "CredType=cred/munge", f"AuthInfo=socket={d}/munge/munge.socket",
        f"StateSaveLocation={d}/state", f"SlurmdSpoolDir={d}/spool/%n",
        f"SlurmctldPidFile={d}/run/slurmctld.pid", f"SlurmdPidFile={d}/run/slurmd-%n.pid",
        f"SlurmctldLogFile={d}/log/slurmctld.log", f"SlurmdLogFile={d}/log/slurmd-%n.log",
        "SlurmctldDebug=info", "SlurmdDebug=info", f"TmpFS={d}/tmp",
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none", "JobCompType=jobcomp/none", "SwitchType=switch/none",
        "MpiDefault=none", "SelectType=select/linear", "SchedulerType=sched/builtin", "ReturnToService=2",
        "MailProg=/bin/true", "KillWait=5", "MinJobAge=600", "MaxArraySize=1001",
    ]
    cpus = cluster_json["cores_per_node"]
    for n in cluster_json["nodes"]:
        lines.append(f"NodeName={n['name']} NodeHostname={n['name']} NodeAddr={n['address']} CPUs={cpus} "
                     "RealMemory=1024 State=UNKNOWN")
    names = ",".join(n["name"] for n in cluster_json["nodes"])
    lines.append(f"PartitionName=cluster Nodes={names} Default=YES MaxTime=INFINITE State=UP")
    return "\n".join(lines) + "\n"


def check_tools():
    import shutil
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        raise EnvironmentProblem(f"--slurm: {', '.join(missing)} not found: apt-get install slurm-wlm munge")


def _daemon(state_dir, node, argv, log):
    """Start argv inside node, detached (its own session), output to log; with the host's /sys,
    where slurmd finds the cgroup file system it insists on."""
    with open(log, "ab") as out:
        subprocess.Popen(net.enter(state_dir, node, argv, own_sys=False), stdin=subprocess.DEVNULL, stdout=out,
                         stderr=subprocess.STDOUT, start_new_session=True)


def _in_head(state_dir, cluster_json, argv, timeout=10):
    env = dict(os.environ, SLURM_CONF=conf_path(state_dir))
    return subprocess.run(net.enter(state_dir, cluster_json["nodes"][0], argv), env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)


def start(state_dir, cluster_json):
    """munged and slurmctld on the head node, slurmd on every node; returns when all are idle."""
    check_tools()
    d = folder(state_dir)
    for sub in ("munge", "state", "spool", "run", "log", "tmp"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    os.chmod(d, 0o755)  # munged wants every folder above its socket searchable
    key = os.path.join(d, "munge", "munge.key")
    with open(key, "wb") as f:
        f.write(os.urandom(1024))
    os.chmod(key, 0o400)
    safeio.write_text(conf_path(state_dir), config(d, cluster_json))
    head = cluster_json["nodes"][0]
    _daemon(state_dir, head, ["munged", "--foreground", "--force", f"--socket={d}/munge/munge.socket",
                              f"--key-file={key}", f"--pid-file={d}/munge/munged.pid",
                              f"--log-file={d}/log/munged.log", f"--seed-file={d}/munge/munged.seed"],
            os.path.join(d, "log", "munged.out"))
    _wait(lambda: os.path.exists(f"{d}/munge/munge.socket"), 10, "munged did not start", d)
    _daemon(state_dir, head, ["slurmctld", "-D", "-f", conf_path(state_dir)], os.path.join(d, "log", "slurmctld.out"))
    for n in cluster_json["nodes"]:
        os.makedirs(os.path.join(d, "spool", n["name"]), exist_ok=True)
        _daemon(state_dir, n, ["slurmd", "-D", "-N", n["name"], "-f", conf_path(state_dir)],
                os.path.join(d, "log", f"slurmd-{n['name']}.out"))
    want = len(cluster_json["nodes"])

    def idle():
        proc = _in_head(state_dir, cluster_json, ["sinfo", "-h", "-N", "-o", "%N %T"])
        states = [line.split()[-1] for line in proc.stdout.splitlines() if line.strip()]
        return proc.returncode == 0 and len(states) == want and all(s == "idle" for s in states)
    _wait(idle, IDLE_WAIT_S, f"the {want} slurmd did not all become idle", d)


def _wait(ready, seconds, what, d):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if ready():
            return
        time.sleep(0.5)
    last = ""
    for name in ("slurmctld.log", "munged.log"):
        with contextlib.suppress(OSError), open(os.path.join(d, "log", name), errors="replace") as f:
            lines = f.read().strip().splitlines()
            last = last or (f"{name}: {lines[-1]}" if lines else "")
    raise EnvironmentProblem(f"--slurm: {what} within {seconds} s; everything was removed"
                             + (f" ({safeio.excerpt(last, 160)})" if last else ""))
