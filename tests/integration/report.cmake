# Pictures (issue 13): `culprit report` rendered in headless Chromium (Debian's chromium) and
# `culprit export --format perfetto` checked against the trace-event format and the store. Both
# use one run of the small reference scenario (tests/data/report/reference-16.toml, ~10 s).
find_package(Python3 COMPONENTS Interpreter QUIET)
find_program(CULPRIT_CHROMIUM NAMES chromium chromium-browser)
find_program(CULPRIT_SQLITE3 sqlite3)
set(_report_work ${CMAKE_CURRENT_BINARY_DIR}/report)
set(_report_scripts ${CMAKE_CURRENT_LIST_DIR}/report)
if(Python3_Interpreter_FOUND AND CULPRIT_SQLITE3)
  add_test(NAME integration.report.reference_run
    COMMAND ${CULPRIT_BASH} ${_report_scripts}/run_reference.sh ${CULPRIT_BIN_DIR}
            ${CULPRIT_TEST_DATA}/report/reference-16.toml ${_report_work})
  set_tests_properties(integration.report.reference_run PROPERTIES
    LABELS integration TIMEOUT 120 FIXTURES_SETUP report_reference)
  add_test(NAME integration.report.export_perfetto
    COMMAND ${CULPRIT_BASH} ${_report_scripts}/export_perfetto.sh ${CULPRIT_BIN_DIR} ${_report_work})
  set_tests_properties(integration.report.export_perfetto PROPERTIES
    LABELS integration TIMEOUT 120 FIXTURES_REQUIRED report_reference)
  if(CULPRIT_CHROMIUM)
    add_test(NAME integration.report.html_chromium
      COMMAND ${CULPRIT_BASH} ${_report_scripts}/report_chromium.sh ${CULPRIT_BIN_DIR}
              ${_report_work} ${CULPRIT_CHROMIUM})
    set_tests_properties(integration.report.html_chromium PROPERTIES
      LABELS integration TIMEOUT 180 FIXTURES_REQUIRED report_reference)
    # A bisection (tests/data/report/bisect-sim.toml, ~5 s): the path replayed and drawn; the
    # experiment's baseline has no runs, so explain and the scorecard say why they are absent.
    add_test(NAME integration.report.bisect_chromium
      COMMAND ${CULPRIT_BASH} ${_report_scripts}/bisect_chromium.sh ${CULPRIT_BIN_DIR}
              ${CULPRIT_TEST_DATA}/report/bisect-sim.toml ${_report_work}_bisect ${CULPRIT_CHROMIUM})
    set_tests_properties(integration.report.bisect_chromium PROPERTIES
      LABELS integration TIMEOUT 180)
    # Imported PyTorch profiler traces (shared/traces, found as the importers' tests find it).
    set(_report_traces ${CULPRIT_TRACES})
    foreach(_candidate ${CMAKE_SOURCE_DIR}/../shared/traces ${CMAKE_SOURCE_DIR}/../../shared/traces)
      if(NOT _report_traces AND EXISTS ${_candidate})
        get_filename_component(_report_traces ${_candidate} ABSOLUTE)
      endif()
    endforeach()
    if(EXISTS "${_report_traces}/torch-ddp")
      add_test(NAME integration.report.imported_chromium
        COMMAND ${CULPRIT_BASH} ${_report_scripts}/imported_chromium.sh ${CULPRIT_BIN_DIR}
                ${_report_traces} ${_report_work}_imported ${CULPRIT_CHROMIUM})
      set_tests_properties(integration.report.imported_chromium PROPERTIES
        LABELS integration TIMEOUT 180)
    endif()
  else()
    message(FATAL_ERROR "culprit: chromium not found (the HTML report test renders in it).\n"
      "  Install the Debian package:  apt-get install chromium")
  endif()
else()
  message(STATUS "culprit: python3 or sqlite3 not found: report integration tests disabled")
endif()
