#!/bin/bash
# The fidelity check at 100 Mbit/s and 1 Gbit/s, 2 and 4 nodes, 3 ups each (results/cluster/README.md).
# --cores-per-node 1: on a 2-core machine 2 nodes get a core each, 4 nodes share both cores.
cd "$(dirname "$0")/../../.."  # the checkout
for rate in 100mbit 1gbit; do for nodes in 2 4; do for i in 1 2 3; do
  ./collrepro-py cluster down >/dev/null
  out=$(./collrepro-py cluster up --nodes $nodes --cores-per-node 1 --link $rate 2>&1); code=$?
  echo "$rate $nodes $i exit=$code load=$(cut -d' ' -f1 /proc/loadavg) $out"
  [[ $code == 0 ]] && cp /run/collrepro-cluster/fidelity.json "$(dirname "$0")"/$rate-$nodes-$i.json
done; done; done
./collrepro-py cluster down
