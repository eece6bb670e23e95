#!/usr/bin/python3
"""The interposition library's tests (ctest label `interpose`), one subcommand each:

  transparency  tests/interpose/transparency.cpp, preloaded, once per algorithm forced, once
                with the default choice: every call equals the native call byte for byte, and
                the report shows the forced algorithm served calls
  settings      bad rules files and names (one line at MPI_Init, every call native, results
                right), a good rules file, a senders= rules file at 4 processes (3:1 and 1:3
                served by different algorithms, results right), a forced algorithm that does not support the shape
                (native, warned once per process), COLLREPRO_PMPI_DISABLE
  started       tests/interpose/started_client.c, a C program: persistent (MPI_Allgather_init or
                MPIX_, Start/Wait with the send buffer rewritten between starts) and nonblocking
                (MPI_Iallgather: Wait, Waitall of two, Test) inter-group Allgathers, every result equal to
                the native blocking call; under rules with call= the library's report counts exactly
                the calls the client made: half duplex by halfduplex-fc (persistent: its inits and its
                starts), full duplex passed to the MPI library; forced; nonblocking routed native by
                call=; no request left owned
  started_forced  the same C program under the library's defaults (no rules, no force), then with
                every selectable Allgather algorithm forced in turn: every result equal to the
                native blocking call, and each algorithm serves nonblocking (and, where the MPI
                build has the init, persistent) calls
  startedv      tests/interpose/startedv_client.c, a C program: MPI_Iallgatherv (5 outstanding,
                completed last to first; Test) and MPI_Allgatherv_init (or MPIX_; starts with the
                send buffer rewritten) on every split, unequal counts with zeros, contiguous, gapped
                and reversed receive layouts and a strided send type, every result equal to the
                native blocking call; under the defaults and with every Allgatherv algorithm
                forced, each serving the nonblocking (and, where the build has the init,
                persistent) calls in the forms it offers and passing the others to the MPI
                library; no request left owned
  started_neighbor  tests/interpose/started_neighbor_client.c, a C program: nonblocking
                (MPI_Ineighbor_*: Wait, Waitall of two, Test) and persistent (MPI_Neighbor_*_init or
                MPIX_, Start/Wait with the send buffer rewritten between starts) neighbourhood
                Alltoall, Allgather and Alltoallw on a periodic ring, every result equal to the
                native blocking call; with each isomorphic algorithm forced, the report counts exactly
                the calls and starts the client made; no request left owned
  comm_cycle    communicators freed and re-created in a loop (the program links -lcollrepro_pmpi,
                once through CMake and once with `pkg-config --libs collrepro-pmpi`)
  tune          a 4-launch sweep (tune-sweep.yaml, bench/collrun) of blocking and persistent calls,
                interpose/colltune (one subtree per call form), and the library accepts the rules
                and serves every call by the algorithm they name
  oversized_rules  a 600,000-key (~43.6 MB) rules file and a 100 MB one (a single key) at 6
                processes: one short line naming the limit, every call native, the run completes
                and takes seconds (the quadratic parse stalled MPI_Init for minutes)
  mpich_suite   MPICH's own coll tests through the library (mpich_suite.py)
  delay         delay mode: collbench's inter-group native at 64 KiB, 128 KiB and 1 MiB, 2 processes, 3
                launches undelayed (no library) and 3 with COLLREPRO_PMPI_DELAY=
                allgather:128KiB:+100ms,allgather:1MiB:+100%, interleaved: the report's delayed calls
                are all and only the 128 KiB and 1 MiB ones, as
                collrepro.installations.delay.affected says, and waited 100 ms each and as long as
                their calls took; 128 KiB more than 3x slower (an effect no load hides); every call
                native (the report); a malformed value ends the job with one line naming the variable

The build passes its paths in the environment (tests/interpose/CMakeLists.txt).
"""

import csv
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SERVED = ("allgather", "allgatherv", "neighbor-alltoall", "neighbor-allgather", "neighbor-alltoallw")
TIMEOUT = 600


class Failure(Exception):
    pass


def env(name):
    value = os.environ.get(name)
    if not value:
        raise Failure(f"{name} is not set: run this through ctest (tests/interpose/CMakeLists.txt)")
    return value


def launch_env_flags(variables):
    """Launcher flags that set `variables` in the MPI processes only (never in the launcher)."""
    flags = []
    for k, v in variables.items():
        flags += ["-x", f"{k}={v}"] if env("MPI_FLAVOR") == "openmpi" else ["-genv", k, v]
    return flags


def mpirun(np, argv, variables=None, preload=True, timeout=TIMEOUT):
    """Runs argv on np processes; (returncode, stdout, stderr)."""
    variables = dict(variables or {})
    if preload:  # before what the test environment preloads already (fuzz/mpich_yield.c under MPICH)
        variables["LD_PRELOAD"] = " ".join(filter(None, (env("PMPI_LIBRARY"), os.environ.get("LD_PRELOAD"))))
    cmd = [env("MPIEXEC"), "-n", str(np), *os.environ.get("MPIEXEC_EXTRA", "").split(), *launch_env_flags(variables),
           *argv]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failure(f"timed out after {timeout} s: {' '.join(cmd)}")
    return p.returncode, p.stdout, p.stderr


