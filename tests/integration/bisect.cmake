# Bisection end to end with the real `culprit bisect` / `culprit verdict`, real mpirun and
# culprit-step (2 ranks, sleep compute): listed versions (+ reuse on rerun), a range without
# regression, and a generated git repository with a commit that does not build.
find_program(CULPRIT_SQLITE3 sqlite3)
find_program(CULPRIT_GIT git)
find_package(Python3 COMPONENTS Interpreter QUIET)
if(CULPRIT_SQLITE3 AND CULPRIT_GIT AND Python3_Interpreter_FOUND)
  foreach(script listed_versions not_reproduced git_range sim_versions cpu_hog)
    add_test(NAME integration.bisect.${script}
      COMMAND ${CULPRIT_BASH} ${CMAKE_CURRENT_LIST_DIR}/bisect/${script}.sh ${CULPRIT_BIN_DIR}
              ${CULPRIT_TEST_DATA} ${CMAKE_CURRENT_BINARY_DIR}/bisect_${script})
    set_tests_properties(integration.bisect.${script} PROPERTIES
      LABELS integration TIMEOUT 300 RESOURCE_LOCK mpi)
  endforeach()
else()
  message(STATUS "culprit: sqlite3, git or python3 missing, bisect integration tests skipped")
endif()
