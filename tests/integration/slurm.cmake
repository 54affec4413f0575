# Slurm: sweeps submitted to a real single-node cluster (scripts/slurm-local: munged, slurmctld,
# slurmd from Debian's packages), srun inside allocations, provenance, resume after scancel.
# The fixture starts the cluster when it is not up (scripts/test starts it before the
# integration tests and stops it at exit; `scripts/slurm-local stop` stops one left by ctest).
find_program(CULPRIT_SLURMCTLD slurmctld PATHS /usr/sbin)
if(CULPRIT_SLURMCTLD AND CULPRIT_SQLITE3)
  culprit_integration_test(slurm.cluster_up ${CMAKE_SOURCE_DIR}/scripts/slurm-local ARGS start
    TIMEOUT 60 PROPERTIES FIXTURES_SETUP slurm_cluster)
  culprit_integration_scripts(slurm
    SCRIPTS sweep_wait cancel_resume srun_provenance failure_classes
    EXTRA_ARGS ${CMAKE_SOURCE_DIR}
    TIMEOUT 240 PROPERTIES RESOURCE_LOCK mpi FIXTURES_REQUIRED slurm_cluster)
else()
  message(STATUS "culprit: slurmctld or sqlite3 missing, Slurm integration tests skipped "
                 "(scripts/bootstrap installs slurmctld slurmd slurm-client munge)")
endif()
