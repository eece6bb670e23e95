"""`collrepro-py sim platform`: write a single-node SimGrid platform from measurements of the node.

    collrepro-py sim platform [RESULT_DIR ...] [--copy-bw GBPS] [--cores N]
                              [--model piecewise|alpha-beta] [--name NAME] -o PLATFORM.xml
    collrepro-py sim platform --from-cluster RESULT_DIR ... [--copy-bw GBPS] -o PLATFORM.xml

What the platform holds and how it is fitted: python/collrepro/sim/platforms/platform.py (pure);
the emulated cluster's (--from-cluster): python/collrepro/sim/platforms/cluster_platform.py.
Given no RESULT_DIR the command measures this machine first (this module: it launches programs,
so it lives with the running stage): a 2-rank collbench launch of the Open MPI build
(build/openmpi, or --build-dir) for the ping-pong, and a copy of 64 MiB arrays by one process and
by `cores` processes at once for the copy bandwidth. Exit codes: 0 written, 2 bad input (no
ping-pong, too few sizes, bad option), 5 collbench or mpirun missing for a measurement.
"""

import math
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time

from collrepro import paths, safeio
from collrepro.cliargs import ArgumentParser
from collrepro.launch.launcher import Launcher
from collrepro.mpienv import installed_program
from collrepro.safeio import EnvironmentProblem, UserError
from collrepro.sim.platforms.platform import assume_overhead, measurements, platform_xml, write_cluster

REPO = paths.REPO


# ---------------------------------------------------------------- measuring this machine

COPY_BYTES = 64 * safeio.MIB


def _copy_worker(start, seconds, out):
    import numpy as np
    src = np.ones(COPY_BYTES, dtype=np.uint8)
    dst = np.empty_like(src)
    np.copyto(dst, src)  # touch the pages
    start.wait()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        np.copyto(dst, src)
        n += 1
    out.put(n * COPY_BYTES / (time.perf_counter() - t0))


def copy_bandwidth(procs, seconds=1.0):
    """Bytes per second copied by `procs` processes copying 64 MiB arrays at once (their sum)."""
    ctx = multiprocessing.get_context("fork")
    start, out = ctx.Barrier(procs + 1), ctx.Queue()
    workers = [ctx.Process(target=_copy_worker, args=(start, seconds, out)) for _ in range(procs)]
    for w in workers:
        w.start()
    start.wait()
    total = sum(out.get(timeout=60 + 10 * seconds) for _ in workers)
    for w in workers:
        w.join()
    return total


def measure_pingpong(build_dir):
    """A 2-rank collbench launch (Open MPI) of one small point; its metadata's ping-pong."""
    exe = os.path.join(build_dir, "bench", "collbench")
    mpirun = installed_program("openmpi")
    for need in (exe, mpirun):
        if not os.path.exists(need):
            raise EnvironmentProblem(f"{need} not found: build collbench (cmake --preset openmpi && cmake --build "
                                     "--preset openmpi --target collbench) or give RESULT_DIRs with ping-pong metadata")
    with tempfile.TemporaryDirectory(prefix="sim-platform-") as tmp:
        cmd = Launcher("openmpi").command(2, [exe, os.path.join(REPO, "configs", "quick.yaml"), "--out", tmp,
                                              "--quiet", "--set", "sizes=[1KiB]", "--set", "groups.ratios=[\"1/1\"]",
                                              "--set", "blocks=[\"1:0\"]", "--set", "timing.reps=3"])
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            raise EnvironmentProblem(f"the ping-pong launch failed (exit {proc.returncode}): {safeio.excerpt(tail, 60)}")
        return measurements([tmp])


def measure_here(build_dir, cores):
    meas = measure_pingpong(build_dir)
    one = copy_bandwidth(1)
    every = copy_bandwidth(cores)
    meas["copy"] = {"one_core": one, "all_cores": every, "cores": cores}
    return meas


# ---------------------------------------------------------------- the command

