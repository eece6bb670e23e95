#!/usr/bin/env bash
# sim.smoke (registered by tests/mpi/sim.cmake, LABELS sim): builds the SimGrid SMPI variant
# (preset smpi) into BUILD_DIR and runs tests/sim/smoke.yaml twice in simulation - 64 ranks on
# configs/platforms/flat-crossbar.xml, once without and once with SMPI's global-variable
# privatization - then tests/sim/check_smoke.py checks determinism (identical times), that
# halfduplex-fc beats root-gathering at the largest size, and the metadata.
#   tests/sim/smoke.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=${1:?source dir}
build=${2:?build dir}
command -v smpicxx >/dev/null && command -v smpirun >/dev/null ||
  { echo "sim.smoke: smpicxx/smpirun not found: install libsimgrid-dev (./collrepro deps)" >&2; exit 1; }
cd "$src"
echo "sim.smoke: configure and build the simulation variant in $build"
cmake --preset smpi -B "$build" >/dev/null
cmake --build "$build" --target collbench -j "${COLLREPRO_TEST_JOBS:-2}"
out=$(mktemp -d "${TMPDIR:-/tmp}/sim-smoke-XXXXXX")
trap 'rm -rf "$out"' EXIT
for priv in no yes; do
  bench/sim/simrun --build-dir "$build" --platform configs/platforms/flat-crossbar.xml --np 64 \
    --privatize "$priv" --out "$out/$priv" tests/sim/smoke.yaml -- --quiet
done
/usr/bin/python3 tests/sim/check_smoke.py "$out/no" "$out/yes"
