# results/node16/experiments-callforms.sh: the call-form tables (results/callforms/) at 16 ranks,
# one per core, for the next session lent a 16-core node (one call per MPI library; see
# results/node16/README.md, "How to run it again"). Sourced by the device runner in the project
# root; its helpers: launches NAME NP CONFIG N [collbench args], for_each_mpi, $RESULTS.
#   1. callforms-np16: halfduplex-fc and the native Allgather at 8:8, half duplex, 64 KiB to
#      1 MiB, blocking, nonblocking (with its overlap measurement) and persistent (init timed
#      once per point), 5 launches: the overlap, init cost and break-even starts of
#      results/callforms/README.md at 16 ranks (analysis/analyze report on what comes back)
#   2. callforms-np16-1to15: the same at 1:15 (one process against the rest), 3 launches, when
#      time is left
# Checked here with collbench --dry-run --nprocs 16 and these --set overrides: 18 points per launch.
forms=configs/callforms/halfduplex-fc-callforms.yaml

for_each_mpi launches callforms-np16 16 $forms 5 --set timing.reps=100
for_each_mpi launches callforms-np16-1to15 16 $forms 3 --set timing.reps=100 --set 'groups.ratios=["1/15"]'
