# `cpack -G DEB` (from the build folder): one culprit_<version>_<arch>.deb of the tree that
# `cmake --install` writes (CulpritInstall.cmake), installed under /usr. Its Depends are what
# dpkg-shlibdeps finds the installed binaries linked against (Debian's libsqlite3, Open MPI,
# OpenBLAS, toml++, simdjson, spdlog, ...) plus the programs culprit starts: mpirun for every
# measured run, python3 for the Python module. Libraries of a CUDA toolkit outside Debian
# (/usr/local/cuda, when the CUDA backend is built) belong to no package and are not listed:
# such a .deb runs where that toolkit is installed, as the description says.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME culprit)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "culprit developers <culprit@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "openmpi-bin, python3")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-torch, sqlite3")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "lammps, slurm-client, chromium")
set(_culprit_cuda_note "")
if(CULPRIT_HAVE_CUDA)
  set(_culprit_cuda_note " This build has the CUDA backend: culprit-step needs the CUDA toolkit's cuBLAS and NCCL libraries where it runs.")
endif()
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "find the version and the rank that made a distributed training job slow")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "find the version and the rank that made a distributed training job slow\n controlled experiments (TOML manifests), an MPI and Slurm launcher, timing of every phase on\n every rank (C library, Python module for torch, PMPI interposer), trace import, an SQLite\n store, statistics, bisection, attribution and an offline HTML report.${_culprit_cuda_note}")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
include(CPack)
