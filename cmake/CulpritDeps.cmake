# Every dependency comes from a Debian package. When one is missing, configure stops with the
# package to install, so a newcomer never has to guess (scripts/bootstrap installs them all).
find_package(PkgConfig QUIET)

function(culprit_missing what package)
  message(FATAL_ERROR
    "culprit: ${what} was not found.\n"
    "  Install the Debian package:  apt-get install ${package}\n"
    "  (or run scripts/bootstrap, which installs every dependency)")
endfunction()

if(NOT PkgConfig_FOUND)
  culprit_missing("pkg-config" "pkg-config")
endif()

find_package(MPI COMPONENTS C QUIET)
if(NOT MPI_C_FOUND)
  culprit_missing("MPI (Open MPI headers and mpicc)" "libopenmpi-dev openmpi-bin")
endif()
find_program(CULPRIT_MPIRUN NAMES mpirun mpiexec)
if(NOT CULPRIT_MPIRUN)
  culprit_missing("mpirun" "openmpi-bin")
endif()

find_package(SQLite3 QUIET)
if(NOT SQLite3_FOUND)
  culprit_missing("SQLite3" "libsqlite3-dev")
endif()

find_package(tomlplusplus QUIET)
if(NOT tomlplusplus_FOUND)
  culprit_missing("toml++" "libtomlplusplus-dev")
endif()

find_package(fmt QUIET)
if(NOT fmt_FOUND)
  culprit_missing("fmt" "libfmt-dev")
endif()

find_package(spdlog QUIET)
if(NOT spdlog_FOUND)
  culprit_missing("spdlog" "libspdlog-dev")
endif()

find_package(CLI11 QUIET)
if(NOT CLI11_FOUND)
  culprit_missing("CLI11" "libcli11-dev")
endif()

find_package(simdjson QUIET)
if(NOT simdjson_FOUND)
  culprit_missing("simdjson" "libsimdjson-dev")
endif()

pkg_check_modules(OPENBLAS QUIET IMPORTED_TARGET openblas)
if(NOT OPENBLAS_FOUND)
  culprit_missing("OpenBLAS" "libopenblas-dev")
endif()
add_library(culprit::openblas ALIAS PkgConfig::OPENBLAS)

find_package(Threads REQUIRED)

if(CULPRIT_BUILD_TESTS)
  find_package(doctest QUIET)
  if(NOT doctest_FOUND)
    culprit_missing("doctest" "doctest-dev")
  endif()
endif()

if(CULPRIT_BUILD_BENCH)
  find_package(benchmark QUIET)
  if(NOT benchmark_FOUND)
    culprit_missing("Google Benchmark" "libbenchmark-dev")
  endif()
endif()
