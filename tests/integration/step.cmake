# culprit-step integration tests: real mpirun, real run files, checked with sqlite3 in bash
# (scripts under step/). Each writes into its own folder under the build tree.
find_program(CULPRIT_SQLITE3 sqlite3)

# A plain C program using the stepclock C API (keeps the header valid C).
add_executable(stepclock_c_api_example ${CMAKE_CURRENT_SOURCE_DIR}/step/c_api_example.c)
set_target_properties(stepclock_c_api_example PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON
  LINKER_LANGUAGE CXX)
target_link_libraries(stepclock_c_api_example PRIVATE stepclock culprit_warnings)
if(NOT CULPRIT_SQLITE3)
  message(STATUS "culprit: sqlite3 command-line tool not found: step.* integration tests off "
                 "(apt-get install sqlite3)")
else()
  foreach(step_test delay_gemm clock_skew overlap abort_fault errors c_api)
    add_test(NAME integration.step.${step_test}
      COMMAND ${CULPRIT_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/step/${step_test}.sh
              ${CULPRIT_BIN_DIR} ${CULPRIT_MPIRUN}
              ${CMAKE_CURRENT_BINARY_DIR}/step_work/${step_test})
    set_tests_properties(integration.step.${step_test} PROPERTIES LABELS integration TIMEOUT 120)
  endforeach()
  # The CUDA backend on a real GPU: skipped (exit 77) with the reason when none is visible.
  if(CULPRIT_HAVE_CUDA)
    add_test(NAME integration.step.cuda_gpu
      COMMAND ${CULPRIT_BASH} ${CMAKE_SOURCE_DIR}/tests/gpu/step_cuda.sh ${CULPRIT_BIN_DIR})
    set_tests_properties(integration.step.cuda_gpu PROPERTIES LABELS "integration;gpu" TIMEOUT 600
      SKIP_RETURN_CODE 77)
  endif()
  # Timing-sensitive (real GEMMs on 2 ranks): keep other tests off the two cores meanwhile.
  set_tests_properties(integration.step.delay_gemm integration.step.overlap PROPERTIES RUN_SERIAL TRUE)
endif()