def work_dir(name):
    d = os.path.join(env("WORK"), name)
    os.makedirs(d, exist_ok=True)
    return d


def read_report(path, kind="served"):
    """The `kind` lines of a COLLREPRO_PMPI_REPORT file: 'served COLLECTIVE ALGORITHM CALLS' gives
    {(collective, algorithm): calls}; 'delayed CALL BYTES CALLS CALL_S WAITED_S' (delay mode, world
    rank 0) {(call, bytes as text): (calls, seconds in the calls, seconds waited after them)}."""
    found = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(rf"collrepro-pmpi: {kind} (\S+) (\S+) (\d+)((?: \S+)*)$", line.strip())
            if m:
                extra = tuple(float(x) for x in m.group(4).split())
                found[(m.group(1), m.group(2))] = (int(m.group(3)),) + extra if extra else int(m.group(3))
    return found


def servable_algorithms():
    """{name: [collectives]} of the registered, non-native algorithms of the served collectives."""
    out = subprocess.run([env("COLLBENCH"), "--list-algorithms"], capture_output=True, text=True, check=True).stdout
    names = {}
    for row in csv.DictReader(io.StringIO(out)):
        if row["collective"] in SERVED and row["kind"] != "native":
            names.setdefault(row["algorithm"], []).append(row["collective"])
    return names


def algorithm_calls(collective):
    """{name: [call forms it offers]} of the registered, non-native algorithms of `collective`."""
    out = subprocess.run([env("COLLBENCH"), "--list-algorithms", "--format", "json"], capture_output=True, text=True,
                         check=True).stdout
    return {a["name"]: a["calls"] for a in json.loads(out)["algorithms"]
            if a["collective"] == collective and a["kind"] != "native"}


def run_transparency(np, variables, report, timeout=TIMEOUT):
    if os.path.exists(report):
        os.remove(report)
    rc, out, err = mpirun(np, [env("TRANSPARENCY")], {**variables, "COLLREPRO_PMPI_REPORT": report}, timeout=timeout)
    if rc != 0 or "calls equal" not in out:
        raise Failure(f"transparency with {variables or 'the defaults'} failed (exit {rc}):\n{out}\n{err}")
    return out, err, read_report(report)


def busy_polling():
    """MPICH busy-polls: oversubscribed runs cost many times more, so its checks run smaller."""
    return env("MPI_FLAVOR") == "mpich"


def check_transparency():
    np = 3 if busy_polling() else 5  # 3: every split, the ring, the line and the {0, +1} graph
    names = servable_algorithms()
    report = os.path.join(work_dir("transparency"), "report.txt")
    for name, collectives in sorted(names.items()):
        out, _, served = run_transparency(np, {"COLLREPRO_PMPI_FORCE": name}, report)
        for c in collectives:
            if served.get((c, name), 0) == 0:
                raise Failure(f"COLLREPRO_PMPI_FORCE={name}: the report shows no {c} call served by it: {served}")
        print(f"{name}: {out.strip()}; served {', '.join(f'{c} {served[(c, name)]}' for c in collectives)}")
    if not busy_polling():  # a 3x3 torus: the isomorphic algorithms on two dimensions
        for name, collectives in sorted(names.items()):
            if collectives[0].startswith("neighbor-"):
                out, _, served = run_transparency(9, {"COLLREPRO_PMPI_FORCE": name}, report)
                print(f"{name} at 9 processes (3x3 torus): {out.strip()}")
    out, _, served = run_transparency(np, {}, report)
    ours = sum(n for (c, a), n in served.items() if a != "native")
    if ours == 0:
        raise Failure(f"with the cost-model default no call was served by an algorithm: {served}")
    print(f"default: {out.strip()}; {ours} process-calls served by the algorithms")


def expect_one_line(variables, pattern, what):
    """The library disables itself with one line naming the problem; results stay right."""
    report = os.path.join(work_dir("settings"), "report.txt")
    _, err, served = run_transparency(2, variables, report)
    lines = [l for l in err.splitlines() if l.startswith("collrepro-pmpi:")]
    if len(lines) != 1 or not re.search(pattern, lines[0]):
        raise Failure(f"{what}: expected one line matching /{pattern}/ on stderr, got {lines}")
    if any(a != "native" for (_, a) in served):
        raise Failure(f"{what}: the library served calls although its settings were rejected: {served}")
    with open(report, encoding="utf-8") as f:  # the report says why it counts only native calls
        said = [l for l in f if l.startswith("collrepro-pmpi: report: the settings were refused")]
    if len(said) != 1 or "every call went to the MPI library" not in said[0]:
        raise Failure(f"{what}: COLLREPRO_PMPI_REPORT does not say that the settings were refused: {said}")
    print(f"{what}: {lines[0]}")


