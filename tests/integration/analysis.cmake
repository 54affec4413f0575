# Blind attribution end to end: real mpirun (4 ranks, sleep compute) and the simulator write run
# files with an injected straggler; `culprit attribute --json` must blame it (scripts under
# analysis/, JSON checked with python3).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  set(_analysis_scripts ${CMAKE_CURRENT_LIST_DIR}/analysis)
  set(_analysis_work ${CMAKE_CURRENT_BINARY_DIR}/analysis)
  foreach(_case delay_rank2_fwd_layer1 delay_rank2_fwd_layer1_skew_rank1)
    add_test(NAME integration.analysis.mpirun_${_case}
      COMMAND ${CULPRIT_BASH} ${_analysis_scripts}/attribute_mpirun.sh ${CULPRIT_BIN_DIR}
              ${CULPRIT_TEST_DATA} ${_analysis_work}/${_case} ${CULPRIT_MPIRUN} ${_case}.json)
    set_tests_properties(integration.analysis.mpirun_${_case} PROPERTIES
      LABELS integration TIMEOUT 120 RESOURCE_LOCK mpi)
  endforeach()
  add_test(NAME integration.analysis.sim_64_ranks
    COMMAND ${CULPRIT_BASH} ${_analysis_scripts}/attribute_sim.sh ${CULPRIT_BIN_DIR}
            ${CULPRIT_TEST_DATA} ${_analysis_work}/sim_64_ranks)
  set_tests_properties(integration.analysis.sim_64_ranks PROPERTIES LABELS integration TIMEOUT 120)
  add_test(NAME integration.analysis.validate_explain_sim
    COMMAND ${CULPRIT_BASH} ${_analysis_scripts}/validate_explain_sim.sh ${CULPRIT_BIN_DIR}
            ${CULPRIT_TEST_DATA} ${_analysis_work}/validate_explain_sim)
  set_tests_properties(integration.analysis.validate_explain_sim PROPERTIES
    LABELS integration TIMEOUT 180)
  add_test(NAME integration.analysis.small_world_sim
    COMMAND ${CULPRIT_BASH} ${_analysis_scripts}/small_world.sh ${CULPRIT_BIN_DIR}
            ${CULPRIT_TEST_DATA} ${_analysis_work}/small_world_sim
            small-world-2.toml small-world-3.toml)
  set_tests_properties(integration.analysis.small_world_sim PROPERTIES
    LABELS integration TIMEOUT 180)
  add_test(NAME integration.analysis.small_world_mpirun
    COMMAND ${CULPRIT_BASH} ${_analysis_scripts}/small_world.sh ${CULPRIT_BIN_DIR}
            ${CULPRIT_TEST_DATA} ${_analysis_work}/small_world_mpirun small-world-mpirun-2.toml)
  set_tests_properties(integration.analysis.small_world_mpirun PROPERTIES
    LABELS integration TIMEOUT 240 RESOURCE_LOCK mpi)
else()
  message(STATUS "culprit: python3 not found: analysis integration tests disabled")
endif()
