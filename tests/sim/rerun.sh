#!/usr/bin/env bash
# sim.rerun (registered by tests/mpi/sim.cmake, LABELS sim): the committed simulations of
# results/sim/validation come back when rerun. `sim validate run --only quick-np8` simulates that
# experiment again for both libraries (8 ranks, 80 points each, a few seconds); every median must
# be a simulated tie (collrepro.sim.validation.ties) of the committed one, and the largest spread is printed.
# A rerun of the same command can move a median of a few microseconds by one of SimGrid's 1e-9 s
# date steps (2.6e-4 of 3.9 us, measured on 46 of 800 points): the tie is absolute for that reason.
#   tests/sim/rerun.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
begin_sim_test sim.rerun "$@"
cp results/sim/validation/README.md results/sim/validation/*.csv "$out"/
./collrepro-py sim validate run --only quick-np8 --out "$out" --build-dir "$build" >"$out/run.log" 2>&1 ||
  { cat "$out/run.log"; echo "sim.rerun: sim validate run failed" >&2; exit 1; }
PYTHONPATH=python:tests/sim /usr/bin/python3 - "$out/sims" results/sim/validation/sims <<'PY'
import sys
from check_same_medians import medians
from collrepro.sim.validation import ties

new_root, old_root = sys.argv[1:]
bad, seen, moved, worst_s, worst_rel = [], 0, 0, 0.0, 0.0
for lib in ("mpich", "openmpi"):
    new, old = medians(f"{new_root}/quick-np8/{lib}"), medians(f"{old_root}/quick-np8/{lib}")
    assert new and set(new) == set(old), f"{lib}: the rerun has other points ({len(new)} against {len(old)})"
    for k, (a, _) in old.items():
        b = new[k][0]
        seen += 1
        moved += a != b
        worst_s, worst_rel = max(worst_s, abs(a - b)), max(worst_rel, abs(a - b) / a)
        if not ties.tied(a, b):
            bad.append(f"{lib} {k}: committed {a!r}, rerun {b!r}")
for line in bad:
    print(f"sim.rerun: FAIL {line}")
assert not bad, f"{len(bad)} of {seen} medians are not a simulated tie of the committed ones"
print(f"sim.rerun: {seen} medians, {moved} moved, at most {worst_s:.1e} s ({worst_rel:.1e} relative), "
      f"all within the tie ({ties.TIE_S:.0e} s or {ties.TIE_REL:.0e} relative): passed")
PY
