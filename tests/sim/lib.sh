# Sourced by the sim.* test scripts (tests/sim/*.sh).
# require_smpi NAME: exit with what to install when SimGrid's smpicxx/smpirun are missing.
require_smpi() {
  command -v smpicxx >/dev/null && command -v smpirun >/dev/null ||
    { echo "$1: smpicxx/smpirun not found: install libsimgrid-dev (./collrepro deps)" >&2; exit 1; }
}
# build_sim_variant BUILD_DIR: configure (preset smpi) and build collbench's simulation variant.
build_sim_variant() {
  cmake --preset smpi -B "$1" >/dev/null
  cmake --build "$1" --target collbench -j "${COLLREPRO_TEST_JOBS:-2}"
}
