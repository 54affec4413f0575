#!/usr/bin/env bash
# Issue 37: `cmake --install` gives a self-contained tree that works moved away from where it
# was installed (and from the source tree): the binary finds the Python module, its run-file
# DDL and libculprit_pmpi.so relative to itself, and runs the reference, a torch and a PMPI
# manifest from the installed files with the source and build trees out of reach
# (installed_scenarios.sh).
# Usage: install_tree.sh BUILD_DIR WORK_DIR TORCH_PYTHON SOURCE_DIR
set -euo pipefail
BUILD=$1 WORK=$2 PY=$3 SRC=$4
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }
cmake --install "$BUILD" --prefix "$WORK/staged" > install.log || fail "install: $(cat install.log)"
# Relocated, and outside the trees that installed_scenarios.sh hides: nothing may point at the
# install prefix either.
outside=$(mktemp -d /tmp/culprit-install-tree.XXXXXX)
trap 'rm -rf "$outside"' EXIT
mv "$WORK/staged" "$outside/moved"
P=$outside/moved
libdir=$(cd "$P" && find lib* -name libculprit_pmpi.so)
[[ -n "$libdir" ]] || fail "libculprit_pmpi.so not installed"
for f in bin/culprit bin/culprit-step bin/culprit-sim share/culprit/python/culprit/__init__.py \
         share/culprit/python/culprit/run_file.sql share/culprit/python/culprit/meta_keys.tsv share/culprit/python/culprit/_version.py \
         share/culprit/experiments/torch-ddp.toml share/culprit/examples/torch/ddp_train.py \
         share/doc/culprit/python.md; do
  [[ -e "$P/$f" ]] || fail "not installed: $f"
done
env -u CULPRIT_PYTHON_DIR -u CULPRIT_PMPI_LIBRARY "$P/bin/culprit" --version > version.txt
grep -qx "python module: $P/share/culprit/python" version.txt || fail "python module: $(cat version.txt)"
grep -qx "pmpi library: $P/$libdir" version.txt || fail "pmpi library: $(cat version.txt)"
grep -qx "workloads: $P/bin" version.txt || fail "workloads: $(cat version.txt)"
# The installed module reads its own DDL and version, wherever it is run from.
(cd / && PYTHONPATH=$P/share/culprit/python "$PY" -m culprit check) > check.txt ||
  fail "python -m culprit check: $(cat check.txt)"
grep -q "^run-file schema: *format 3 ($P/share/culprit/python/culprit/run_file.sql)" check.txt ||
  fail "schema: $(cat check.txt)"
version=$("$P/bin/culprit" --version | sed -n 's/^culprit \([^ ]*\) .*/\1/p')
grep -q "^culprit: *$version ($P/share/culprit/python/culprit)" check.txt || fail "version: $(cat check.txt)"
# A small manifest from the installed files: culprit-step beside the installed culprit.
cat > small.toml <<'TOML'
[experiment]
name = "installed"
repetitions = 1
warmup_steps = 1
steps = 3
[baseline]
ranks = 2
backend = "cpu"
[baseline.model]
layers = 1
microbatches = 1
tokens = 16
hidden = 16
compute = "sleep"
buckets = 1
TOML
env -u CULPRIT_PYTHON_DIR "$P/bin/culprit" run small.toml --db small.db > run.log 2>&1 ||
  fail "run from the installed tree: $(cat run.log)"
grep -q "preflight: $P/bin/culprit-step -> $P/bin/culprit-step" run.log || fail "preflight: $(cat run.log)"
rc=0
"$(dirname "$0")/installed_scenarios.sh" "$P" "$PY" "$outside/work" "$SRC" "$BUILD" || rc=$?
[[ $rc == 0 || $rc == 77 ]] || fail "the installed tree's scenarios (above)"
echo "ok: installed tree relocated to $P runs; --version names its parts"
exit $rc
