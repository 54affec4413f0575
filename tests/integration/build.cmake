# The build itself: a missing dependency stops configure with the Debian package to install.
culprit_integration_test(build.missing_package ${CMAKE_CURRENT_LIST_DIR}/build/missing_package.sh
  ARGS ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/build_missing_package)

# The installed package (issue 15, defect 13): commands, libstepclock.so/.a, headers,
# stepclockConfig.cmake and stepclock.pc, used by an outside C program.
culprit_integration_test(build.install_package ${CMAKE_CURRENT_LIST_DIR}/build/install_package.sh
  ARGS ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/build_install_package
  TIMEOUT 300 PROPERTIES RESOURCE_LOCK mpi)

# scripts/bootstrap: the demo's packages apart from the test suite's extras (--tests).
culprit_integration_test(build.bootstrap_sets ${CMAKE_CURRENT_LIST_DIR}/build/bootstrap_sets.sh
  ARGS ${CMAKE_SOURCE_DIR} TIMEOUT 30)

# The modules' include graph (issue 33): no cycle, no include up the tiers, the workloads met
# only through the run-file library and the resolved configuration (docs/architecture.md).
culprit_integration_test(build.module_layering ${CMAKE_CURRENT_LIST_DIR}/build/module_layering.py
  ARGS ${CMAKE_SOURCE_DIR} TIMEOUT 30)

# SQL only where it is owned (issue 33): the store, the run-file library, the nsys reader.
culprit_integration_test(build.sql_owners ${CMAKE_CURRENT_LIST_DIR}/build/sql_owners.py
  ARGS ${CMAKE_SOURCE_DIR} TIMEOUT 30)

# No class over 300 lines (issue 33; functions are kept to 80 lines by scripts/tidy in CI).
culprit_integration_test(build.class_size ${CMAKE_CURRENT_LIST_DIR}/build/class_size.py
  ARGS ${CMAKE_SOURCE_DIR} TIMEOUT 30)
