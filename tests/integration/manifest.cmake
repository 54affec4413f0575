# Manifests through the real `culprit` binary: the ready-to-run experiments and the valid test
# manifests plan (table and JSON shape), and every invalid manifest exits 2 with its expected
# message and writes nothing, for `culprit plan` and `culprit run`.
set(_manifest_scripts ${CMAKE_CURRENT_LIST_DIR}/manifest)
set(_manifest_work ${CMAKE_CURRENT_BINARY_DIR}/manifest)

foreach(_mode plan run)
  culprit_integration_test(manifest.invalid_${_mode} ${_manifest_scripts}/invalid_corpus.sh
    ARGS ${_mode} ${CULPRIT_BIN_DIR} ${CULPRIT_TEST_DATA} ${_manifest_work}/invalid_${_mode})
endforeach()

if(Python3_Interpreter_FOUND)
  culprit_integration_test(manifest.plan_valid ${_manifest_scripts}/plan_valid.sh
    ARGS ${CULPRIT_BIN_DIR} ${CMAKE_SOURCE_DIR} ${_manifest_work}/plan_valid/cwd TIMEOUT 60)
else()
  message(STATUS "culprit: python3 not found: integration.manifest.plan_valid disabled")
endif()
