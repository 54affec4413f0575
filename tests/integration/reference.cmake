# The reference scenario end to end (experiments/reference-64.toml, issue 7): 64 simulated ranks,
# 12 runs, then `culprit compare` and `culprit explain` must find the regression, name rank 63's
# weight-gradient GEMM as the cause, the 63 waiting ranks as the symptom, and show the sampled
# activity figure beside them. About 10 s and 200 MB of scratch (removed when it passes).
if(Python3_Interpreter_FOUND)
  culprit_integration_test(reference.reference_64 ${CMAKE_CURRENT_LIST_DIR}/reference/reference.sh
    ARGS ${CULPRIT_BIN_DIR} ${CMAKE_SOURCE_DIR}/experiments/reference-64.toml
         ${CMAKE_CURRENT_BINARY_DIR}/reference/reference_64
    TIMEOUT 300)
else()
  message(STATUS "culprit: python3 not found: reference-scenario integration test disabled")
endif()
