# The build itself: a missing dependency stops configure with the Debian package to install.
add_test(NAME integration.build.missing_package
  COMMAND ${CULPRIT_BASH} ${CMAKE_CURRENT_LIST_DIR}/build/missing_package.sh ${CMAKE_SOURCE_DIR}
          ${CMAKE_CURRENT_BINARY_DIR}/build_missing_package)
set_tests_properties(integration.build.missing_package PROPERTIES LABELS integration TIMEOUT 120)

# The installed package (issue 15, defect 13): commands, libstepclock.so/.a, headers,
# stepclockConfig.cmake and stepclock.pc, used by an outside C program.
add_test(NAME integration.build.install_package
  COMMAND ${CULPRIT_BASH} ${CMAKE_CURRENT_LIST_DIR}/build/install_package.sh ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/build_install_package)
set_tests_properties(integration.build.install_package PROPERTIES LABELS integration TIMEOUT 300
  RESOURCE_LOCK mpi)
