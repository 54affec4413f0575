# Simulator (culprit-sim): determinism, same structure as culprit-step, a hidden straggler
# among 1,024 ranks, and the command line. The scripts query run files with the sqlite3 CLI.
if(NOT CULPRIT_SQLITE3)
  message(STATUS "culprit: sqlite3 command not found; simulator integration tests disabled "
                 "(apt-get install sqlite3)")
else()
  set(_sim_scripts ${CMAKE_CURRENT_LIST_DIR}/sim)
  set(_sim_data ${CULPRIT_TEST_DATA}/sim)
  set(_sim_work ${CMAKE_CURRENT_BINARY_DIR}/sim)
  foreach(_test determinism straggler_1024 cli stores_5000)
    culprit_integration_test(sim.${_test} ${_sim_scripts}/${_test}.sh
      ARGS ${CULPRIT_BIN_DIR} ${_sim_data} ${_sim_work}/${_test})
  endforeach()
  culprit_integration_test(sim.adaptive_run ${_sim_scripts}/adaptive_run.sh
    ARGS ${CULPRIT_BIN_DIR} ${CULPRIT_TEST_DATA} ${_sim_work}/adaptive_run)
  # Skipped (exit 77) only while culprit-step is not built.
  culprit_integration_test(sim.same_structure_as_cpu ${_sim_scripts}/same_structure_as_cpu.sh
    ARGS ${CULPRIT_BIN_DIR} ${_sim_data} ${_sim_work}/same_structure_as_cpu ${CULPRIT_MPIRUN}
    TIMEOUT 180 PROPERTIES SKIP_RETURN_CODE 77)
endif()
