# Pictures (issue 13): `culprit report` rendered in headless Chromium (Debian's chromium) and
# `culprit export --format perfetto` checked against the trace-event format and the store. Both
# use one run of the small reference scenario (tests/data/report/reference-16.toml, ~10 s).
find_program(CULPRIT_CHROMIUM NAMES chromium chromium-browser)
set(_report_work ${CMAKE_CURRENT_BINARY_DIR}/report)
set(_report_scripts ${CMAKE_CURRENT_LIST_DIR}/report)
if(Python3_Interpreter_FOUND AND CULPRIT_SQLITE3)
  culprit_integration_test(report.reference_run ${_report_scripts}/run_reference.sh
    ARGS ${CULPRIT_BIN_DIR} ${CULPRIT_TEST_DATA}/report/reference-16.toml ${_report_work}
    PROPERTIES FIXTURES_SETUP report_reference)
  culprit_integration_test(report.export_perfetto ${_report_scripts}/export_perfetto.sh
    ARGS ${CULPRIT_BIN_DIR} ${_report_work} PROPERTIES FIXTURES_REQUIRED report_reference)
  # compare, explain, report and validate judge the fixture's experiment at one level (issue 33).
  culprit_integration_test(report.judged_alike ${_report_scripts}/judged_alike.sh
    ARGS ${CULPRIT_BIN_DIR} ${_report_work} ${CULPRIT_TEST_DATA}/report/reference-16.toml
    PROPERTIES FIXTURES_REQUIRED report_reference)
  if(CULPRIT_CHROMIUM)
    culprit_integration_test(report.html_chromium ${_report_scripts}/report_chromium.sh
      ARGS ${CULPRIT_BIN_DIR} ${_report_work} ${CULPRIT_CHROMIUM}
      TIMEOUT 180 PROPERTIES FIXTURES_REQUIRED report_reference)
    # A bisection (tests/data/report/bisect-sim.toml, ~5 s): the path replayed and drawn; the
    # experiment's baseline has no runs, so explain and the scorecard say why they are absent.
    culprit_integration_test(report.bisect_chromium ${_report_scripts}/bisect_chromium.sh
      ARGS ${CULPRIT_BIN_DIR} ${CULPRIT_TEST_DATA}/report/bisect-sim.toml ${_report_work}_bisect
           ${CULPRIT_CHROMIUM}
      TIMEOUT 180)
    # Imported PyTorch profiler traces (shared/traces, found by CMakeLists.txt).
    if(EXISTS "${CULPRIT_TRACES_DIR}/torch-ddp")
      culprit_integration_test(report.imported_chromium ${_report_scripts}/imported_chromium.sh
        ARGS ${CULPRIT_BIN_DIR} ${CULPRIT_TRACES_DIR} ${_report_work}_imported ${CULPRIT_CHROMIUM}
        TIMEOUT 180)
    endif()
  else()
    message(FATAL_ERROR "culprit: chromium not found (the HTML report test renders in it).\n"
      "  Install the Debian package:  apt-get install chromium")
  endif()
else()
  message(STATUS "culprit: python3 or sqlite3 not found: report integration tests disabled")
endif()
