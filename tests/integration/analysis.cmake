# Blind attribution end to end: real mpirun (4 ranks, sleep compute) and the simulator write run
# files with an injected straggler; `culprit attribute --json` must blame it (scripts under
# analysis/, JSON checked with python3).
if(Python3_Interpreter_FOUND)
  set(_analysis_scripts ${CMAKE_CURRENT_LIST_DIR}/analysis)
  set(_analysis_work ${CMAKE_CURRENT_BINARY_DIR}/analysis)
  set(_analysis_args ${CULPRIT_BIN_DIR} ${CULPRIT_TEST_DATA})
  foreach(_case delay_rank2_fwd_layer1 delay_rank2_fwd_layer1_skew_rank1)
    culprit_integration_test(analysis.mpirun_${_case} ${_analysis_scripts}/attribute_mpirun.sh
      ARGS ${_analysis_args} ${_analysis_work}/${_case} ${CULPRIT_MPIRUN} ${_case}.json
      PROPERTIES RESOURCE_LOCK mpi)
  endforeach()
  culprit_integration_test(analysis.sim_64_ranks ${_analysis_scripts}/attribute_sim.sh
    ARGS ${_analysis_args} ${_analysis_work}/sim_64_ranks)
  culprit_integration_test(analysis.validate_explain_sim
    ${_analysis_scripts}/validate_explain_sim.sh
    ARGS ${_analysis_args} ${_analysis_work}/validate_explain_sim TIMEOUT 180)
  culprit_integration_test(analysis.small_world_sim ${_analysis_scripts}/small_world.sh
    ARGS ${_analysis_args} ${_analysis_work}/small_world_sim small-world-2.toml small-world-3.toml
    TIMEOUT 180)
  culprit_integration_test(analysis.small_world_mpirun ${_analysis_scripts}/small_world.sh
    ARGS ${_analysis_args} ${_analysis_work}/small_world_mpirun small-world-mpirun-2.toml
    TIMEOUT 240 PROPERTIES RESOURCE_LOCK mpi)
  culprit_integration_test(analysis.small_world_mpirun_busy_core ${_analysis_scripts}/small_world.sh
    ARGS ${_analysis_args} ${_analysis_work}/small_world_mpirun_busy_core
         small-world-mpirun-2.toml
    TIMEOUT 240 PROPERTIES RESOURCE_LOCK mpi ENVIRONMENT CULPRIT_BUSY_CORE=1)
else()
  message(STATUS "culprit: python3 not found: analysis integration tests disabled")
endif()
