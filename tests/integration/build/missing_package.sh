#!/usr/bin/env bash
# A configure that lacks a dependency must stop and name the Debian package to install.
# Each dependency is hidden in turn with CMAKE_DISABLE_FIND_PACKAGE_<name>.
# Usage: missing_package.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$1 work=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
check() {
  local package=$1 debian=$2
  rm -rf "$work" && mkdir -p "$work"
  if cmake -S "$src" -B "$work" -DCULPRIT_WITH_CUDA=OFF \
       "-DCMAKE_DISABLE_FIND_PACKAGE_${package}=ON" >"$work.log" 2>&1; then
    fail "configure without $package succeeded"
  fi
  grep -q "apt-get install ${debian}" "$work.log" ||
    fail "configure without $package did not name '$debian': $(tail -n 20 "$work.log")"
  echo "ok: without $package, configure names $debian"
}
check tomlplusplus libtomlplusplus-dev
check SQLite3 libsqlite3-dev
check simdjson libsimdjson-dev
check CLI11 libcli11-dev
check spdlog libspdlog-dev
rm -rf "$work" "$work.log"
