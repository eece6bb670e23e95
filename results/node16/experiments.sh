# results/node16/experiments.sh: the node-scale runs of issue #27 on a 16-core machine, one rank
# per core bound to its core, each launch its own mpirun with --launch L. Sourced by the device
# runner (run-on-device.sh, see results/node16/README.md) in the project root; its helpers:
# launches NAME NP CONFIG N [collbench args], with_mpi, for_each_mpi, run_step, $RESULTS.
# Steps in priority order (a step that no longer fits before the deadline is skipped):
#   1. pq-fix (16 ranks): halfduplex-fc vs halfduplex-fc-minvol vs root gathering vs native at
#      p/q 3:1, 1:1, 1:3, 32 KiB .. 4 MiB, phases on, interleaved with the same points with
#      phases off (the phases' cost on the timed total)
#   2. allgatherv-arith (14 ranks): seed 001 settings 5-8 with phases
#   3. quick (8 ranks): configs/quick.yaml, the default experiment
#   4. arrival (16 ranks): configs/arrival/intergroup-arrival.yaml, when present
pq=results/node16/configs/pq-fix.yaml
agv=results/node16/configs/allgatherv-arith.yaml
arrival=configs/arrival/intergroup-arrival.yaml

# Launch l of `on` (phases on) then launch l of `off` (phases off), for l < N.
interleaved_phases() { # N
  local l
  for ((l = 0; l < $1; l++)); do
    run_step "$MPI_NAME-pq-fix-L$l" 30 "$MPIRUN" -n 16 "${BIND[@]}" "$COLLBENCH" $pq \
      --out "$RESULTS/pq-fix-np16/$MPI_NAME" --launch "$l" --quiet
    run_step "$MPI_NAME-pq-nophases-L$l" 30 "$MPIRUN" -n 16 "${BIND[@]}" "$COLLBENCH" $pq \
      --out "$RESULTS/pq-nophases-np16/$MPI_NAME" --launch "$l" --quiet --set timing.phases=false \
      --set 'groups.ratios=["3/1"]' --set 'sizes=[256KiB,4MiB]'
  done
}

n_pq=${NODE16_PQ_LAUNCHES:-3}
n_other=${NODE16_OTHER_LAUNCHES:-3}
if [ "${DEVBUNDLE_DRY_RUN:-0}" = 1 ]; then
  for_each_mpi launches pq-fix-np16 16 $pq "$n_pq"
  for_each_mpi launches pq-nophases-np16 16 $pq "$n_pq" --set timing.phases=false \
    --set 'groups.ratios=["3/1"]' --set 'sizes=[256KiB,4MiB]'
else
  for_each_mpi interleaved_phases "$n_pq"
fi
for_each_mpi launches allgatherv-arith-np14 14 $agv "$n_other"
for_each_mpi launches quick-np8 8 configs/quick.yaml "$n_other"
if [ -f "$arrival" ]; then for_each_mpi launches arrival-np16 16 $arrival 2; fi
