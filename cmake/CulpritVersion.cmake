# The git hash is baked in at configure time so `culprit --version` names the exact build.
find_package(Git QUIET)
set(CULPRIT_GIT_HASH "unknown")
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    OUTPUT_VARIABLE _hash OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND _hash)
    set(CULPRIT_GIT_HASH ${_hash})
  endif()
endif()
foreach(_flag CULPRIT_HAVE_CUDA CULPRIT_HAVE_NCCL)
  if(${_flag})
    set(${_flag}_BOOL true)
  else()
    set(${_flag}_BOOL false)
  endif()
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/build_info.hpp.in
  ${CMAKE_BINARY_DIR}/generated/culprit/build_info.hpp @ONLY)
add_library(culprit_build_info INTERFACE)
target_include_directories(culprit_build_info INTERFACE ${CMAKE_BINARY_DIR}/generated)
