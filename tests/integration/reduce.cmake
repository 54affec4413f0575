# `culprit reduce` (issue 18): the reference scenario's pair of runs reduced to a controlled
# experiment that reproduces the baseline and the shift, at 64 ranks and scaled down to 8.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  add_test(NAME integration.reduce.reference
    COMMAND ${CULPRIT_BASH} ${CMAKE_CURRENT_LIST_DIR}/reduce/reference.sh ${CULPRIT_BIN_DIR}
            ${CMAKE_SOURCE_DIR}/experiments/reference-64.toml
            ${CMAKE_CURRENT_BINARY_DIR}/reduce/reference)
  set_tests_properties(integration.reduce.reference PROPERTIES LABELS integration TIMEOUT 600)
endif()
add_test(NAME integration.reduce.measured_cpu
  COMMAND ${CULPRIT_BASH} ${CMAKE_CURRENT_LIST_DIR}/reduce/measured_cpu.sh ${CULPRIT_BIN_DIR}
          ${CULPRIT_TEST_DATA} ${CMAKE_CURRENT_BINARY_DIR}/reduce/measured_cpu)
set_tests_properties(integration.reduce.measured_cpu PROPERTIES
  LABELS integration TIMEOUT 300 RESOURCE_LOCK mpi)
# The importers' area (importers.cmake) finds shared/traces; without it this test is left out.
set(_reduce_traces ${CULPRIT_TRACES})
foreach(_candidate ${CMAKE_SOURCE_DIR}/../shared/traces ${CMAKE_SOURCE_DIR}/../../shared/traces)
  if(NOT _reduce_traces AND EXISTS ${_candidate})
    get_filename_component(_reduce_traces ${_candidate} ABSOLUTE)
  endif()
endforeach()
if(EXISTS "${_reduce_traces}/torch-ddp")
  add_test(NAME integration.reduce.torch_pair
    COMMAND ${CULPRIT_BASH} ${CMAKE_CURRENT_LIST_DIR}/reduce/torch_pair.sh ${CULPRIT_BIN_DIR}
            ${_reduce_traces} ${CMAKE_CURRENT_BINARY_DIR}/reduce/torch_pair)
  set_tests_properties(integration.reduce.torch_pair PROPERTIES LABELS integration TIMEOUT 300)
endif()
