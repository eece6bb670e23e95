#!/usr/bin/python3
"""sim.type-cost: the simulated typecosts' extra one-way time of a struct message is twice the
charged cost per side (A + B * min(bytes, UPTO)) with simrun --type-cost, and 0 without; the
metadata record the charge.
  check_type_cost.py CHARGED_DIR FREE_DIR A,B,UPTO"""
import json
import sys
from pathlib import Path


def typecosts(d):
    meta = json.loads((Path(d) / "meta-L0.json").read_text())
    return meta["typecosts"], meta["simulation"].get("type_cost")


def main():
    charged, free, spec = sys.argv[1:4]
    a, b, upto = (float(x) for x in spec.split(","))
    bad = []
    rows, recorded = typecosts(charged)
    if recorded is None or [float(x) for x in recorded.split(",")] != [a, b, upto]:
        bad.append(f"charged run: simulation.type_cost {recorded!r}, want {spec}")
    for r in rows:
        want = 2 * (a + b * min(r["bytes"], upto))
        got = r["struct_s"] - r["contiguous_s"]
        if abs(got - want) > 1e-3 * want + 1e-12:
            bad.append(f"charged run, {r['bytes']} B: extra {got:.4e} s, want {want:.4e} s")
    rows, recorded = typecosts(free)
    if recorded is not None:
        bad.append(f"free run: simulation.type_cost {recorded!r}, want null")
    for r in rows:
        if abs(r["struct_s"] - r["contiguous_s"]) > 1e-3 * r["contiguous_s"]:
            bad.append(f"free run, {r['bytes']} B: struct {r['struct_s']:.4e} s against contiguous "
                       f"{r['contiguous_s']:.4e} s, want equal")
    if len(rows) < 3:
        bad.append(f"free run: {len(rows)} typecosts sizes, want 3")
    for line in bad:
        print(f"sim.type-cost: {line}", file=sys.stderr)
    print("sim.type-cost: " + ("FAILED" if bad else "ok: the charge is what --type-cost says, and none without it"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
