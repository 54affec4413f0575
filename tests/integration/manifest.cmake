# Manifests through the real `culprit` binary: the ready-to-run experiments and the valid test
# manifests plan (table and JSON shape), and every invalid manifest exits 2 with its expected
# message and writes nothing, for `culprit plan` and `culprit run`.
find_package(Python3 COMPONENTS Interpreter QUIET)
set(_manifest_scripts ${CMAKE_CURRENT_LIST_DIR}/manifest)
set(_manifest_work ${CMAKE_CURRENT_BINARY_DIR}/manifest)

foreach(_mode plan run)
  add_test(NAME integration.manifest.invalid_${_mode}
    COMMAND ${CULPRIT_BASH} ${_manifest_scripts}/invalid_corpus.sh ${_mode} ${CULPRIT_BIN_DIR}
            ${CULPRIT_TEST_DATA} ${_manifest_work}/invalid_${_mode})
  set_tests_properties(integration.manifest.invalid_${_mode} PROPERTIES
    LABELS integration TIMEOUT 120)
endforeach()

if(Python3_Interpreter_FOUND)
  add_test(NAME integration.manifest.plan_valid
    COMMAND ${CULPRIT_BASH} ${_manifest_scripts}/plan_valid.sh ${CULPRIT_BIN_DIR}
            ${CMAKE_SOURCE_DIR} ${_manifest_work}/plan_valid/cwd)
  set_tests_properties(integration.manifest.plan_valid PROPERTIES LABELS integration TIMEOUT 60)
else()
  message(STATUS "culprit: python3 not found: integration.manifest.plan_valid disabled")
endif()
