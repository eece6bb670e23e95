#!/bin/bash
# The real half of the cluster validation (results/cluster/README.md, "The simulation against a
# known network"): 4 emulated nodes, one rank each, links at RATE (default 100mbit), the seed 000
# and seed 001 experiments of this folder, LAUNCHES launches each (default 3), Open MPI over TCP.
# Writes runs/<rate>/<experiment>/; the simulated half: `collrepro-py sim validate cluster`.
set -euo pipefail
rate=${1:-100mbit} launches=${2:-3} experiments=${3:-seed000 seed001}
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."  # the checkout
trap './collrepro-py cluster down >/dev/null' EXIT
./collrepro-py cluster down >/dev/null
./collrepro-py cluster up --nodes 4 --cores-per-node 1 --link "$rate"
for exp in $experiments; do
  out="$here/runs/$rate/$exp"
  for ((l = 0; l < launches; l++)); do
    echo "$exp launch $l of $launches: $(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg)"
    ./collrepro-py cluster run -- mpirun.openmpi -n 4 --map-by node build/openmpi/bench/collbench \
      "$here/$exp-4nodes.yaml" --launch "$l" --out "$out" --quiet
  done
done
