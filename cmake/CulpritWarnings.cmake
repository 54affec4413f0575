# Warnings and sanitizers apply to every target of this project through one interface target,
# so a module cannot silently opt out of -Werror in CI.
add_library(culprit_warnings INTERFACE)
target_compile_options(culprit_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:C,CXX>:-Wall -Wextra -Wpedantic -Wshadow>
  $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor>
  # GCC 12 at -O3 reports a false -Wrestrict on `"literal" + std::string&&` (GCC bug 105651).
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-restrict>)
if(CULPRIT_WERROR)
  target_compile_options(culprit_warnings INTERFACE $<$<COMPILE_LANGUAGE:C,CXX>:-Werror>)
endif()

if(CULPRIT_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# libFuzzer builds instrument every target for coverage, ASan and UBSan; the fuzz executables
# add -fsanitize=fuzzer at link time (tests/fuzz/CMakeLists.txt).
if(CULPRIT_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "culprit: -DCULPRIT_FUZZ=ON needs clang (CC=clang-14 CXX=clang++-14)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
