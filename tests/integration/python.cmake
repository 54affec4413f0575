# The culprit Python module (python/culprit) with real torch: its unit tests (one process), the
# run-file schema against culprit-step's, absolute placeholders through a wrapper that changes
# directory, and the example DDP script under `culprit run` with real mpirun (scripts under
# python/). CI installs Debian's python3-torch (scripts/bootstrap); the interpreter used is the
# first python3 that imports torch.
set(_python_candidates)
if(Python3_EXECUTABLE)
  list(APPEND _python_candidates ${Python3_EXECUTABLE})
endif()
list(APPEND _python_candidates /usr/bin/python3)
find_program(_python_on_path python3)
if(_python_on_path)
  list(APPEND _python_candidates ${_python_on_path})
endif()
set(CULPRIT_TORCH_PYTHON "" CACHE FILEPATH "python3 with torch, for the Python module's tests")
if(NOT CULPRIT_TORCH_PYTHON)
  foreach(_candidate ${_python_candidates})
    execute_process(COMMAND ${_candidate} -c "import torch.distributed"
      RESULT_VARIABLE _torch_rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 120)
    if(_torch_rc EQUAL 0)
      set(CULPRIT_TORCH_PYTHON ${_candidate} CACHE FILEPATH
        "python3 with torch, for the Python module's tests" FORCE)
      break()
    endif()
  endforeach()
endif()
set(_py_scripts ${CMAKE_CURRENT_LIST_DIR}/python)
set(_py_work ${CMAKE_CURRENT_BINARY_DIR}/python)
if(NOT CULPRIT_TORCH_PYTHON)
  message(STATUS "culprit: no python3 with torch found: the python.* tests fail until "
                 "python3-torch is installed (scripts/bootstrap)")
  set(CULPRIT_TORCH_PYTHON python3-with-torch-not-found)
endif()
add_test(NAME unit.python_module
  COMMAND ${CULPRIT_TORCH_PYTHON} -m unittest discover -s ${CMAKE_SOURCE_DIR}/tests/unit/python)
set_tests_properties(unit.python_module PROPERTIES LABELS unit TIMEOUT 120)
culprit_integration_test(python.schema_matches ${_py_scripts}/schema_matches.sh
  ARGS ${CULPRIT_BIN_DIR} ${CULPRIT_MPIRUN} ${_py_work}/schema_matches ${CULPRIT_TORCH_PYTHON}
       ${CMAKE_SOURCE_DIR}
  PROPERTIES RESOURCE_LOCK mpi)
culprit_integration_test(python.wrapper_changes_directory ${_py_scripts}/wrapper_changes_directory.sh
  ARGS ${CULPRIT_BIN_DIR} ${_py_work}/wrapper_changes_directory ${CMAKE_SOURCE_DIR}
  PROPERTIES RESOURCE_LOCK mpi)
# Timing-sensitive (real torch on 2 ranks): keep other tests off the two cores meanwhile.
culprit_integration_test(python.ddp_validate ${_py_scripts}/ddp_validate.sh
  ARGS ${CULPRIT_BIN_DIR} ${_py_work}/ddp_validate ${CULPRIT_TORCH_PYTHON} ${CMAKE_SOURCE_DIR}
  TIMEOUT 900 PROPERTIES RUN_SERIAL TRUE)
culprit_integration_test(python.profile_import ${_py_scripts}/profile_import.sh
  ARGS ${CULPRIT_BIN_DIR} ${_py_work}/profile_import ${CULPRIT_TORCH_PYTHON} ${CMAKE_SOURCE_DIR}
  TIMEOUT 600 PROPERTIES RUN_SERIAL TRUE)
# Installing (issue 37): the Python package with pip (offline, Debian's setuptools) and the
# whole tree with cmake --install, each used from where it was put, away from the checkout.
culprit_integration_test(python.package_install ${_py_scripts}/package_install.sh
  ARGS ${CMAKE_SOURCE_DIR} ${_py_work}/package_install ${CULPRIT_TORCH_PYTHON} TIMEOUT 120)
# Both run the reference, a torch and a PMPI manifest with the checkout hidden (root: a mount
# namespace; skipped otherwise); install_deb installs the .deb into this machine and removes it.
culprit_integration_test(python.install_tree ${_py_scripts}/install_tree.sh
  ARGS ${CMAKE_BINARY_DIR} ${_py_work}/install_tree ${CULPRIT_TORCH_PYTHON} ${CMAKE_SOURCE_DIR}
  TIMEOUT 300 PROPERTIES RESOURCE_LOCK mpi SKIP_RETURN_CODE 77)
culprit_integration_test(python.install_deb ${_py_scripts}/install_deb.sh
  ARGS ${CMAKE_BINARY_DIR} ${_py_work}/install_deb ${CULPRIT_TORCH_PYTHON} ${CMAKE_SOURCE_DIR}
  TIMEOUT 300 PROPERTIES RESOURCE_LOCK mpi SKIP_RETURN_CODE 77)
# A rank whose peer never starts, and mpirun with the run file in a missing folder, end with
# what went wrong instead of waiting forever (issue 38 item 11).
culprit_integration_test(python.rendezvous_errors ${_py_scripts}/rendezvous_errors.sh
  ARGS ${_py_work}/rendezvous_errors ${CULPRIT_TORCH_PYTHON} ${CMAKE_SOURCE_DIR}
  TIMEOUT 240 PROPERTIES RESOURCE_LOCK mpi)
# [launch] launcher = "torchrun" with 2 ranks (issue 37).
culprit_integration_test(python.torchrun ${_py_scripts}/torchrun.sh
  ARGS ${CULPRIT_BIN_DIR} ${_py_work}/torchrun ${CULPRIT_TORCH_PYTHON} ${CMAKE_SOURCE_DIR}
  TIMEOUT 300 PROPERTIES RESOURCE_LOCK mpi)
