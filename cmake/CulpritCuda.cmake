# CUDA, cuBLAS and NCCL are optional: found -> the cuda backend is compiled and linked;
# not found, or -DCULPRIT_WITH_CUDA=OFF -> the build goes on without it and says so.
set(CULPRIT_HAVE_CUDA OFF)
set(CULPRIT_HAVE_NCCL OFF)
set(CULPRIT_HAVE_NVTX OFF)
if(CULPRIT_WITH_CUDA)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # Hopper (H100/H200) and Ampere; override with -DCMAKE_CUDA_ARCHITECTURES=...
      set(CMAKE_CUDA_ARCHITECTURES 80 90)
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit QUIET)
  endif()
  if(CUDAToolkit_FOUND)
    # NVTX 3 is header-only (nvtx3/, in the toolkit since CUDA 10): culprit-step opens a range
    # per phase instance with it, which ncu can filter on (workloads/synthetic/phase_nvtx.hpp).
    find_path(NVTX3_INCLUDE_DIR nvtx3/nvToolsExt.h HINTS ${CUDAToolkit_INCLUDE_DIRS}
              /usr/local/cuda/include)
    if(NVTX3_INCLUDE_DIR)
      set(CULPRIT_HAVE_NVTX ON)
    endif()
    find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
    find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64)
    if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
      add_library(culprit::nccl UNKNOWN IMPORTED)
      set_target_properties(culprit::nccl PROPERTIES
        IMPORTED_LOCATION ${NCCL_LIBRARY} INTERFACE_INCLUDE_DIRECTORIES ${NCCL_INCLUDE_DIR})
      set(CULPRIT_HAVE_CUDA ON)
      set(CULPRIT_HAVE_NCCL ON)
    else()
      message(STATUS "culprit: CUDA found but NCCL (nccl.h, libnccl) missing: cuda backend off")
    endif()
  else()
    message(STATUS "culprit: CUDA toolkit not found: cuda backend off")
  endif()
endif()
message(STATUS
  "culprit: cuda backend ${CULPRIT_HAVE_CUDA}, nccl ${CULPRIT_HAVE_NCCL}, nvtx ${CULPRIT_HAVE_NVTX}")
