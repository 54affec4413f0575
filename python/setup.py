"""Build hooks of the culprit package (pyproject.toml holds the metadata): the version from the
project's one version and run_file.sql, both read from the repository this folder is in."""

import os
import re

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        found = re.search(r"project\(culprit\s+VERSION\s+([0-9.]+)", f.read())
    if not found:
        raise RuntimeError("no project(culprit VERSION ...) in %s/CMakeLists.txt" % ROOT)
    return found.group(1)


class BuildWithSchema(build_py):
    """Copies the run-file DDL into the package and writes culprit/_version.py."""

    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "culprit")
        with open(os.path.join(ROOT, "workloads", "runfile", "run_file.sql"), "rb") as f:
            schema = f.read()
        with open(os.path.join(target, "run_file.sql"), "wb") as f:
            f.write(schema)
        with open(os.path.join(target, "_version.py"), "w", encoding="utf-8") as f:
            f.write("version = %r\n" % project_version())


setup(version=project_version(), cmdclass={"build_py": BuildWithSchema})
