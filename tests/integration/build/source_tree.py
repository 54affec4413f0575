"""The C and C++ sources of culprit's folders, as the build-rule tests beside this file read them
(module_layering.py, sql_owners.py, class_size.py)."""

import os

FOLDERS = ("common", "importers", "orchestrator", "storage", "workloads")  # as scripts/tidy
SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cu", ".h", ".hpp", ".cuh")


def source_files(root, tops=FOLDERS):
    """Yields the path, relative to root, of every C or C++ source under the folders `tops`
    (relative to root; a missing one holds none), in a fixed order."""
    for top in tops:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(folder, name), root)
