# results/node16/experiments-extra.sh: Open MPI only, after experiments.sh (issue #27):
#   1. why the arithmetic Allgatherv loses: seed 001 setting 8 (11:3, arithmetic) and setting 7
#      (11:3, equal) at 14 ranks with each of Open MPI's Allgatherv algorithms forced
#      (coll_tuned_allgatherv_algorithm 1 default, 2 Bruck, 3 ring, 4 neighbor exchange)
#   2. the launch-to-launch bimodality of the native intra MPI_Allgather at 16 ranks, 1 MiB:
#      8 interleaved launches each of: bound to cores (the default), unbound, the vader
#      single-copy mechanism CMA, and the shared-memory segment in /tmp instead of /dev/shm
agv=results/node16/configs/allgatherv-arith.yaml
bimo=configs/timing/sync-methods.yaml

allgatherv_algorithms() {
  local alg l
  for l in 0 1; do
    for alg in 1 2 3 4; do
      run_step "$MPI_NAME-agv-alg$alg-L$l" 10 env OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
        OMPI_MCA_coll_tuned_allgatherv_algorithm=$alg "$MPIRUN" -n 14 "${BIND[@]}" "$COLLBENCH" $agv \
        --out "$RESULTS/agv-alg$alg-np14/$MPI_NAME" --launch "$l" --quiet --set 'sizes=[512KiB]'
    done
  done
}

bimodality() {
  local l
  local sets=(--set 'sizes=[1MiB]' --set timing.reps=60)
  for ((l = 0; l < 8; l++)); do
    run_step "$MPI_NAME-bi-core-L$l" 10 "$MPIRUN" -n 16 "${BIND[@]}" "$COLLBENCH" $bimo \
      --out "$RESULTS/bi-core-np16/$MPI_NAME" --launch "$l" --quiet "${sets[@]}"
    run_step "$MPI_NAME-bi-none-L$l" 10 "$MPIRUN" -n 16 --bind-to none "$COLLBENCH" $bimo \
      --out "$RESULTS/bi-none-np16/$MPI_NAME" --launch "$l" --quiet "${sets[@]}"
    run_step "$MPI_NAME-bi-cma-L$l" 10 env OMPI_MCA_btl_vader_single_copy_mechanism=cma "$MPIRUN" -n 16 \
      "${BIND[@]}" "$COLLBENCH" $bimo --out "$RESULTS/bi-cma-np16/$MPI_NAME" --launch "$l" --quiet "${sets[@]}"
    run_step "$MPI_NAME-bi-tmp-L$l" 10 env OMPI_MCA_btl_vader_backing_directory=/tmp "$MPIRUN" -n 16 \
      "${BIND[@]}" "$COLLBENCH" $bimo --out "$RESULTS/bi-tmp-np16/$MPI_NAME" --launch "$l" --quiet "${sets[@]}"
  done
}

with_mpi openmpi allgatherv_algorithms
with_mpi openmpi bimodality

# 3. reference runs at one rank per core (Open MPI): seed 000 with every size (its fully
#    connected setting now includes halfduplex-fc-minvol) and seed 004 (the isomorphic torus)
with_mpi openmpi launches seed000-np16 16 configs/paper/seed000-halfduplex-fc-ring.yaml 3 --set 'placements=[block]'
with_mpi openmpi launches seed004-np16 16 configs/paper/seed004-isomorphic.yaml 3 --set timing.reps=40
