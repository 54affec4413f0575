# Bisection end to end with the real `culprit bisect` / `culprit verdict`, real mpirun and
# culprit-step (2 ranks, sleep compute): listed versions (+ reuse on rerun), a range without
# regression, and a generated git repository with a commit that does not build.
find_program(CULPRIT_GIT git)
if(CULPRIT_SQLITE3 AND CULPRIT_GIT AND Python3_Interpreter_FOUND)
  culprit_integration_scripts(bisect
    SCRIPTS listed_versions not_reproduced git_range sim_versions cpu_hog
    TIMEOUT 300 PROPERTIES RESOURCE_LOCK mpi)
else()
  message(STATUS "culprit: sqlite3, git or python3 missing, bisect integration tests skipped")
endif()
