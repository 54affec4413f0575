# The why block on a stored run: real Nsight Compute exports (shared/counters) attached to a
# small simulated experiment, then `culprit explain` (why/attach_explain.sh); the same store's
# `culprit report` rendered in headless Chromium with the why section and the telemetry map.
set(_counters "")
foreach(_candidate ${CMAKE_SOURCE_DIR}/../shared/counters ${CMAKE_SOURCE_DIR}/../../shared/counters)
  if(NOT _counters AND EXISTS ${_candidate})
    get_filename_component(_counters ${_candidate} ABSOLUTE)
  endif()
endforeach()
if(Python3_Interpreter_FOUND AND CULPRIT_SQLITE3 AND _counters)
  culprit_integration_scripts(why SCRIPTS attach_explain EXTRA_ARGS ${_counters} TIMEOUT 60
    PROPERTIES FIXTURES_SETUP why_store)
  if(CULPRIT_CHROMIUM)
    culprit_integration_test(why.report_chromium ${CMAKE_CURRENT_SOURCE_DIR}/why/report_chromium.sh
      ARGS ${CULPRIT_BIN_DIR} ${CMAKE_CURRENT_BINARY_DIR}/why_attach_explain
           ${CMAKE_CURRENT_BINARY_DIR}/why_report_chromium ${CULPRIT_CHROMIUM}
      TIMEOUT 120 PROPERTIES FIXTURES_REQUIRED why_store)
  endif()
else()
  message(STATUS "culprit: python3, sqlite3 or shared/counters missing: why integration test off")
endif()
