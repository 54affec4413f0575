# Reliability under misuse and faults (issue 15): two writers on one store, Ctrl-C/SIGTERM,
# write errors, read-only/foreign/broken stores, environment failures, unbounded input and a
# run file's warm-up. Real culprit, real mpirun (2 ranks, sleep compute), real SQLite.
if(CULPRIT_SQLITE3 AND Python3_Interpreter_FOUND)
  culprit_integration_scripts(reliability
    SCRIPTS store_lock interrupt output_errors store_misuse environment_errors manifest_limits
            warmup_from_manifest verdict_dirty reduce_pairs import_full_disk
    TIMEOUT 240 LABELS reliability PROPERTIES RESOURCE_LOCK mpi)
else()
  message(STATUS "culprit: sqlite3 or python3 missing, reliability integration tests skipped")
endif()
