# The PMPI interposer (docs/pmpi.md) on unmodified MPI programs, with real mpirun: a program of
# our own (steps_program.c, no culprit header) and LAMMPS from Debian (`lmp`). Scripts under
# pmpi/; each writes into its own folder under the build tree.
add_executable(pmpi_steps_program ${CMAKE_CURRENT_LIST_DIR}/pmpi/steps_program.c)
set_target_properties(pmpi_steps_program PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
target_link_libraries(pmpi_steps_program PRIVATE MPI::MPI_C)
add_dependencies(pmpi_steps_program culprit_pmpi)
set(_pmpi_scripts ${CMAKE_CURRENT_LIST_DIR}/pmpi)
set(_pmpi_work ${CMAKE_CURRENT_BINARY_DIR}/pmpi)
culprit_integration_test(pmpi.own_program ${_pmpi_scripts}/own_program.sh
  ARGS ${CULPRIT_BIN_DIR} ${CULPRIT_TEST_DATA} ${_pmpi_work}/own_program
       $<TARGET_FILE:pmpi_steps_program>
  TIMEOUT 300 PROPERTIES RESOURCE_LOCK mpi)
# Communicators made and freed without end (issue 38 item 7): comm_churn.c, 120 of them.
add_executable(pmpi_comm_churn ${CMAKE_CURRENT_LIST_DIR}/pmpi/comm_churn.c)
set_target_properties(pmpi_comm_churn PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
target_link_libraries(pmpi_comm_churn PRIVATE MPI::MPI_C)
add_dependencies(pmpi_comm_churn culprit_pmpi)
culprit_integration_test(pmpi.comm_churn ${_pmpi_scripts}/comm_churn.sh
  ARGS ${CULPRIT_BIN_DIR} ${CULPRIT_TEST_DATA} ${_pmpi_work}/comm_churn
       $<TARGET_FILE:pmpi_comm_churn>
  TIMEOUT 120 PROPERTIES RESOURCE_LOCK mpi)
foreach(_case lammps_validate lammps_compare)
  culprit_integration_test(pmpi.${_case} ${_pmpi_scripts}/${_case}.sh
    ARGS ${CULPRIT_BIN_DIR} ${CULPRIT_TEST_DATA} ${_pmpi_work}/${_case}
    TIMEOUT 300 PROPERTIES RESOURCE_LOCK mpi)
endforeach()
# Timing-sensitive (step times within 1 %, delays of 5-20 ms blamed): keep other tests off the
# two cores meanwhile.
set_tests_properties(integration.pmpi.own_program integration.pmpi.lammps_validate PROPERTIES
  RUN_SERIAL TRUE)
