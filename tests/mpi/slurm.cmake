# Slurm job arrays (slurm/collslurm), label `slurm`, Open MPI builds only:
#   slurm.plan   /usr/bin/python3 unittest, no Slurm: slicing, task-id mapping, overrides, errors,
#                submit --dry-run, collect/status on results of the batch script run by hand
#   slurm.e2e    a private single-node Slurm (munged + slurmctld + slurmd on 127.0.0.1, started and
#                stopped by the test): submit, status, collect, scancel, resubmit (tests/slurm/e2e.sh)
# Both need Debian's slurm-wlm and munge for e2e (listed in .ci/extra-packages).
# Run: ctest --test-dir build/<dir> -L slurm
if(COLLREPRO_MPI_FLAVOR STREQUAL "openmpi")
  set(_slurm_dir ${PROJECT_SOURCE_DIR}/tests/slurm)
  set(_slurm_env
      "COLLBENCH=$<TARGET_FILE:collbench>;REPO=${PROJECT_SOURCE_DIR};${COLLREPRO_MPI_TEST_ENV}")

  add_test(NAME slurm.plan COMMAND /usr/bin/python3 ${_slurm_dir}/test_plan.py)
  set_tests_properties(slurm.plan PROPERTIES LABELS slurm TIMEOUT 600 ENVIRONMENT "${_slurm_env}")

  add_test(NAME slurm.e2e COMMAND bash ${_slurm_dir}/e2e.sh)
  # It cancels a task while it runs: its verdicts are on states (running, cancelled, resumed), not on
  # times, so it runs beside other tests; RESOURCE_LOCK slurm keeps it apart from the other test that
  # starts Slurm daemons (cluster.slurm_array): a precaution, no clash between the two was seen.
  set_tests_properties(slurm.e2e PROPERTIES LABELS slurm TIMEOUT 900 RESOURCE_LOCK slurm
    ENVIRONMENT "${_slurm_env};WORK=${CMAKE_CURRENT_BINARY_DIR}/slurm-work/e2e")
  collrepro_test_cores(slurm.plan 1)
  collrepro_test_cores(slurm.e2e 2)
endif()
