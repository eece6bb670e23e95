#!/bin/bash
# One link loaded one way and both ways (duplex.yaml) on 2 emulated nodes at RATE (default
# 100mbit), LAUNCHES launches (default 3): runs/<rate>/duplex/. Separate from the 4-node runs that
# the simulation is checked against (run.sh), so that a number taken from it is not fitted to them.
set -euo pipefail
rate=${1:-100mbit} launches=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."  # the checkout
trap './collrepro-py cluster down >/dev/null' EXIT
./collrepro-py cluster down >/dev/null
./collrepro-py cluster up --nodes 2 --cores-per-node 1 --link "$rate"
for ((l = 0; l < launches; l++)); do
  ./collrepro-py cluster run -- mpirun.openmpi -n 2 --map-by node build/openmpi/bench/collbench \
    "$here/duplex.yaml" --launch "$l" --out "$here/runs/$rate/duplex" --quiet
done
