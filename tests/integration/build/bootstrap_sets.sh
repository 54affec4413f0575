#!/usr/bin/env bash
# scripts/bootstrap installs only what the build and the demo need; --tests adds the test
# suite's extras (issue 37: the demo installed Chromium, LAMMPS, Slurm and torch first).
# Usage: bootstrap_sets.sh SOURCE_DIR
set -euo pipefail
src=$1
demo=$("$src/scripts/bootstrap" --list)
tests=$("$src/scripts/bootstrap" --tests --list)
for pkg in python3-torch chromium lammps slurmd clang-format clang-tidy; do
  if grep -qx "$pkg" <<<"$demo"; then echo "FAIL: the demo's bootstrap installs $pkg"; exit 1; fi
  grep -qx "$pkg" <<<"$tests" || { echo "FAIL: --tests does not install $pkg"; exit 1; }
done
for pkg in cmake libopenmpi-dev libsqlite3-dev libjs-d3; do
  grep -qx "$pkg" <<<"$demo" || { echo "FAIL: the demo's bootstrap misses $pkg"; exit 1; }
done
grep -q "scripts/bootstrap --tests" "$src/scripts/test" || { echo "FAIL: scripts/test"; exit 1; }
echo "ok: demo $(wc -l <<<"$demo") packages, tests $(wc -l <<<"$tests")"
