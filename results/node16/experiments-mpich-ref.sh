# results/node16/experiments-mpich-ref.sh: the MPICH half of experiments-extra.sh's reference
# runs (seed 000 with every size, seed 004), one rank per core.
with_mpi mpich launches seed000-np16 16 configs/paper/seed000-halfduplex-fc-ring.yaml 3 --set 'placements=[block]'
with_mpi mpich launches seed004-np16 16 configs/paper/seed004-isomorphic.yaml 3 --set timing.reps=40
