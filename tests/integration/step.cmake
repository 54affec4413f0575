# culprit-step integration tests: real mpirun, real run files, checked with sqlite3 in bash
# (scripts under step/). Each writes into its own folder under the build tree.

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
    culprit_integration_test(step.${step_test} ${CMAKE_CURRENT_SOURCE_DIR}/step/${step_test}.sh
      ARGS ${CULPRIT_BIN_DIR} ${CULPRIT_MPIRUN} ${CMAKE_CURRENT_BINARY_DIR}/step_work/${step_test})
  endforeach()
  # The NVTX range of each phase instance, logged by a hand-written NVTX tool (step/nvtx_log.c)
  # loaded the way ncu and nsys are; culprit-step opens the ranges only when built with NVTX.
  if(CULPRIT_HAVE_NVTX)
    add_library(culprit_test_nvtx_log MODULE ${CMAKE_CURRENT_SOURCE_DIR}/step/nvtx_log.c)
    target_include_directories(culprit_test_nvtx_log SYSTEM PRIVATE ${NVTX3_INCLUDE_DIR})
    set_target_properties(culprit_test_nvtx_log PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
    target_link_libraries(culprit_test_nvtx_log PRIVATE culprit_warnings)
    culprit_integration_test(step.nvtx_ranges ${CMAKE_CURRENT_SOURCE_DIR}/step/nvtx_ranges.sh
      ARGS ${CULPRIT_BIN_DIR} ${CULPRIT_MPIRUN} ${CMAKE_CURRENT_BINARY_DIR}/step_work/nvtx_ranges
           $<TARGET_FILE:culprit_test_nvtx_log>)
  endif()
  # The CUDA backend on a real GPU: skipped (exit 77) with the reason when none is visible.
  if(CULPRIT_HAVE_CUDA)
    culprit_integration_test(step.cuda_gpu ${CMAKE_SOURCE_DIR}/tests/gpu/step_cuda.sh
      ARGS ${CULPRIT_BIN_DIR} TIMEOUT 600 LABELS gpu PROPERTIES SKIP_RETURN_CODE 77)
  endif()
  # Timing-sensitive (real GEMMs on 2 ranks): keep other tests off the two cores meanwhile.
  set_tests_properties(integration.step.delay_gemm integration.step.overlap PROPERTIES RUN_SERIAL TRUE)
endif()
