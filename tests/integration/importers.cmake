# culprit import on the real traces of shared/traces (torch-ddp with truth, HTA, nsys), and its
# refusals of damaged or mislabelled files (checks in importers/check_import.py).
find_package(Python3 COMPONENTS Interpreter QUIET)
set(CULPRIT_TRACES "" CACHE PATH "The shared/traces folder (torch-ddp, hta, nsys) for import tests")
set(_traces ${CULPRIT_TRACES})
foreach(_candidate ${CMAKE_SOURCE_DIR}/../shared/traces ${CMAKE_SOURCE_DIR}/../../shared/traces)
  if(NOT _traces AND EXISTS ${_candidate})
    get_filename_component(_traces ${_candidate} ABSOLUTE)
  endif()
endforeach()
if(Python3_Interpreter_FOUND AND EXISTS ${_traces})
  foreach(_mode torch compare hta nsys bad)
    set(_work ${CMAKE_CURRENT_BINARY_DIR}/importers/${_mode})
    file(MAKE_DIRECTORY ${_work})
    add_test(NAME integration.importers.${_mode}
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/importers/check_import.py
              ${CULPRIT_BIN_DIR}/culprit ${_traces} ${_work} ${_mode})
    set_tests_properties(integration.importers.${_mode} PROPERTIES LABELS integration TIMEOUT 120)
  endforeach()
else()
  message(STATUS "culprit: python3 or shared/traces not found: importer integration tests disabled")
endif()