def _parser():
    ap = ArgumentParser(prog="sim platform", description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="*", help="result directories whose metadata hold the node's ping-pong")
    ap.add_argument("-o", "--out", required=True, help="the platform file to write")
    ap.add_argument("--copy-bw", type=float, help="the node's copy bandwidth, all cores at once (GB/s)")
    ap.add_argument("--shared-size", type=int, metavar="BYTES",
                    help="the backbone from the metadata's concurrent ping-pong (every pair of ranks at once "
                         "against one pair) at messages of BYTES: a platform for the points of that size")
    ap.add_argument("--overhead", type=float, metavar="US",
                    help="a sensitivity study where the metadata hold no callcosts: assume this per-message "
                         "overhead (us) for each of smpi/os, smpi/ois and smpi/or at every ping-pong size where "
                         "it fits, the links carrying the rest of the ping-pong (not a measurement)")
    ap.add_argument("--cores", type=int, help="cores sharing the copy bandwidth (default: the metadata's hwloc cores)")
    ap.add_argument("--mpi", help="use only the launches of this MPI library (the metadata's mpi_impl)")
    ap.add_argument("--model", choices=["piecewise", "alpha-beta"], default="piecewise")
    ap.add_argument("--duplex", choices=["shared", "split"], default="shared",
                    help="a core's sends and receives share its link (default) or each have their own")
    ap.add_argument("--name", default="node")
    ap.add_argument("--source", default="", help="how the platform's comment names the measurements")
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build", "openmpi"))
    ap.add_argument("--from-cluster", action="store_true",
                    help="RESULT_DIRs ran on an emulated cluster (collrepro-py cluster): write its nodes and links "
                         "(python/collrepro/sim/platforms/cluster_platform.py; --copy-bw: within a node)")
    ap.add_argument("--duplex-share", type=float, default=1.0,
                    help="--from-cluster: each direction's share of a node's rate while both carry traffic (1)")
    return ap


def _from_cluster(a):
    if not a.results:
        raise UserError("--from-cluster: give the result directories of launches on the cluster")
    record = write_cluster(a.results, a.out, a.name if a.name != "node" else "cluster", a.source, a.copy_bw,
                           a.duplex_share)
    print(f"sim platform: wrote {a.out} ({len(record['nodes'])} nodes of the emulated cluster)", file=sys.stderr)
    return 0


def main(argv=None):
    a = _parser().parse_args(argv)
    if a.from_cluster:
        return _from_cluster(a)
    if a.copy_bw is not None and not (a.copy_bw > 0 and math.isfinite(a.copy_bw)):
        raise UserError(f"--copy-bw {a.copy_bw}: want a positive bandwidth in GB/s")
    if a.overhead is not None and not (a.overhead >= 0 and math.isfinite(a.overhead)):
        raise UserError(f"--overhead {a.overhead}: want a time in microseconds, 0 or more")
    if a.overhead is not None and not a.results:
        raise UserError("--overhead: give RESULT_DIRs (it replaces what their metadata lack); this machine's "
                        "call costs are measured, not assumed")
    if a.cores is not None and a.cores < 2:
        raise UserError(f"--cores {a.cores}: want at least 2")
    if a.shared_size is not None and not 1 <= a.shared_size <= 1 << 40:
        raise UserError(f"--shared-size {a.shared_size}: want a message size in bytes, 1 to 2^40")
    if a.shared_size is not None and (a.copy_bw is not None or not a.results):
        raise UserError("--shared-size: give RESULT_DIRs whose metadata hold concurrent_pingpong, and no --copy-bw "
                        "(both set the backbone)")
    copy_bw = a.copy_bw * 1e9 if a.copy_bw else None
    if a.results:
        meas = measurements(a.results, a.mpi)
        if not meas["pingpong"]:
            raise UserError(f"{', '.join(a.results)}: no launch metadata with a ping-pong found (meta-L*.json)")
        cores = a.cores or meas["cores"]
        source = a.source or f"{meas['launches']} launches' metadata"
        if a.overhead is not None:
            meas = assume_overhead(meas, a.overhead * 1e-6)
            source += f"; per-message overhead assumed, {a.overhead:g} us per call (not measured)"
    else:
        cores = a.cores or len(os.sched_getaffinity(0))
        meas = measure_here(a.build_dir, cores)
        if copy_bw is None:
            copy_bw = meas["copy"]["all_cores"]
        source = a.source or (f"this machine ({cores} cores; copy bandwidth {meas['copy']['one_core'] / 1e9:.2f} GB/s "
                              f"one core, {meas['copy']['all_cores'] / 1e9:.2f} GB/s all at once)")
    safeio.write_text(a.out, platform_xml(meas, cores, copy_bw, a.model, a.name, source, a.duplex, a.shared_size))
    print(f"sim platform: wrote {a.out} ({cores} cores, {len(meas['pingpong'])} ping-pong sizes, {a.model})",
          file=sys.stderr)
    return 0

