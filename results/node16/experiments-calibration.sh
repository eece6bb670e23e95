# results/node16/experiments-calibration.sh: what issue 39 still needs from a 16-core node, for
# the next session that has one (one call per MPI library; see results/node16/README.md, "How to
# run it again"). Sourced by the device runner in the project root; its helpers: launches NAME
# NP CONFIG N [collbench args], with_mpi, for_each_mpi, run_step, $RESULTS. Steps in priority
# order (a step that no longer fits before the deadline is skipped):
#   1. allgatherv-ring (14 ranks): seed 001 settings 5-8 with the project's Allgatherv for
#      unequal pieces as the group phase (configs/allgatherv-ring.yaml); the acceptance's
#      native / fullduplex-allgatherv >= 2.0 at setting 8 on Open MPI
#   2. the simulation's calibration inputs: every launch's metadata now hold the ping-pong (8 sizes) and
#      the call costs (time inside MPI_Send, MPI_Isend, MPI_Recv: SimGrid's smpi/os, ois, or)
#      and the datatype engine's cost (typecosts: simrun --type-cost) and, at 4 ranks or more, the
#      shared memory's slow-down per size (concurrent_pingpong: sim validate run --shared), which the committed
#      reference runs predate; quick-np8 and allgatherv-arith-np14 again,
#      as the validation's reference runs with those inputs
#   3. seed004-np16 (the isomorphic torus, where the per-message cost dominates) and
#      seed000-np16 again, when time is left
ring=results/node16/configs/allgatherv-ring.yaml
agv=results/node16/configs/allgatherv-arith.yaml

for_each_mpi launches allgatherv-ring-np14 14 $ring 3
for_each_mpi launches quick-np8 8 configs/quick.yaml 3
for_each_mpi launches allgatherv-arith-np14 14 $agv 3
for_each_mpi launches seed004-np16 16 configs/paper/seed004-isomorphic.yaml 3 --set timing.reps=40
for_each_mpi launches seed000-np16 16 configs/paper/seed000-halfduplex-fc-ring.yaml 3 --set 'placements=[block]'
