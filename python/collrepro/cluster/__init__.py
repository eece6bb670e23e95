"""An emulated multi-node cluster on one machine (`collrepro-py cluster`, docs/cluster.md).

  plan.py      names, addresses, rates, the cleanup plan and the route check: pure
  net.py       namespaces, veth pairs, the bridge and tbf with iproute2; entering a node; removal
  mpi.py       the remote-shell agent, host files and environment for Open MPI and MPICH
  fidelity.py  the ping-pong check of the configured link rate (under the timing lock)
  cli.py       up, status, run, down
"""
