#!/usr/bin/env bash
# mpi.mpich.yield.np3: the yield library takes effect where the MPICH build's tests preload it.
# Three ranks of collbench (tests/mpi/intra.yaml, its own validation of every point) run in the
# tests' environment with COLLREPRO_MPICH_YIELD_REPORT set: the run must pass, and each rank must
# report at exit that it polled through the library and yielded. Were MPICH to stop calling
# ucp_worker_progress (another device, another release), this fails instead of the suite
# quietly growing slow again.
set -uo pipefail
: "${MPIEXEC:?}" "${COLLBENCH:?}" "${REPO:?}"
NP=3
work=$(mktemp -d -t collrepro-mpich-yield.XXXXXX)
trap 'rm -rf "$work"' EXIT
out=$(COLLREPRO_MPICH_YIELD_REPORT=1 "$MPIEXEC" -n "$NP" "$COLLBENCH" "$REPO/tests/mpi/intra.yaml" --quiet \
        --out "$work/out" --set experiment=yield-check 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "mpich_yield: the run failed (exit $rc)"; exit 1; }
reports=$(grep -cE '^collrepro-mpich-yield: [0-9]+ polls, [1-9][0-9]* yields$' <<<"$out")
[ "$reports" -eq "$NP" ] ||
  { echo "mpich_yield: $reports of $NP ranks report polls and yields through the library (want all)"; exit 1; }
echo "mpich_yield: all $NP ranks polled through the library and yielded"
