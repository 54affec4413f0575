# The build itself: a missing dependency stops configure with the Debian package to install.
add_test(NAME integration.build.missing_package
  COMMAND ${CULPRIT_BASH} ${CMAKE_CURRENT_LIST_DIR}/build/missing_package.sh ${CMAKE_SOURCE_DIR}
          ${CMAKE_CURRENT_BINARY_DIR}/build_missing_package)
set_tests_properties(integration.build.missing_package PROPERTIES LABELS integration TIMEOUT 120)
