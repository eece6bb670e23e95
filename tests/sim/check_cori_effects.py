#!/usr/bin/python3
"""Checks of sim.cori-effects, 32 ranks x 8 per node, 4 MiB, three p/q:
  - differ: halfduplex-fc, whose 8 processes per node all send and receive off the node at once
    (its final allgather), must take at least DIFFER times as long on cori-effects as on the
    crossbar at every p/q: the shared NIC carries both directions of 8 processes;
  - agree: the ping-pong that collbench records (ranks 0 and 1, on one node at 8 per node) never
    leaves the node, so at 64 KiB and above (no per-message cost: SMPI charges it to eager
    messages only) it must take the same time on both, within AGREE;
  - the cori-effects run's metadata records the groups, chassis and routers the job occupies.

  check_cori_effects.py CROSSBAR_DIR EFFECTS_DIR"""
import json
import os
import sys

from summary import finish, read_summary

DIFFER = 1.25
AGREE = 0.01


def medians(directory):
    """{(p, q, algorithm): median} at the set's largest size."""
    rows = read_summary(directory, "check_cori_effects")
    largest = max(int(r["msg_bytes"]) for r in rows)
    return {(int(r["p"]), int(r["q"]), r["algorithm"]): float(r["median"]) for r in rows if int(r["msg_bytes"]) == largest}


def pingpong(directory):
    with open(os.path.join(directory, "meta-L0.json")) as fh:
        return {int(x["bytes"]): float(x["time_s"]) for x in json.load(fh).get("pingpong") or [] if x.get("time_s")}


def main(crossbar, effects):
    flat, eff = medians(crossbar), medians(effects)
    shapes = sorted({(p, q) for p, q, a in flat if a == "halfduplex-fc"})
    if not shapes or any((s + ("halfduplex-fc",)) not in eff for s in shapes):
        sys.exit(f"check_cori_effects: halfduplex-fc missing at some p/q: {sorted(flat)} vs {sorted(eff)}")
    failed = 0
    for s in shapes:
        key = s + ("halfduplex-fc",)
        ratio = eff[key] / flat[key]
        ok = ratio >= DIFFER
        failed += not ok
        rg = s + ("root-gathering",)
        speedups = (f"; speedup root-gathering/halfduplex-fc crossbar {flat[rg] / flat[key]:.2f}, "
                    f"cori-effects {eff[rg] / eff[key]:.2f}") if rg in flat and rg in eff else ""
        print(f"check_cori_effects: differ: p/q {s[0]}/{s[1]} halfduplex-fc {flat[key]:.4g} s crossbar, "
              f"{eff[key]:.4g} s cori-effects (x{ratio:.2f}, want >= x{DIFFER}){speedups}: {'ok' if ok else 'FAIL'}")
    pf, pe = pingpong(crossbar), pingpong(effects)
    big = sorted(b for b in pf if b >= 65536 and b in pe)
    if not big:
        sys.exit(f"check_cori_effects: no ping-pong of 64 KiB or more in both runs' metadata ({sorted(pf)})")
    for b in big:
        off = pe[b] / pf[b] - 1
        ok = abs(off) <= AGREE
        failed += not ok
        print(f"check_cori_effects: agree: intra-node ping-pong {b} B {pf[b]:.4g} s crossbar, {pe[b]:.4g} s "
              f"cori-effects ({off:+.2%}, want within {AGREE:.0%}): {'ok' if ok else 'FAIL'}")
    with open(os.path.join(effects, "meta-L0.json")) as fh:
        where = json.load(fh)["simulation"]["placement"]
    if "occupies" not in where:
        failed += 1
        print(f"check_cori_effects: placement: the run does not record what it occupies: {where!r}: FAIL")
    else:
        print(f"check_cori_effects: placement recorded: {where}")
    finish("check_cori_effects", failed)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
