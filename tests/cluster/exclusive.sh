#!/usr/bin/env bash
# exclusive.sh CMD...: runs one cluster test while holding the machine's cluster-test lock.
# The machine holds one emulated cluster at a time (its crc- names and state are machine-wide), so
# the cluster tests of two clones on one machine take turns: ctest's RESOURCE_LOCK orders them
# within one suite, this lock across suites. It waits up to COLLREPRO_CLUSTER_WAIT seconds (600),
# then skips with a line saying why. CMD runs without the lock's descriptor, so nothing it starts
# (Slurm's daemons, a killed `up`) can hold the lock after it ends.
set -uo pipefail
LOCK=${COLLREPRO_CLUSTER_TEST_LOCK:-/tmp/collrepro-cluster-tests.lock}
WAIT=${COLLREPRO_CLUSTER_WAIT:-600}
exec 9>>"$LOCK"
if ! flock -n 9; then
  echo "waiting for the cluster-test lock ($LOCK): another clone's cluster tests run on this machine"
  if ! flock -w "$WAIT" 9; then
    echo "SKIP: another suite's cluster tests held the machine's cluster for ${WAIT} s ($LOCK); run this test again after them"
    exit 77
  fi
fi
"$@" 9>&-
