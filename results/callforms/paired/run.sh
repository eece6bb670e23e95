#!/usr/bin/env bash
# The paired measurement of results/callforms/README.md ("The forms side by side, repetition by
# repetition"): paired_forms (bench/micro/forms/paired_forms.cpp) for halfduplex-fc at 64 KiB, 256 KiB and 1 MiB,
# REPS repetitions, LAUNCHES separate launches per library, on 2 processes (one per core on the
# 2-core machine). Writes <library>/L<i>.csv here, each with the machine and library in a
# leading comment. Run it on a quiet machine; nothing else should time at once.
#   results/callforms/paired/run.sh [LAUNCHES] [REPS]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
launches=${1:-3}
reps=${2:-2000}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sizes=(65536 262144 1048576)

run_library() {  # name, build dir, launcher...
  local name=$1 build=$2; shift 2
  local exe="$root/build/$build/bench/micro/paired_forms"
  [ -x "$exe" ] || { echo "run.sh: $exe not built (cmake --build build/$build --target paired_forms)" >&2; return 1; }
  mkdir -p "$here/$name"
  for ((i = 0; i < launches; i++)); do
    local out="$here/$name/L$i.csv" tmp="$here/$name/.L$i.csv.tmp"
    { echo "# $name, 2 processes ($*), on $(nproc) cores of $(hostname -s) ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(date -u +%FT%TZ), commit $(git -C "$root" rev-parse --short HEAD)"
      "$@" -n 2 "$exe" halfduplex-fc "$reps" "${sizes[@]}"; } >"$tmp"
    mv "$tmp" "$out"
    echo "run.sh: $name launch $((i + 1)) of $launches -> $out"
  done
}

# Each process bound to its own core, as collrun's launches are.
run_library openmpi-4.1.4 openmpi mpirun.openmpi --bind-to core
run_library mpich-4.0.2 mpich mpiexec.mpich -bind-to core
if [ -d "$HOME/.cache/collrepro/mpi/openmpi-5.0.7" ] && [ -x "$root/build/openmpi-5.0.7/bench/micro/paired_forms" ]; then
  eval "$("$root/bench/collmpi" env openmpi-5.0.7)"
  run_library openmpi-5.0.7 openmpi-5.0.7 mpirun --bind-to core
else
  echo "run.sh: openmpi-5.0.7 skipped: bench/collmpi build openmpi@5.0.7, bench/collmpi collbench openmpi-5.0.7," \
       "then cmake build/openmpi-5.0.7 -DCOLLREPRO_MICRO=ON && cmake --build build/openmpi-5.0.7 --target paired_forms" >&2
fi
