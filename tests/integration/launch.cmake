# Launcher and store: resume after SIGKILL, shards + merge, timeouts, exit codes.
# culprit-fake-workload writes run files with known step times (or fails on purpose), so the
# unit tests of the launcher run without MPI; the integration tests below drive the real
# `culprit run` with mpirun and the real culprit-step (2 ranks, sleep compute).
add_executable(culprit-fake-workload ${CMAKE_CURRENT_LIST_DIR}/launch/fake_workload.cpp)
target_link_libraries(culprit-fake-workload PRIVATE stepclock_runfile culprit_warnings)
if(TARGET unit_launch)
  add_dependencies(unit_launch culprit-fake-workload)
endif()

if(CULPRIT_SQLITE3 AND Python3_Interpreter_FOUND)
  culprit_integration_scripts(launch SCRIPTS resume_after_sigkill shards_merge timeout_and_exit_codes
    TIMEOUT 180 PROPERTIES RESOURCE_LOCK mpi)
else()
  message(STATUS "culprit: sqlite3 or python3 missing, launcher integration tests skipped")
endif()
