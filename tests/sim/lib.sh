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
# start_sim_test NAME SOURCE_DIR: check SimGrid is there, cd to the source tree and make $out,
# a scratch directory removed when the script exits.
start_sim_test() {
  require_smpi "$1"
  cd "$2"
  out=$(mktemp -d "${TMPDIR:-/tmp}/$1-XXXXXX")
  trap 'rm -rf "$out"' EXIT
}
# begin_sim_test NAME SOURCE_DIR BUILD_DIR: the usual start of a sim.* script: sets $src and
# $build, starts the test (start_sim_test) and builds the simulation variant into $build.
begin_sim_test() {
  src=${2:?source dir}
  build=${3:?build dir}
  start_sim_test "$1" "$src"
  build_sim_variant "$build"
}
# check_generated NAME PLATFORM [GENERATOR ARGS...]: the committed platform file (configs/platforms/
# <PLATFORM>.xml) must be what python/collrepro/sim/cori.py writes with those arguments (run
# after start_sim_test).
check_generated() {
  local name=$1 platform=$2
  shift 2
  PYTHONPATH=python /usr/bin/python3 -m collrepro sim cori "$@" -o "$out/$platform.xml"
  cmp -s "$out/$platform.xml" "configs/platforms/$platform.xml" ||
    { echo "$name: configs/platforms/$platform.xml differs from its generator's output:" \
           "run ./collrepro-py sim cori $* and commit the result" >&2; exit 1; }
  echo "$name: configs/platforms/$platform.xml is the generator's output"
}
