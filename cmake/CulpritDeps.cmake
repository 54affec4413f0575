# Every dependency comes from a Debian package. When one is missing, configure stops with the
# package to install, so a newcomer never has to guess (scripts/bootstrap installs them all).
find_package(PkgConfig QUIET)

function(culprit_missing what package)
  message(FATAL_ERROR
    "culprit: ${what} was not found.\n"
    "  Install the Debian package:  apt-get install ${package}\n"
    "  (or run scripts/bootstrap, which installs every dependency)")
endfunction()

# culprit_require(PACKAGE WHAT DEBIAN_PACKAGE [find_package arguments...]): find_package, or stop
# naming the Debian package. A macro, so the package's variables stay visible to the caller.
macro(culprit_require package what debian)
  find_package(${package} QUIET ${ARGN})
  if(NOT ${package}_FOUND)
    culprit_missing("${what}" "${debian}")
  endif()
endmacro()

# culprit_require_pkgconfig(PREFIX MODULE WHAT DEBIAN_PACKAGE): the pkg-config MODULE as the
# imported target PkgConfig::PREFIX, or stop naming the Debian package.
macro(culprit_require_pkgconfig prefix module what debian)
  pkg_check_modules(${prefix} QUIET IMPORTED_TARGET ${module})
  if(NOT ${prefix}_FOUND)
    culprit_missing("${what}" "${debian}")
  endif()
endmacro()

if(NOT PkgConfig_FOUND)
  culprit_missing("pkg-config" "pkg-config")
endif()

culprit_require(MPI "MPI (Open MPI headers and mpicc)" "libopenmpi-dev openmpi-bin" COMPONENTS C)
find_program(CULPRIT_MPIRUN NAMES mpirun mpiexec)
if(NOT CULPRIT_MPIRUN)
  culprit_missing("mpirun" "openmpi-bin")
endif()

culprit_require(SQLite3 "SQLite3" "libsqlite3-dev")
culprit_require(tomlplusplus "toml++" "libtomlplusplus-dev")
culprit_require(fmt "fmt" "libfmt-dev")
culprit_require(spdlog "spdlog" "libspdlog-dev")
culprit_require(CLI11 "CLI11" "libcli11-dev")
culprit_require(simdjson "simdjson" "libsimdjson-dev")
culprit_require_pkgconfig(OPENBLAS openblas "OpenBLAS" "libopenblas-dev")
add_library(culprit::openblas ALIAS PkgConfig::OPENBLAS)

find_package(Threads REQUIRED)

if(CULPRIT_BUILD_TESTS)
  culprit_require(doctest "doctest" "doctest-dev")
endif()

if(CULPRIT_BUILD_BENCH)
  culprit_require(benchmark "Google Benchmark" "libbenchmark-dev")
endif()
