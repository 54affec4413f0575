# The reference scenario end to end (experiments/reference-64.toml, issue 7): 64 simulated ranks,
# 12 runs, then `culprit compare` and `culprit explain` must find the regression, name rank 63's
# weight-gradient GEMM as the cause, the 63 waiting ranks as the symptom, and show the sampled
# activity figure beside them. About 10 s and 200 MB of scratch (removed when it passes).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  add_test(NAME integration.reference.reference_64
    COMMAND ${CULPRIT_BASH} ${CMAKE_CURRENT_LIST_DIR}/reference/reference.sh ${CULPRIT_BIN_DIR}
            ${CMAKE_SOURCE_DIR}/experiments/reference-64.toml
            ${CMAKE_CURRENT_BINARY_DIR}/reference/reference_64)
  set_tests_properties(integration.reference.reference_64 PROPERTIES
    LABELS integration TIMEOUT 300)
else()
  message(STATUS "culprit: python3 not found: reference-scenario integration test disabled")
endif()
