#!/usr/bin/env bash
# sim.smoke (registered by tests/mpi/sim.cmake, LABELS sim): builds the SimGrid SMPI variant
# (preset smpi) into BUILD_DIR and runs tests/sim/smoke.yaml twice in simulation - 64 ranks on
# configs/platforms/flat-crossbar.xml, once without and once with SMPI's global-variable
# privatization - then tests/sim/check_smoke.py checks determinism (identical times), that
# halfduplex-fc beats root-gathering at the largest size, and the metadata. Then it validates
# every isomorphic collective in simulation (tests/sim/iso_validate.yaml, 16 ranks): collbench
# exits 3 on any wrong byte.
#   tests/sim/smoke.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=${1:?source dir}
build=${2:?build dir}
source "$(dirname "$0")/lib.sh"
start_sim_test sim.smoke "$src"
echo "sim.smoke: the simulation variant in $build (built, or from the cache of variants: tests/sim/lib.sh)"
build_sim_variant "$build"
for priv in no yes; do
  bench/sim/simrun --build-dir "$build" --platform configs/platforms/flat-crossbar.xml --np 64 \
    --privatize "$priv" --out "$out/$priv" tests/sim/smoke.yaml -- --quiet
done
/usr/bin/python3 tests/sim/check_smoke.py "$out/no" "$out/yes"
echo "sim.smoke: validate the isomorphic collectives in simulation (16 ranks, r = 3 on 4x2x2)"
bench/sim/simrun --build-dir "$build" --platform configs/platforms/flat-crossbar.xml --np 16 \
  --out "$out/iso" tests/sim/iso_validate.yaml -- --quiet --set "sizes=[0B,1B,16B]"  # a list through smpirun
/usr/bin/python3 - "$out/iso" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/summary-L0.csv")))
config = json.load(open(sys.argv[1] + "/meta-L0.json"))["config"]
assert config["validation"] is True and "validation_max_bytes" not in config, config
for coll in ("neighbor-alltoall", "neighbor-allgather", "neighbor-alltoallw"):
    assert any(r["collective"] == coll and r["algorithm"] == "torus-direct" for r in rows), f"no torus-direct {coll} point"
print(f"sim.smoke: {len(rows)} isomorphic points validated in simulation")
PY
