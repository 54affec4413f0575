# culprit import on the real traces of shared/traces (torch-ddp with truth, HTA, nsys), and its
# refusals of damaged or mislabelled files (checks in importers/check_import.py).
if(Python3_Interpreter_FOUND AND EXISTS "${CULPRIT_TRACES_DIR}")
  foreach(_mode torch compare hta nsys partial bad)
    set(_work ${CMAKE_CURRENT_BINARY_DIR}/importers/${_mode})
    file(MAKE_DIRECTORY ${_work})
    culprit_integration_test(importers.${_mode} ${CMAKE_CURRENT_LIST_DIR}/importers/check_import.py
      ARGS ${CULPRIT_BIN_DIR}/culprit ${CULPRIT_TRACES_DIR} ${_work} ${_mode})
  endforeach()
else()
  message(STATUS "culprit: python3 or shared/traces not found: importer integration tests disabled")
endif()
