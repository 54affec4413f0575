#!/usr/bin/env bash
# Issue 37: python/ is a package: `pip install --no-build-isolation` offline with Debian's
# setuptools, run_file.sql as package data and the version from the project's one version
# (CMakeLists.txt); the installed module finds its DDL beside itself, away from any checkout.
# Usage: package_install.sh SOURCE_DIR WORK_DIR TORCH_PYTHON
set -euo pipefail
SRC=$1 WORK=$2 PY=$3
rm -rf "$WORK" && mkdir -p "$WORK/src/workloads/runfile" && cd "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }
# A copy of what the build reads, so that the checkout stays clean (pip builds in the tree).
cp "$SRC/CMakeLists.txt" src/
cp "$SRC/workloads/runfile/run_file.sql" "$SRC/workloads/runfile/meta_keys.tsv" src/workloads/runfile/
cp -r "$SRC/python" src/python
rm -rf src/python/build src/python/*.egg-info
"$PY" -m pip install --no-build-isolation --no-deps --no-index --target "$WORK/site" src/python \
  > pip.log 2>&1 || fail "pip install: $(tail -20 pip.log)"
rm -rf "$WORK/src"  # out of reach: the installed package must carry everything
[[ -f site/culprit/run_file.sql ]] || fail "run_file.sql not installed as package data"
cmp -s site/culprit/run_file.sql "$SRC/workloads/runfile/run_file.sql" || fail "run_file.sql differs"
cmp -s site/culprit/meta_keys.tsv "$SRC/workloads/runfile/meta_keys.tsv" ||
  fail "meta_keys.tsv (the run meta keys) not installed as package data"
version=$(sed -n 's/^project(culprit VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
(cd / && PYTHONPATH=$WORK/site "$PY" -m culprit check) > check.txt || fail "check: $(cat check.txt)"
grep -q "^culprit: *$version ($WORK/site/culprit)" check.txt || fail "version: $(cat check.txt)"
grep -q "^run-file schema: *format 3 ($WORK/site/culprit/run_file.sql)" check.txt ||
  fail "schema: $(cat check.txt)"
ls site/culprit-"$version".dist-info > /dev/null || fail "no culprit-$version.dist-info"
echo "ok: pip installed culprit $version with its run-file DDL"
