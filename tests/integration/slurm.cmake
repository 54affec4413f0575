# Slurm: sweeps submitted to a real single-node cluster (scripts/slurm-local: munged, slurmctld,
# slurmd from Debian's packages), srun inside allocations, provenance, resume after scancel.
# The fixture starts the cluster when it is not up (scripts/test starts it before the
# integration tests and stops it at exit; `scripts/slurm-local stop` stops one left by ctest).
find_program(CULPRIT_SLURMCTLD slurmctld PATHS /usr/sbin)
find_program(CULPRIT_SQLITE3_SLURM sqlite3)
if(CULPRIT_SLURMCTLD AND CULPRIT_SQLITE3_SLURM)
  add_test(NAME integration.slurm.cluster_up
    COMMAND ${CMAKE_SOURCE_DIR}/scripts/slurm-local start)
  set_tests_properties(integration.slurm.cluster_up PROPERTIES
    LABELS integration TIMEOUT 60 FIXTURES_SETUP slurm_cluster)
  foreach(script sweep_wait cancel_resume srun_provenance failure_classes)
    add_test(NAME integration.slurm.${script}
      COMMAND ${CULPRIT_BASH} ${CMAKE_CURRENT_LIST_DIR}/slurm/${script}.sh ${CULPRIT_BIN_DIR}
              ${CULPRIT_TEST_DATA} ${CMAKE_CURRENT_BINARY_DIR}/slurm_${script}
              ${CMAKE_SOURCE_DIR})
    set_tests_properties(integration.slurm.${script} PROPERTIES
      LABELS integration TIMEOUT 240 RESOURCE_LOCK mpi FIXTURES_REQUIRED slurm_cluster)
  endforeach()
else()
  message(STATUS "culprit: slurmctld or sqlite3 missing, Slurm integration tests skipped "
                 "(scripts/bootstrap installs slurmctld slurmd slurm-client munge)")
endif()
