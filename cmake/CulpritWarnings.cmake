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
  # Executables position-dependent: GCC's UBSan data (source locations, type descriptors) of every
  # inline function is repeated per translation unit, about 110 MB in culprit, and a PIE has to
  # relocate all of it (4 M relocations) before main: 0.6 s per start, against 0.3 s without.
  # The integration tests start culprit hundreds of times.
  add_link_options($<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>)
endif()

# libFuzzer builds instrument every target for coverage and CULPRIT_FUZZ_SANITIZERS (ASan and
# UBSan by default; "leak,undefined" runs the SQLite-bound targets 3-4x faster for long
# campaigns, whose corpus is then replayed under ASan); the fuzz executables add -fsanitize=fuzzer
# at link time (tests/fuzz/CMakeLists.txt).
set(CULPRIT_FUZZ_SANITIZERS "address,undefined" CACHE STRING
    "Sanitizers of a -DCULPRIT_FUZZ=ON build (a -fsanitize= list)")
if(CULPRIT_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "culprit: -DCULPRIT_FUZZ=ON needs clang (CC=clang-14 CXX=clang++-14)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,${CULPRIT_FUZZ_SANITIZERS} -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=${CULPRIT_FUZZ_SANITIZERS})
  # Without ASan, clang links no UBSan runtime beside LSan's: undefined behaviour then traps
  # (SIGILL, which libFuzzer reports as a crash with its input) instead of printing.
  if(NOT CULPRIT_FUZZ_SANITIZERS MATCHES "address" AND CULPRIT_FUZZ_SANITIZERS MATCHES "undefined")
    add_compile_options(-fsanitize-trap=undefined)
  endif()
endif()
