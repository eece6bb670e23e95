"""Carrying out the cluster's plan (plan.py) with iproute2 and util-linux: make, list, enter, remove.

Namespaces: each node is a network namespace made by `ip netns add` (a bind mount under
/run/netns that iproute2 manages) and a UTS namespace made by `unshare --uts=FILE hostname NAME`
(a bind mount on a file under STATE_DIR/uts). Both persist without a holder process, so nothing
can die and leave half a node, and `down` finds both by name. A command enters a node with
`ip netns exec NAME nsenter --uts=STATE_DIR/uts/NAME` (and `taskset` where the node has its own
cores); `ip netns exec` also mounts the node's own /sys, where UCX (MPICH) finds its interfaces.

The switch is a bridge in its own namespace; each veth pair is created inside the switch namespace
with its peer moved straight into the node's (`ip -n SW link add ... peer name crc0 netns NODE`),
so no interface of the cluster ever appears in the host's namespace.
"""

import contextlib
import os
import shutil
import signal
import subprocess
import time

from collrepro.safeio import EnvironmentProblem, UserError

from . import plan as P

TOOLS = {"ip": "iproute2", "tc": "iproute2", "unshare": "util-linux", "nsenter": "util-linux",
         "taskset": "util-linux"}
NETNS_DIR = "/run/netns"


def check_system():
    """Root and the tools, checked before anything is made: one line, exit 5."""
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        packages = " ".join(sorted({TOOLS[t] for t in missing}))
        raise EnvironmentProblem(f"{', '.join(missing)} not found: apt-get install {packages}")
    if os.geteuid() != 0:
        raise EnvironmentProblem("making network namespaces needs root: run cluster as root")


def sh(argv, what=None, check=True, timeout=30):
    """Run a command; a failure is one line naming what was being done and the tool's own words."""
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    if check and proc.returncode != 0:
        said = " ".join((proc.stderr or proc.stdout).split()) or f"exit {proc.returncode}"
        raise EnvironmentProblem(f"{what or ' '.join(argv[:4])}: {said[:200]}")
    return proc


def namespaces():
    proc = sh(["ip", "netns", "list"], "ip netns list")
    return [line.split()[0] for line in proc.stdout.splitlines() if line.strip()]


def host_links():
    proc = sh(["ip", "-o", "link", "show"], "ip link show")
    names = []
    for line in proc.stdout.splitlines():
        parts = line.split(":", 2)
        if len(parts) >= 2:
            names.append(parts[1].strip().split("@")[0])
    return names


def mounts():
    with open("/proc/self/mountinfo", encoding="utf-8") as f:
        return [line.split()[4] for line in f if len(line.split()) > 4]


def uts_file(state_dir, name):
    return os.path.join(state_dir, "uts", name)


def enter(state_dir, node, argv, own_sys=True):
    """The command line running argv inside node (a plan.Node or its json dict). own_sys=False
    keeps the host's /sys (and its cgroup mounts, which slurmd needs) instead of the node's."""
    name = node["name"] if isinstance(node, dict) else node.name
    cpus = node["cpus"] if isinstance(node, dict) else node.cpus
    uts = f"--uts={uts_file(state_dir, name)}"
    words = (["ip", "netns", "exec", name, "nsenter", uts, "--"] if own_sys
             else ["nsenter", f"--net={NETNS_DIR}/{name}", uts, "--"])
    if cpus:
        words += ["taskset", "-c", ",".join(map(str, cpus))]
    return words + list(argv)


# ------------------------------------------------------------------ making

def _write_proc(ns, key, value):
    """A per-namespace sysctl (/proc/sys/net is the opener's network namespace)."""
    path = "/proc/sys/" + key.replace(".", "/")
    sh(["nsenter", f"--net={NETNS_DIR}/{ns}", "--", "sh", "-c", f"echo {value} > {path}"], f"{ns}: {key}")


def make_switch():
    sh(["ip", "netns", "add", P.SWITCH], f"ip netns add {P.SWITCH}")
    sh(["ip", "-n", P.SWITCH, "link", "add", P.BRIDGE, "mtu", str(P.MTU), "type", "bridge"], "the bridge")
    sh(["ip", "-n", P.SWITCH, "link", "set", P.BRIDGE, "up"], "the bridge")
    _write_proc(P.SWITCH, "net.ipv6.conf.all.disable_ipv6", 1)


