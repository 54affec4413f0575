# culprit import on the real traces of shared/traces (torch-ddp with truth, HTA, nsys), and its
# refusals of damaged or mislabelled files (checks in importers/check_import.py).
if(Python3_Interpreter_FOUND AND EXISTS "${CULPRIT_TRACES_DIR}")
  foreach(_mode torch compare hta nsys partial bad)
    set(_work ${CMAKE_CURRENT_BINARY_DIR}/importers/${_mode})
    file(MAKE_DIRECTORY ${_work})
    culprit_integration_test(importers.${_mode} ${CMAKE_CURRENT_LIST_DIR}/importers/check_import.py
      ARGS ${CULPRIT_BIN_DIR}/culprit ${CULPRIT_TRACES_DIR} ${_work} ${_mode})
  endforeach()
  # GPU traces against an oracle over the raw files (check_gpu.py): ranks inside one nsys
  # export, the B200 Kineto trace's figures, the kernel classes of every other real trace, a
  # Kineto trace of one process driving two GPUs (derived from a real one).
  foreach(_mode nsys_multi b200 classes kineto_gpus)
    set(_work ${CMAKE_CURRENT_BINARY_DIR}/importers/gpu_${_mode})
    file(MAKE_DIRECTORY ${_work})
    culprit_integration_test(importers.gpu_${_mode} ${CMAKE_CURRENT_LIST_DIR}/importers/check_gpu.py
      ARGS ${CULPRIT_BIN_DIR}/culprit ${CULPRIT_TRACES_DIR} ${_work} ${_mode})
  endforeach()
  # A partial import (ranks 2 and 3 of 4) keeps the job's rank ids in the store, attribute,
  # explain, the report and the Perfetto export (issue 38 item 3; check_partial_ids.py).
  set(_work ${CMAKE_CURRENT_BINARY_DIR}/importers/partial_rank_ids)
  file(MAKE_DIRECTORY ${_work})
  culprit_integration_test(importers.partial_rank_ids
    ${CMAKE_CURRENT_LIST_DIR}/importers/check_partial_ids.py
    ARGS ${CULPRIT_BIN_DIR}/culprit ${CULPRIT_TRACES_DIR} ${_work})
else()
  message(STATUS "culprit: python3 or shared/traces not found: importer integration tests disabled")
endif()
# Trace sets not seen before, generated at test time with real torch (gloo, CPU;
# make_mlp_windows.py): one job per world size (2 and 4 ranks) writes 40 profiler windows, 10 sets
# each of a control and of a 30 ms straggler on rank 1 in `fc2` in every step (a sleep, matmuls,
# matmuls with .detach()); each set imported in the legacy and the Kineto layout must name rank 1
# and fc2, and a control must blame nobody (check_generated.py: issue 34 item 6); per kind and
# layout the what-if must give back a median of at least 75 % of the 30 ms. About 30 s on a
# quiet 2-core machine. Timing-sensitive: other tests stay off the cores meanwhile.
if(Python3_Interpreter_FOUND)
  set(_torch_python ${CULPRIT_TORCH_PYTHON})
  if(NOT _torch_python)
    set(_torch_python /usr/bin/python3)
  endif()
  culprit_integration_test(importers.generated_torch
    ${CMAKE_CURRENT_LIST_DIR}/importers/check_generated.py
    ARGS ${_torch_python} ${CULPRIT_BIN_DIR}/culprit ${CMAKE_CURRENT_BINARY_DIR}/importers/generated
    TIMEOUT 300 PROPERTIES RUN_SERIAL TRUE)
endif()
# A real generated set kept because its last gloo execution was cut off by the profiler's stop
# (tests/data/importers/ddp-last-work-cut/README.md): it must import, warn, and blame both
# stragglers. No torch needed: the files are read, not made.
if(Python3_Interpreter_FOUND)
  set(_work ${CMAKE_CURRENT_BINARY_DIR}/importers/last_work_cut)
  file(MAKE_DIRECTORY ${_work})
  culprit_integration_test(importers.last_work_cut
    ${CMAKE_CURRENT_LIST_DIR}/importers/check_generated.py
    ARGS ${Python3_EXECUTABLE} ${CULPRIT_BIN_DIR}/culprit ${_work}
         ${CULPRIT_TEST_DATA}/importers/ddp-last-work-cut)
endif()
