# Sourced by the sim.* test scripts (tests/sim/*.sh).
# require_smpi NAME: exit with what to install when SimGrid's smpicxx/smpirun are missing.
require_smpi() {
  command -v smpicxx >/dev/null && command -v smpirun >/dev/null ||
    { echo "$1: smpicxx/smpirun not found: install libsimgrid-dev (./collrepro deps)" >&2; exit 1; }
}
# The simulation variants the tests built, kept outside every clone like the source-built MPIs:
# ${COLLREPRO_CACHE:-${XDG_CACHE_HOME:-~/.cache}/collrepro}/sim-variant/<key>/collbench, the key a
# hash of everything collbench is built from (the sources under algorithms/, bench/, contract/,
# cmake/, the CMake files, the compiler and SimGrid). A variant taken from there reports, in its
# results' metadata, the git revision of the first build of those very sources. At most
# SIM_CACHE_KEEP variants are kept, the newest.
SIM_CACHE_KEEP=3
sim_cache_dir() { echo "${COLLREPRO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/collrepro}/sim-variant"; }
sim_variant_key() {  # run in the source tree
  {
    smpicxx --version 2>&1 | head -n 1
    dpkg-query -W -f='${Version}\n' libsimgrid-dev 2>/dev/null || true
    find algorithms bench contract cmake CMakeLists.txt CMakePresets.json -type f -print0 | sort -z | xargs -0 sha256sum
  } | sha256sum | cut -c1-20
}
# build_sim_variant BUILD_DIR: collbench's simulation variant in BUILD_DIR/bench/collbench: from the
# cache when these sources were built before, else configured (preset smpi), built and cached.
build_sim_variant() {
  local build=$1 cache key
  key=$(sim_variant_key)
  cache="$(sim_cache_dir)/$key"
  if [ -x "$cache/collbench" ]; then
    mkdir -p "$build/bench"
    cp "$cache/collbench" "$build/bench/.collbench.$$" && mv -f "$build/bench/.collbench.$$" "$build/bench/collbench"
    touch "$cache"
    echo "the simulation variant of these sources from the cache: $cache"
    return 0
  fi
  cmake --preset smpi -B "$build" >/dev/null
  cmake --build "$build" --target collbench -j "${COLLREPRO_TEST_JOBS:-2}"
  store_sim_variant "$build/bench/collbench" "$cache"
}
# store_sim_variant BINARY CACHE_ENTRY: an entry appears whole or not at all (a rename); the
# oldest beyond SIM_CACHE_KEEP go. A cache that cannot be written costs only the next build.
store_sim_variant() {
  local tmp="$2.tmp.$$"
  mkdir -p "$tmp" && cp "$1" "$tmp/collbench" && mv -T "$tmp" "$2" 2>/dev/null || { rm -rf "$tmp"; return 0; }
  ls -1dt "$(dirname "$2")"/*/ 2>/dev/null | tail -n +$((SIM_CACHE_KEEP + 1)) | xargs -r rm -rf
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
# <PLATFORM>.xml) must be what python/collrepro/sim/platforms/cori.py writes with those arguments (run
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