def make_node(state_dir, node):
    name, port = node.name, P.switch_port(node.index)
    sh(["ip", "netns", "add", name], f"ip netns add {name}")
    path = uts_file(state_dir, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "a").close()
    sh(["unshare", f"--uts={path}", "hostname", name], f"{name}: its UTS namespace")
    _write_proc(name, "net.ipv6.conf.all.disable_ipv6", 1)
    _write_proc(name, "net.ipv4.tcp_slow_start_after_idle", 0)  # a link idle between points stays warm
    sh(["ip", "-n", P.SWITCH, "link", "add", port, "mtu", str(P.MTU), "type", "veth",
        "peer", "name", P.NODE_IF, "mtu", str(P.MTU), "netns", name], f"{name}: its veth pair")
    sh(["ip", "-n", P.SWITCH, "link", "set", port, "master", P.BRIDGE, "up"], f"{name}: its switch port")
    sh(["ip", "-n", name, "addr", "add", f"{node.address}/{P.SUBNET.prefixlen}", "dev", P.NODE_IF],
       f"{name}: its address")
    sh(["ip", "-n", name, "link", "set", "lo", "up"], f"{name}: lo")
    sh(["ip", "-n", name, "link", "set", P.NODE_IF, "up"], f"{name}: {P.NODE_IF}")
    set_rate(name, node.index, node.rate)


def set_rate(name, index, rate, option="--link/--node-rate"):
    """Node `name`'s link at `rate` bits/s, both directions: the tbf on its interface (node to
    switch) and on its switch port (switch to node), replaced whole."""
    for ns, dev in ((name, P.NODE_IF), (P.SWITCH, P.switch_port(index))):
        proc = sh(["tc", "-n", ns, "qdisc", "replace", "dev", dev, "root", *P.tbf_args(rate)], check=False)
        if proc.returncode != 0:
            said = " ".join((proc.stderr or proc.stdout).split())[:160]
            raise UserError(f"{option} {P.format_rate(rate)} for {name}: the kernel's tbf refused it ({said}); "
                            "choose another rate")


def routes(ns):
    import json
    return json.loads(sh(["ip", "-n", ns, "-j", "route", "show", "table", "main"], f"{ns}: routes").stdout or "[]")


# ------------------------------------------------------------------ removing

def _pids(ns):
    proc = sh(["ip", "netns", "pids", ns], check=False)
    return [int(p) for p in proc.stdout.split() if p.isdigit() and int(p) != os.getpid()]


def _running(pid):
    """The process exists and has not exited (a zombie has: it only waits for its parent)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def stop_processes(ns, grace_s=3.0):
    """Every process in namespace ns: SIGTERM, then SIGKILL after grace_s; returns when all have
    exited (a process leaves the namespace's list before it has finished exiting)."""
    seen = set()
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 2.0)):
        pids = set(_pids(ns)) | {p for p in seen if _running(p)}
        if not pids:
            return
        seen |= pids
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        end = time.monotonic() + wait
        while (_pids(ns) or any(_running(p) for p in seen)) and time.monotonic() < end:
            time.sleep(0.1)


def remove(state_dir):
    """Everything with the prefix (plan.cleanup_plan), whatever made it: returns the steps done."""
    steps = P.cleanup_plan(namespaces(), host_links(), mounts(), state_dir)
    for kind, name in steps:
        if kind == "processes":
            stop_processes(name)
        elif kind == "netns":
            sh(["ip", "netns", "delete", name], f"ip netns delete {name}")
        elif kind == "link":
            sh(["ip", "link", "delete", name], f"ip link delete {name}")
        elif kind == "mount":
            sh(["umount", "-l", name], f"umount {name}")
    remove_state(state_dir)
    return steps


STATE_FILES = ("cluster.json", "fidelity.json", "agent", "hostfile", "hostfile.hydra")


def remove_state(state_dir):
    """The state directory's own files (nothing else a user may have put there), then the folder if empty."""
    for name in STATE_FILES:
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(state_dir, name))
    shutil.rmtree(os.path.join(state_dir, "slurm"), ignore_errors=True)  # the cluster's own Slurm (slurm.py)
    uts = os.path.join(state_dir, "uts")
    if os.path.isdir(uts):
        for name in os.listdir(uts):
            if P.owned(name) and not os.path.ismount(os.path.join(uts, name)):
                os.remove(os.path.join(uts, name))
    for folder in (uts, state_dir):
        with contextlib.suppress(FileNotFoundError, OSError):
            os.rmdir(folder)
