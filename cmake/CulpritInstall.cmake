# `cmake --install build [--prefix P]`: the commands, and stepclock as a package an outside
# project can use (docs/stepclock.md): headers, libstepclock.so/.a, stepclockConfig.cmake
# (targets stepclock::stepclock_shared, stepclock::stepclock_static and stepclock::stepclock,
# the shared one) and stepclock.pc for pkg-config.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

foreach(command culprit culprit-step culprit-sim)
  if(TARGET ${command})
    install(TARGETS ${command} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()

if(TARGET stepclock_shared)
  set(stepclock_source ${CMAKE_SOURCE_DIR}/workloads/stepclock)
  install(DIRECTORY ${stepclock_source}/include/stepclock
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/workloads/runfile/include/runfile
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
  install(TARGETS stepclock_shared stepclock_static EXPORT stepclockTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  set(stepclock_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/stepclock)
  install(EXPORT stepclockTargets NAMESPACE stepclock:: DESTINATION ${stepclock_cmake_dir})
  configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/stepclockConfig.cmake.in
    ${CMAKE_BINARY_DIR}/stepclockConfig.cmake INSTALL_DESTINATION ${stepclock_cmake_dir})
  write_basic_package_version_file(${CMAKE_BINARY_DIR}/stepclockConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
  install(FILES ${CMAKE_BINARY_DIR}/stepclockConfig.cmake
    ${CMAKE_BINARY_DIR}/stepclockConfigVersion.cmake DESTINATION ${stepclock_cmake_dir})
  # From PREFIX/<libdir>/pkgconfig back to PREFIX (libdir may be lib/x86_64-linux-gnu).
  file(RELATIVE_PATH stepclock_pc_to_prefix "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  configure_file(${CMAKE_SOURCE_DIR}/cmake/stepclock.pc.in ${CMAKE_BINARY_DIR}/stepclock.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/stepclock.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

# A self-contained tree (issue 37): the installed culprit finds these relative to itself
# (orchestrator/launch/CMakeLists.txt), never in the source tree it was built from.
#   <libdir>/libculprit_pmpi.so              the PMPI interposer (instrument = "pmpi")
#   share/culprit/python/culprit/            the Python module, its run_file.sql, meta_keys.tsv and version
#   share/culprit/{experiments,examples}/    the ready-to-run manifests and the torch example
#   share/doc/culprit/                       docs/ and README.md
if(TARGET culprit_pmpi)
  install(TARGETS culprit_pmpi LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
set(culprit_python_dest ${CMAKE_INSTALL_DATADIR}/culprit/python/culprit)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/python/culprit/ DESTINATION ${culprit_python_dest}
  FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
install(FILES ${CMAKE_SOURCE_DIR}/workloads/runfile/run_file.sql
  ${CMAKE_SOURCE_DIR}/workloads/runfile/meta_keys.tsv DESTINATION ${culprit_python_dest})
file(WRITE ${CMAKE_BINARY_DIR}/python/_version.py "version = \"${PROJECT_VERSION}\"\n")
install(FILES ${CMAKE_BINARY_DIR}/python/_version.py DESTINATION ${culprit_python_dest})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/experiments ${CMAKE_SOURCE_DIR}/examples
  DESTINATION ${CMAKE_INSTALL_DATADIR}/culprit PATTERN "__pycache__" EXCLUDE)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/LICENSE
  DESTINATION ${CMAKE_INSTALL_DOCDIR})
