"""Build hooks of the culprit package (pyproject.toml holds the metadata): the version from the
project's one version, run_file.sql and meta_keys.tsv, all read from the repository this folder is in."""

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
        for owned in ("run_file.sql", "meta_keys.tsv"):  # the run-file library's two files
            with open(os.path.join(ROOT, "workloads", "runfile", owned), "rb") as f:
                data = f.read()
            with open(os.path.join(target, owned), "wb") as f:
                f.write(data)
        with open(os.path.join(target, "_version.py"), "w", encoding="utf-8") as f:
            f.write("version = %r\n" % project_version())


setup(version=project_version(), cmdclass={"build_py": BuildWithSchema})
