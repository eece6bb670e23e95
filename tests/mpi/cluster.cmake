# The emulated multi-node cluster (python/collrepro/cluster, docs/cluster.md), label `cluster`,
# Open MPI builds only; needs root (network namespaces), iproute2 and util-linux, skipped otherwise:
#   cluster.up_down  bad input, up at 2 nodes with the fidelity check, a validated 2-node collbench
#                    run over TCP, down, SIGTERM during up, a refused link: nothing left after each
#                    (tests/cluster/up_down.sh; about 70 s at load 30)
#   cluster.slurm_array  up with --slurm (munged, slurmctld, one slurmd per node): sinfo shows the
#                    nodes idle; a collslurm array of 2 tasks x 4 processes on 2 nodes, one task
#                    cancelled after its first point, collect incomplete, resubmit resumes it,
#                    ranks on both nodes; down leaves no daemon (tests/cluster/slurm_array.sh;
#                    about 45 s at load 20; needs slurm-wlm and munge)
#   cluster.known_answer  4 nodes at 100 Mbit/s, 10 seeded rounds of the cluster as it is and with
#                    crc-n3's link at half the rate (`cluster shape`): analyze compare flags slower
#                    exactly the points whose ranks use crc-n3's link, no other
#                    (tests/cluster/known_answer.py; about 70 s quiet)
# The pure parts (rates, addresses, the cleanup plan, the route check, the fidelity verdict) are
# checked without root by tests/python/test_cluster_plan.py, with the other Python tests.
# Label timing too: their fidelity checks judge a measured bandwidth (median of up to 5 launches,
# held at load 30 with the cores shared) and take the machine-wide timing lock
# (/tmp/collrepro-timing.lock): the times above are with the lock free; TIMEOUT leaves room to
# wait for other measurements.
# Run: ctest --test-dir build/<dir> -L cluster
# The machine holds one cluster at a time: each test runs under tests/cluster/exclusive.sh, which
# takes a machine-wide lock so that two clones' suites take turns instead of skipping (it waits up
# to 600 s, hence TIMEOUT); a test skipped for a cluster someone left up says so (exit 77, a SKIP: line).
if(COLLREPRO_MPI_FLAVOR STREQUAL "openmpi")
  set(_exclusive bash ${PROJECT_SOURCE_DIR}/tests/cluster/exclusive.sh)
  add_test(NAME cluster.up_down COMMAND ${_exclusive} bash ${PROJECT_SOURCE_DIR}/tests/cluster/up_down.sh)
  # RESOURCE_LOCK cluster: each owns the crc- names while it runs; the link it measures (the
  # fidelity check) holds its verdict at load 30.
  set_tests_properties(cluster.up_down PROPERTIES LABELS "cluster;timing" TIMEOUT 1500 RESOURCE_LOCK cluster SKIP_RETURN_CODE 77
    ENVIRONMENT "COLLBENCH=$<TARGET_FILE:collbench>;REPO=${PROJECT_SOURCE_DIR};${COLLREPRO_MPI_TEST_ENV}")
  collrepro_test_cores(cluster.up_down 2)
  add_test(NAME cluster.slurm_array COMMAND ${_exclusive} bash ${PROJECT_SOURCE_DIR}/tests/cluster/slurm_array.sh)
  set_tests_properties(cluster.slurm_array PROPERTIES LABELS "cluster;slurm;timing" TIMEOUT 1500 RESOURCE_LOCK "cluster;slurm" SKIP_RETURN_CODE 77
    ENVIRONMENT "COLLBENCH=$<TARGET_FILE:collbench>;REPO=${PROJECT_SOURCE_DIR};${COLLREPRO_MPI_TEST_ENV}")
  collrepro_test_cores(cluster.slurm_array 2)
  add_test(NAME cluster.known_answer COMMAND ${_exclusive} /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/cluster/known_answer.py
    --rounds 10 --factor 0.5 --sizes 64KiB)
  set_tests_properties(cluster.known_answer PROPERTIES LABELS "cluster;timing" TIMEOUT 1500 RESOURCE_LOCK cluster SKIP_RETURN_CODE 77
    ENVIRONMENT "COLLBENCH=$<TARGET_FILE:collbench>;REPO=${PROJECT_SOURCE_DIR};${COLLREPRO_MPI_TEST_ENV}")
  collrepro_test_cores(cluster.known_answer 2)
endif()
