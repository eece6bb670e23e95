#!/usr/bin/python3
"""Checks of sim.smoke: two simulated runs of tests/sim/smoke.yaml (A: -no-privatize, B:
privatized) must give identical times; halfduplex-fc must beat root-gathering at the largest
size; the metadata must say simulated, name the platform and its role (the crossbar's
collrepro/role property), SMPI and the network model."""
import csv
import glob
import json
import os
import sys


def rows(d):
    files = glob.glob(os.path.join(d, "raw-*.csv"))
    if not files:
        sys.exit(f"check_smoke: no raw-*.csv in {d}")
    out = []
    for f in sorted(files):
        with open(f, newline="") as fh:
            out += list(csv.DictReader(fh))
    return out


def main(a, b):
    ra, rb = rows(a), rows(b)
    key = lambda r: (r["algorithm"], int(r["msg_bytes"]), int(r["rep"]))
    ta = {key(r): r["time_s"] for r in ra}
    tb = {key(r): r["time_s"] for r in rb}
    if set(ta) != set(tb) or not ta:
        sys.exit(f"check_smoke: the two runs measured different points: {sorted(set(ta) ^ set(tb))[:5]}")
    diff = [k for k in ta if ta[k] != tb[k]]
    if diff:
        sys.exit("check_smoke: not deterministic: " + "; ".join(f"{k}: {ta[k]} vs {tb[k]}" for k in diff[:5]))
    print(f"check_smoke: deterministic: {len(ta)} repetitions identical in both runs")
    largest = max(k[1] for k in ta)
    med = {}
    for algo in ("halfduplex-fc", "root-gathering"):
        times = sorted(float(ta[k]) for k in ta if k[0] == algo and k[1] == largest)
        if not times:
            sys.exit(f"check_smoke: no {algo} rows at {largest} B")
        med[algo] = times[len(times) // 2]
    speedup = med["root-gathering"] / med["halfduplex-fc"]
    print(f"check_smoke: at {largest} B: root-gathering {med['root-gathering']:.6g} s, "
          f"halfduplex-fc {med['halfduplex-fc']:.6g} s, speedup {speedup:.2f}")
    if speedup <= 1.0:
        sys.exit("check_smoke: the proposed halfduplex-fc does not beat root-gathering at the largest size")
    for d in (a, b):
        for f in glob.glob(os.path.join(d, "meta-*.json")):
            m = json.load(open(f))
            problems = []
            if m.get("simulated") is not True: problems.append("simulated is not true")
            if not str(m.get("platform", "")).endswith("flat-crossbar.xml"): problems.append(f"platform {m.get('platform')!r}")
            if m.get("mpi_impl") != "smpi": problems.append(f"mpi_impl {m.get('mpi_impl')!r}")
            if not m.get("smpi_version"): problems.append("no smpi_version")
            if m.get("network_model") != "CM02": problems.append(f"network_model {m.get('network_model')!r}")
            if m.get("complete") is not True: problems.append("launch not complete")
            if not str(m.get("simulation", {}).get("platform_role") or "").startswith("the model-free reference"):
                problems.append(f"platform_role {m.get('simulation', {}).get('platform_role')!r} (flat-crossbar.xml's)")
            if problems:
                sys.exit(f"check_smoke: {f}: " + ", ".join(problems))
    print("check_smoke: metadata: simulated, platform and its role, smpi_version, network_model present")
    print("check_smoke: 3 passed, 0 failed")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: check_smoke.py RUN_A_DIR RUN_B_DIR")
    main(sys.argv[1], sys.argv[2])
