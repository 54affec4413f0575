# The why block on a stored run: real Nsight Compute exports (shared/counters) attached to a
# small simulated experiment, then `culprit explain` (why/attach_explain.sh).
set(_counters "")
foreach(_candidate ${CMAKE_SOURCE_DIR}/../shared/counters ${CMAKE_SOURCE_DIR}/../../shared/counters)
  if(NOT _counters AND EXISTS ${_candidate})
    get_filename_component(_counters ${_candidate} ABSOLUTE)
  endif()
endforeach()
if(Python3_Interpreter_FOUND AND CULPRIT_SQLITE3 AND _counters)
  culprit_integration_scripts(why SCRIPTS attach_explain EXTRA_ARGS ${_counters} TIMEOUT 60)
else()
  message(STATUS "culprit: python3, sqlite3 or shared/counters missing: why integration test off")
endif()
