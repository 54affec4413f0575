"""The project's one version: written into culprit/_version.py when the package is built or
installed (setup.py, cmake --install), else read from the repository's CMakeLists.txt."""

import os
import re


def _read():
    try:
        from ._version import version
        return version
    except ImportError:
        pass
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "CMakeLists.txt")
    try:
        with open(top, encoding="utf-8") as f:
            found = re.search(r"project\(culprit\s+VERSION\s+([0-9.]+)", f.read())
        return found.group(1) if found else "unknown"
    except OSError:
        return "unknown"


__version__ = _read()