def write_rules(name, text):
    path = os.path.join(work_dir("settings"), name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def check_settings():
    bad = [
        ("invalid JSON", "{\"collective=allgather\": ", r"not valid JSON"),
        ("empty rules", "[]", r"non-empty JSON object"),
        ("unknown condition", json.dumps({"colective=allgather": {"algorithm=native": {}}}), r"unknown condition"),
        ("unknown collective", json.dumps({"collective=alltoall": {"algorithm=native": {}}}), r"unknown collective"),
        ("unknown algorithm", json.dumps({"collective=allgather": {"algorithm=no-such": {}}}),
         r"unknown algorithm 'no-such' for allgather"),
        ("algorithm of another collective", json.dumps({"collective=allgather": {"algorithm=torus": {}}}),
         r"unknown algorithm 'torus'"),
        ("native kind by name", json.dumps({"collective=neighbor-alltoall": {"algorithm=mpi-neighbor": {}}}),
         r"native kinds are written 'native'"),
        ("bad size", json.dumps({"collective=allgather": {"msg_size<=4k": {"algorithm=native": {}}}}),
         r"'4k' is not a byte count"),
        ("leaf with a value", json.dumps({"collective=allgather": {"algorithm=native": {"any": {}}}}),
         r"a leaf's value must be \{\}"),
        ("bad senders", json.dumps({"collective=allgather": {"senders=0": {"algorithm=native": {}}}}),
         r"senders='0' is not a process count"),
    ]
    for what, text, pattern in bad:
        expect_one_line({"COLLREPRO_PMPI_RULES": write_rules("bad.json", text)}, pattern, what)
    expect_one_line({"COLLREPRO_PMPI_RULES": os.path.join(work_dir("settings"), "missing.json")}, r"cannot read",
                    "missing rules file")
    expect_one_line({"COLLREPRO_PMPI_FORCE": "no-such"}, r"COLLREPRO_PMPI_FORCE=no-such: no such algorithm",
                    "unknown forced name")

    report = os.path.join(work_dir("settings"), "report.txt")
    good = {"collective=allgather": {"groups=1:1": {"msg_size<=1": {"algorithm=root-gathering": {}},
                                                    "any": {"algorithm=fullduplex-allgather": {}}}},
            "collective=allgatherv": {"any": {"algorithm=native": {}}}}
    _, err, served = run_transparency(2, {"COLLREPRO_PMPI_RULES": write_rules("good.json", json.dumps(good))}, report)
    for key in (("allgather", "root-gathering"), ("allgather", "fullduplex-allgather"), ("allgatherv", "native")):
        if served.get(key, 0) == 0:
            raise Failure(f"rules {good}: expected {key} to serve calls, report {served}")
    if ("allgatherv", "fullduplex-allgatherv") in served or "collrepro-pmpi" in err:
        raise Failure(f"rules {good}: unexpected report {served} or messages {err}")
    print(f"good rules: {sorted(served.items())}")

    check_senders_rules(report)

    _, err, served = run_transparency(2, {"COLLREPRO_PMPI_FORCE": "halfduplex-ring"}, report)
    warnings = [l for l in err.splitlines() if "does not support" in l]
    if not 1 <= len(warnings) <= 2 or not all("(said once)" in w for w in warnings):
        raise Failure(f"forced halfduplex-ring on full-duplex shapes: expected one warning per process, got {warnings}")
    if not served.get(("allgather", "halfduplex-ring")) or not served.get(("allgather", "native")):
        raise Failure(f"forced halfduplex-ring: expected it on half-duplex and native on full-duplex calls: {served}")
    print(f"forced, unsupported: {warnings[0]}")

    _, err, served = run_transparency(2, {"COLLREPRO_PMPI_DISABLE": "1"}, report)
    if served or "collrepro-pmpi" in err:
        raise Failure(f"COLLREPRO_PMPI_DISABLE=1: the library still acted: {served} {err}")
    print("disabled: no call intercepted")


def check_senders_rules(report):
    """senders= at 4 processes: groups=3:1 half duplex, minvol when the 3 send, halfduplex-fc when
    the 1 does. transparency.cpp makes, at each split p = 3 and p = 1, one half-duplex Allgather per
    direction and non-zero block (1, 7, 70000 bytes): 3 calls of each orientation per split, on each
    of the 4 processes, so each algorithm serves exactly 2 * 3 * 4 = 24 process-calls; the
    full-duplex and empty calls match no rule (native); every result equals the native one."""
    rules = {"collective=allgather": {"groups=3:1": {"duplex=half": {
        "senders=3": {"algorithm=halfduplex-fc-minvol": {}}, "senders=1": {"algorithm=halfduplex-fc": {}}}}}}
    _, err, served = run_transparency(4, {"COLLREPRO_PMPI_RULES": write_rules("senders.json", json.dumps(rules))},
                                      report)
    ours = {a: n for (c, a), n in served.items() if a != "native"}
    if ours != {"halfduplex-fc-minvol": 24, "halfduplex-fc": 24} or "collrepro-pmpi" in err:
        raise Failure(f"rules {rules}: expected 24 process-calls each of halfduplex-fc-minvol (3 -> 1) and "
                      f"halfduplex-fc (1 -> 3), got {served}; messages: {err}")
    print(f"senders rules at 4 processes: {sorted(served.items())}")


# The rules of the started check: the project's persistent and nonblocking halfduplex-fc on
# half-duplex shapes, the MPI library's call on the others (full duplex).
STARTED_RULES = {"collective=allgather": {
    "call=persistent": {"duplex=half": {"algorithm=halfduplex-fc": {}}, "any": {"algorithm=native": {}}},
    "call=nonblocking": {"duplex=half": {"algorithm=halfduplex-fc": {}}, "any": {"algorithm=native": {}}},
    "any": {"algorithm=native": {}}}}
# The same, with the nonblocking calls left to the MPI library.
STARTED_NONBLOCKING_NATIVE = {"collective=allgather": {
    "call=persistent": {"duplex=half": {"algorithm=halfduplex-fc": {}}, "any": {"algorithm=native": {}}},
    "call=nonblocking": {"algorithm=native": {}}}}


def run_started(np, variables, args, preload=True):
    """started_client's counts of the calls it made, {name: process-calls}, and the report."""
    report = os.path.join(work_dir("started"), "report.txt")
    if os.path.exists(report):
        os.remove(report)
    variables = {**variables, "COLLREPRO_PMPI_REPORT": report} if preload else variables
    rc, out, err = mpirun(np, [env("STARTED_CLIENT"), *args], variables, preload=preload)
    made = re.search(r"made half-persistent (\d+) starts (\d+) full-persistent (\d+) half-nonblocking (\d+) "
                     r"full-nonblocking (\d+)", out)
    if rc != 0 or "completions equal" not in out or not made:
        raise Failure(f"started_client with {variables or 'no library'} failed (exit {rc}):\n{out}\n{err}")
    counts = dict(zip(("half-persistent", "starts", "full-persistent", "half-nonblocking", "full-nonblocking"),
                      (int(n) for n in made.groups())))
    if preload and "owned requests left 0" not in out:
        raise Failure(f"started_client: the library still owns requests at the end:\n{out}")
    served = {}
    if preload:
        with open(report, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"collrepro-pmpi: (served-call \S+|started) (\S+) (\S+) (\d+)$", line.strip())
                if m:
                    served[(m.group(1), m.group(3))] = int(m.group(4))
    return out, counts, served


def expect_served(what, served, want):
    """The report's served-call and started lines for allgather equal `want` (absent: none)."""
    got = {k: n for k, n in served.items() if n}
    want = {k: n for k, n in want.items() if n}
    if got != want:
        raise Failure(f"{what}: the report counts {got}, the client made {want}")
    print(f"{what}: {sorted(got.items())}")


def check_started():
    np = 3 if busy_polling() else 4
    args = ["6"] + started_args()[1:]  # 6 starts: every request call
    rules = write_rules("started.json", json.dumps(STARTED_RULES))
    out, made, served = run_started(np, {"COLLREPRO_PMPI_RULES": rules}, args)
    print(out.strip())
    expect_served("rules with call=", served, {
        ("served-call persistent", "halfduplex-fc"): made["half-persistent"],
        ("started", "halfduplex-fc"): made["starts"],
        ("served-call persistent", "native"): made["full-persistent"],
        ("served-call nonblocking", "halfduplex-fc"): made["half-nonblocking"],
        ("served-call nonblocking", "native"): made["full-nonblocking"]})
    if not made["half-persistent"] or not made["starts"] or not made["half-nonblocking"]:
        raise Failure(f"started_client made no served calls: {made}")

    _, made, served = run_started(np, {"COLLREPRO_PMPI_FORCE": "halfduplex-fc"}, args)
    expect_served("COLLREPRO_PMPI_FORCE=halfduplex-fc", served, {
        ("served-call persistent", "halfduplex-fc"): made["half-persistent"],
        ("started", "halfduplex-fc"): made["starts"],
        ("served-call persistent", "native"): made["full-persistent"],
        ("served-call nonblocking", "halfduplex-fc"): made["half-nonblocking"],
        ("served-call nonblocking", "native"): made["full-nonblocking"]})

    rules = write_rules("started-nonblocking-native.json", json.dumps(STARTED_NONBLOCKING_NATIVE))
    _, made, served = run_started(np, {"COLLREPRO_PMPI_RULES": rules}, args)
    expect_served("call=nonblocking routed native", served, {
        ("served-call persistent", "halfduplex-fc"): made["half-persistent"],
        ("started", "halfduplex-fc"): made["starts"],
        ("served-call persistent", "native"): made["full-persistent"],
        ("served-call nonblocking", "native"): made["half-nonblocking"] + made["full-nonblocking"]})

    if env("MPI_FLAVOR") != "mpich":  # the client itself, every call native (the control)
        out, _, _ = run_started(np, {}, args, preload=False)
        print(f"without the library: {out.strip().splitlines()[-1]}")


def started_args():
    # MPICH 4.0.2's own persistent intercommunicator Allgather returns the previous start's data
    # (results/callforms/README.md): the full-duplex persistent calls, which the library may pass
    # to it, run only where the MPI library's own call is right.
    return ["3"] + (["--no-full-persistent"] if env("MPI_FLAVOR") == "mpich" else [])


def check_started_forced():
    """started_client (an unmodified C program: persistent and nonblocking MPI_Allgather on every
    split, half and full duplex, byte counts 0, 1 and 70000 and a strided send type, every result
    compared with the MPI library's blocking call) under the library's defaults, then with each
    selectable Allgather algorithm forced: every algorithm that offers a form must serve calls in
    it (the report), and every shape it does not support goes to the MPI library."""
    np = 3 if busy_polling() else 4
    args = started_args()
    out, made, served = run_started(np, {}, args)
    print(f"defaults: {out.strip().splitlines()[-1]}; served {sorted(served.items())}")
    for name, collectives in sorted(servable_algorithms().items()):
        if "allgather" not in collectives:
            continue
        out, made, served = run_started(np, {"COLLREPRO_PMPI_FORCE": name}, args)
        forms = [k for k in ("served-call nonblocking", "served-call persistent") if served.get((k, name))]
        if not served.get(("served-call nonblocking", name)):
            raise Failure(f"COLLREPRO_PMPI_FORCE={name}: no MPI_Iallgather was served by {name}: {served}")
        if made["half-persistent"] and not served.get(("served-call persistent", name)):
            raise Failure(f"COLLREPRO_PMPI_FORCE={name}: no persistent Allgather was served by {name}: {served}")
        print(f"COLLREPRO_PMPI_FORCE={name}: {out.strip().splitlines()[-1]}; {name} served "
              f"{', '.join(f'{k.split()[-1]} {served[(k, name)]}' for k in forms)}")


def run_startedv(np, variables, args):
    """startedv_client's calls, {'persistent'|'starts'|'nonblocking': process-calls}, and the
    report's served-call lines for allgatherv, {(kind, algorithm): calls}."""
    report = os.path.join(work_dir("startedv"), "report.txt")
    if os.path.exists(report):
        os.remove(report)
    rc, out, err = mpirun(np, [env("STARTEDV_CLIENT"), *args], {**variables, "COLLREPRO_PMPI_REPORT": report})
    made = re.search(r"made persistent (\d+) starts (\d+) nonblocking (\d+)", out)
    if rc != 0 or "completions equal" not in out or not made:
        raise Failure(f"startedv_client with {variables or 'the defaults'} failed (exit {rc}):\n{out}\n{err}")
    if "owned requests left 0" not in out:
        raise Failure(f"startedv_client: the library still owns requests at the end:\n{out}")
    served = {}
    with open(report, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"collrepro-pmpi: served-call (\S+) allgatherv (\S+) (\d+)$", line.strip())
            if m:
                served[(m.group(1), m.group(2))] = int(m.group(3))
    return out, dict(zip(("persistent", "starts", "nonblocking"), (int(n) for n in made.groups()))), served


def check_startedv():
    """MPI_Iallgatherv and MPI_Allgatherv_init through the library: the defaults, then every
    servable Allgatherv algorithm forced; each must serve calls in both forms where the build has
    them, and every completion must equal the MPI library's blocking call."""
    np = 3 if busy_polling() else 4
    args = started_args()
    out, made, served = run_startedv(np, {}, args)
    print(f"defaults: {out.strip().splitlines()[-1]}; made {made}; served {sorted(served.items())}")
    for name, calls in sorted(algorithm_calls("allgatherv").items()):
        out, made, served = run_startedv(np, {"COLLREPRO_PMPI_FORCE": name}, args)
        for form, count in (("nonblocking", made["nonblocking"]), ("persistent", made["persistent"])):
            if form not in calls:  # not offered: every such call goes to the MPI library
                if served.get((form, "native"), 0) != count:
                    raise Failure(f"COLLREPRO_PMPI_FORCE={name} (no {form} form): {count} {form} calls made, "
                                  f"{served.get((form, 'native'), 0)} passed to the MPI library: {served}")
            elif count and not served.get((form, name)):
                raise Failure(f"COLLREPRO_PMPI_FORCE={name}: no {form} Allgatherv was served by {name}: {served}")
        print(f"COLLREPRO_PMPI_FORCE={name} (forms {', '.join(calls)}): {out.strip().splitlines()[-1]}; served "
              f"{', '.join(f'{k} {a} {n}' for (k, a), n in sorted(served.items()))}")


# The isomorphic algorithms with their own nonblocking and persistent schedules.
NEIGHBOR_STARTED = ("torus", "torus-direct", "straightforward")


def run_started_neighbor(np, variables):
    """started_neighbor_client's calls, {(kind, collective): process-calls}, and the report's
    served-call and started lines, {(kind, collective, algorithm): calls}."""
    report = os.path.join(work_dir("started_neighbor"), "report.txt")
    if os.path.exists(report):
        os.remove(report)
    rc, out, err = mpirun(np, [env("STARTED_NEIGHBOR_CLIENT"), "4"], {**variables, "COLLREPRO_PMPI_REPORT": report})
    made = {}
    for m in re.finditer(r"made (\S+) nonblocking (\d+) inits (\d+) starts (\d+)", out):
        made.update({("served-call nonblocking", m.group(1)): int(m.group(2)),
                     ("served-call persistent", m.group(1)): int(m.group(3)), ("started", m.group(1)): int(m.group(4))})
    if rc != 0 or "completions equal" not in out or len(made) != 9:
        raise Failure(f"started_neighbor_client with {variables} failed (exit {rc}):\n{out}\n{err}")
    if "owned requests left 0" not in out:
        raise Failure(f"started_neighbor_client: the library still owns requests at the end:\n{out}")
    served = {}
    with open(report, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"collrepro-pmpi: (served-call \S+|started) (\S+) (\S+) (\d+)$", line.strip())
            if m:
                served[(m.group(1), m.group(2), m.group(3))] = int(m.group(4))
    return out, made, served


def check_started_neighbor():
    np = 3 if busy_polling() else 4
    for name in NEIGHBOR_STARTED:
        out, made, served = run_started_neighbor(np, {"COLLREPRO_PMPI_FORCE": name})
        want = {(kind, c, name): n for (kind, c), n in made.items() if n}
        got = {k: n for k, n in served.items() if n}
        if got != want:
            raise Failure(f"COLLREPRO_PMPI_FORCE={name}: the report counts {got}, the client made {want}")
        if not any(kind == "served-call nonblocking" for kind, _ in made):
            raise Failure(f"started_neighbor_client made no nonblocking calls: {made}")
        print(f"{name}: {out.strip().splitlines()[-1]}; report {sorted(got.items())}")


def write_many_keys(path, keys, size):
    """A valid rules file of `keys` keys and `size` bytes (the audit's: 600,000 keys, 43.6 MB)."""
    entries = keys // 2 - 1
    width = 145 - len('  "msg_size<=": {"algorithm=fullduplex-allgather": {}},\n')  # an entry is two keys
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"collective=allgather": {\n')
        for start in range(0, entries, 10000):
            f.write("".join(f'  "msg_size<={n:0{width}d}": {{"algorithm=fullduplex-allgather": {{}}}},\n'
                            for n in range(start, min(start + 10000, entries))))
        f.write('  "any": {"algorithm=native": {}}}}\n')
        f.write(" " * (size - f.tell()))


def write_one_key(path, size):
    """A `size`-byte file of one huge key (the audit's key was echoed whole into the error line)."""
    with open(path, "w", encoding="ascii") as f:
        f.write('{"')
        for _ in range((size - 9) // (1 << 20)):
            f.write("k" * (1 << 20))
        f.write("k" * ((size - 9) % (1 << 20)) + '": {}}\n')


def check_oversized_rules():
    np, bound_s = 6, 60
    with tempfile.TemporaryDirectory(prefix="collrepro-rules-", dir="/tmp") as tmp:
        many, huge = os.path.join(tmp, "600k.json"), os.path.join(tmp, "100MB.json")
        write_many_keys(many, 600000, 43600000)
        write_one_key(huge, 100 * 1000 * 1000)
        report = os.path.join(tmp, "report.txt")
        for path in (many, huge):
            size = os.path.getsize(path)
            start = time.monotonic()
            _, err, served = run_transparency(np, {"COLLREPRO_PMPI_RULES": path}, report, timeout=2 * bound_s)
            wall = time.monotonic() - start
            lines = [l for l in err.splitlines() if l.startswith("collrepro-pmpi:")]
            if len(lines) != 1 or "4 MiB limit" not in lines[0] or f"{path} is {size} bytes" not in lines[0]:
                raise Failure(f"{path} ({size} bytes): expected one line naming the file, its size and the "
                              f"4 MiB limit, got {lines}")
            if len(lines[0]) > 200:
                raise Failure(f"{path}: the line is {len(lines[0])} characters (at most 200): {lines[0][:300]}")
            if any(a != "native" for (_, a) in served):
                raise Failure(f"{path}: calls were not all native although the rules were refused: {served}")
            if wall > bound_s:
                raise Failure(f"{path}: mpirun -n {np} took {wall:.1f} s (bound {bound_s} s): is the file parsed?")
            print(f"{os.path.basename(path)} ({size} bytes) at np {np}: whole mpirun {wall:.1f} s "
                  f"(bound {bound_s} s); {lines[0]}")


def pkg_config_build(source, target):
    """Builds `source` the way a user would: the MPI wrapper compiler and pkg-config's flags."""
    pc_dir = os.path.dirname(env("PMPI_LIBRARY"))
    flags = subprocess.run(["pkg-config", "--libs", "collrepro-pmpi"], capture_output=True, text=True,
                           env={**os.environ, "PKG_CONFIG_PATH": pc_dir})
    if flags.returncode != 0:
        raise Failure(f"pkg-config --libs collrepro-pmpi failed: {flags.stderr}")
    cmd = [env("MPICC"), source, *flags.stdout.split(), "-o", target]
    built = subprocess.run(cmd, capture_output=True, text=True)
    if built.returncode != 0:
        raise Failure(f"building with pkg-config's flags failed: {' '.join(cmd)}\n{built.stderr}")


def check_comm_cycle():
    linked = os.path.join(work_dir("comm_cycle"), "comm_cycle_pkg_config")
    pkg_config_build(os.path.join(os.path.dirname(os.path.abspath(__file__)), "comm_cycle.cpp"), linked)
    rounds = "20" if busy_polling() else "100"
    for program in (env("COMM_CYCLE"), linked):  # linked by CMake (-l), and through pkg-config
        rc, out, err = mpirun(4, [program, rounds], preload=False)
        if rc != 0 or "0 left" not in out:
            raise Failure(f"{program} failed (exit {rc}):\n{out}\n{err}")
        print(f"{os.path.basename(program)}: {out.strip()}")


def leaves(tree):
    """The algorithm names of a rules tree's leaves."""
    for key, child in tree.items():
        if key.startswith("algorithm="):
            yield key.split("=", 1)[1]
        elif isinstance(child, dict):
            yield from leaves(child)


def check_tune():
    repo = env("REPO")
    out_dir = os.path.join(work_dir("tune"), "sweep")
    shutil.rmtree(out_dir, ignore_errors=True)
    sweep = subprocess.run([os.path.join(repo, "bench", "collrun"), "--mpi", env("MPI_FLAVOR"), "--np", "2",
                            "--out", out_dir, "--build-dir", env("BUILD_DIR"),
                            os.path.join(repo, "tests", "interpose", "tune-sweep.yaml")],
                           capture_output=True, text=True, timeout=TIMEOUT)
    if sweep.returncode != 0:
        raise Failure(f"the sweep failed (exit {sweep.returncode}):\n{sweep.stdout[-2000:]}\n{sweep.stderr[-2000:]}")
    rules = os.path.join(work_dir("tune"), "rules.json")
    tuned = subprocess.run([os.path.join(repo, "interpose", "colltune"), out_dir, "-o", rules],
                           capture_output=True, text=True, timeout=TIMEOUT)
    if tuned.returncode != 0:
        raise Failure(f"colltune failed (exit {tuned.returncode}): {tuned.stderr}")
    with open(rules, encoding="utf-8") as f:
        tree = json.load(f)
    if sorted(tree["collective=allgather"]) != ["call=blocking", "call=persistent"]:
        raise Failure(f"colltune's rules do not split by the swept call forms: {json.dumps(tree)}")
    sizes = tree["collective=allgather"]["call=blocking"]["groups=1:1"]["duplex=full"]
    _, err, served = run_transparency(2, {"COLLREPRO_PMPI_RULES": rules}, os.path.join(work_dir("tune"), "report.txt"))
    if "collrepro-pmpi" in err:
        raise Failure(f"the library rejected colltune's rules: {err}")
    named = set(leaves(tree))  # every form and shape: the sweep measured half duplex too
    unexpected = {a for (c, a) in served if c == "allgather" and a not in named and a != "native"}
    if unexpected:
        raise Failure(f"allgather calls served by {unexpected}, which the rules {json.dumps(tree)} do not name")
    print(f"colltune: {tuned.stdout.strip()}; rules for 1:1 full duplex: {json.dumps(sizes)}; served {served}")


DELAY_CONFIG = """experiment: delay-check
collective: allgather
algorithms: [native]
groups:
  ratios: ["1/1"]
blocks: ["1:1"]
sizes: [64KiB, 128KiB, 1MiB]
timing: {sync: barrier, clock: mpi-wtime, warmup: 5, reps: 20}
validation: false
launches: 3
"""


# Two rules, one of each form: a fixed 100 ms at 128 KiB, whose effect no load hides (calls of
# 25-150 us, or 4-20 ms scheduler ticks beside two CPU-bound jobs, where 5 ms read 1.5x and 50 ms 4.1x),
# checked by timing; +100 % at 1 MiB, checked through the library's report (the
# seconds it waited against the seconds its calls took), not by timing: beside other CPU-bound
# work a relative delay multiplies every preemption, and a plain 1 MiB call read 120 ms at a load
# average of 31. Which calls were slowed is read from the report too (beside other work the
# untouched 64 KiB call once read 6.9x slower while no rule touched it).
DELAY_RULE = "allgather:128KiB:+100ms,allgather:1MiB:+100%"
FIXED, RELATIVE = 128 << 10, 1 << 20
DELAY_LEAST = 3.0   # delayed / plain at 128 KiB: 30x or more expected


def check_delay():
    sys.path.insert(0, os.path.join(env("REPO"), "python"))
    from collrepro.installations import delay
    rule = DELAY_RULE
    work = work_dir("delay")
    config = os.path.join(work, "delay.yaml")
    with open(config, "w", encoding="utf-8") as f:
        f.write(DELAY_CONFIG)
    medians = {}  # (delayed, msg_bytes) -> [per-launch medians]
    for launch in range(3):
        for delayed in (False, True):
            out = os.path.join(work, "delayed" if delayed else "plain")
            if launch == 0:
                shutil.rmtree(out, ignore_errors=True)
            report = os.path.join(work, "report.txt")
            variables = {"COLLREPRO_PMPI_DELAY": rule, "COLLREPRO_PMPI_REPORT": report} if delayed else {}
            rc, so, se = mpirun(2, [env("COLLBENCH"), config, "--launch", str(launch), "--out", out, "--quiet"],
                                variables, preload=delayed)
            if rc != 0:
                raise Failure(f"collbench {'with' if delayed else 'without'} the delay failed (exit {rc}):\n{so}\n{se}")
            if delayed:
                served = read_report(report)
                if any(a != "native" for (_, a) in served):
                    raise Failure(f"delay mode served calls by an algorithm: {served}")
                slowed = read_report(report, "delayed")
                if set(slowed) != {("allgather", str(FIXED)), ("allgather", str(RELATIVE))}:
                    raise Failure(f"the rules {rule!r} delayed {slowed} (by call and size), want allgather at "
                                  "128 KiB and 1 MiB only")
                calls, _, waited = slowed[("allgather", str(FIXED))]
                if not waited >= calls * 0.100 * (1 - 1e-9):
                    raise Failure(f"+100ms: {calls} calls waited {waited:.6f} s in all, under 100 ms each")
                calls, in_calls, waited = slowed[("allgather", str(RELATIVE))]
                if not waited >= in_calls * (1 - 1e-9):
                    raise Failure(f"+100%: {calls} calls took {in_calls:.6f} s and waited only {waited:.6f} s")
            with open(os.path.join(out, f"summary-L{launch}.csv"), encoding="utf-8") as f:
                for row in csv.DictReader(f):
                    point = {"family": row["family"], "collective": row["collective"], "algorithm": row["algorithm"],
                             "msg_bytes": int(row["msg_bytes"]), "ka": int(row["ka"]), "kb": int(row["kb"])}
                    if delay.affected(rule, point) != (point["msg_bytes"] in (FIXED, RELATIVE)):
                        raise Failure(f"delay.affected({rule!r}, {point}) is wrong")
                    medians.setdefault((delayed, point["msg_bytes"]), []).append(float(row["median"]))
    ratio = {size: statistics.median(medians[(True, size)]) / statistics.median(medians[(False, size)])
             for size in (65536, FIXED, RELATIVE)}
    print(f"median of 3 launch medians, delayed / plain: 64 KiB {ratio[65536]:.3f} (not delayed, per the report), "
          f"128 KiB {ratio[FIXED]:.3f} (+100ms), 1 MiB {ratio[RELATIVE]:.3f} (+100%, checked by the report) ({medians})")
    if not ratio[FIXED] > DELAY_LEAST:
        raise Failure(f"+100ms slowed the 128 KiB native call only {ratio[FIXED]:.2f}x (want > {DELAY_LEAST})")
    rc, so, se = mpirun(2, [env("COLLBENCH"), config, "--out", os.path.join(work, "bad"), "--quiet"],
                        {"COLLREPRO_PMPI_DELAY": "allgather:64kb:+5%"})
    ours = [line for line in se.splitlines() if line.startswith("collrepro-pmpi:")]
    if rc == 0 or len(ours) != 1 or "COLLREPRO_PMPI_DELAY='allgather:64kb:+5%'" not in ours[0]:
        raise Failure(f"a malformed COLLREPRO_PMPI_DELAY: want a failed run and one line naming it, got exit {rc}:\n{se}")


def main():
    checks = {"transparency": check_transparency, "settings": check_settings, "started": check_started,
              "started_forced": check_started_forced, "startedv": check_startedv,
              "started_neighbor": check_started_neighbor, "comm_cycle": check_comm_cycle,
              "tune": check_tune, "oversized_rules": check_oversized_rules, "delay": check_delay}
    try:
        if sys.argv[1:] == ["mpich_suite"]:
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            import mpich_suite
            mpich_suite.main()
        elif len(sys.argv) == 2 and sys.argv[1] in checks:
            checks[sys.argv[1]]()
        else:
            print(f"usage: check_library.py {'|'.join([*checks, 'mpich_suite'])}", file=sys.stderr)
            return 2
    except Exception as e:  # mpich_suite raises check_library.Failure, a twin of __main__.Failure
        if type(e).__name__ != "Failure":
            raise
        print(f"FAILED: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
