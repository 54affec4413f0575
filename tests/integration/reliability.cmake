# Reliability under misuse and faults (issue 15): two writers on one store, Ctrl-C/SIGTERM,
# write errors, read-only/foreign/broken stores, environment failures, unbounded input and a
# run file's warm-up. Real culprit, real mpirun (2 ranks, sleep compute), real SQLite.
find_program(CULPRIT_SQLITE3 sqlite3)
find_package(Python3 COMPONENTS Interpreter QUIET)
if(CULPRIT_SQLITE3 AND Python3_Interpreter_FOUND)
  set(culprit_reliability_tests
    store_lock interrupt output_errors store_misuse environment_errors manifest_limits
    warmup_from_manifest verdict_dirty)
  foreach(script ${culprit_reliability_tests})
    add_test(NAME integration.reliability.${script}
      COMMAND ${CULPRIT_BASH} ${CMAKE_CURRENT_LIST_DIR}/reliability/${script}.sh
              ${CULPRIT_BIN_DIR} ${CULPRIT_TEST_DATA}
              ${CMAKE_CURRENT_BINARY_DIR}/reliability_${script})
    set_tests_properties(integration.reliability.${script} PROPERTIES
      LABELS "integration;reliability" TIMEOUT 240 RESOURCE_LOCK mpi)
  endforeach()
else()
  message(STATUS "culprit: sqlite3 or python3 missing, reliability integration tests skipped")
endif()
