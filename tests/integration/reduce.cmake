# `culprit reduce` (issue 18): the reference scenario's pair of runs reduced to a controlled
# experiment that reproduces the baseline and the shift, at 64 ranks and scaled down to 8.
set(_reduce_scripts ${CMAKE_CURRENT_LIST_DIR}/reduce)
set(_reduce_work ${CMAKE_CURRENT_BINARY_DIR}/reduce)
if(Python3_Interpreter_FOUND)
  culprit_integration_test(reduce.reference ${_reduce_scripts}/reference.sh
    ARGS ${CULPRIT_BIN_DIR} ${CMAKE_SOURCE_DIR}/experiments/reference-64.toml
         ${_reduce_work}/reference
    TIMEOUT 600)
endif()
culprit_integration_test(reduce.measured_cpu ${_reduce_scripts}/measured_cpu.sh
  ARGS ${CULPRIT_BIN_DIR} ${CULPRIT_TEST_DATA} ${_reduce_work}/measured_cpu
  TIMEOUT 300 PROPERTIES RESOURCE_LOCK mpi)
# Without shared/traces (CMakeLists.txt finds it) this test is left out.
if(EXISTS "${CULPRIT_TRACES_DIR}/torch-ddp")
  culprit_integration_test(reduce.torch_pair ${_reduce_scripts}/torch_pair.sh
    ARGS ${CULPRIT_BIN_DIR} ${CULPRIT_TRACES_DIR} ${_reduce_work}/torch_pair TIMEOUT 300)
  # Every straggler case of torch-ddp, both layouts, native and scaled down: the figures.
  if(Python3_Interpreter_FOUND)
    culprit_integration_test(reduce.torch_pairs ${_reduce_scripts}/torch_pairs.sh
      ARGS ${CULPRIT_BIN_DIR} ${CULPRIT_TRACES_DIR} ${_reduce_work}/torch_pairs TIMEOUT 600)
  endif()
endif()
