#!/usr/bin/env bash
# Issue 15, defect 13: `cmake --install` installs the commands and stepclock as a package; an
# outside C program builds against it with pkg-config (shared, and --static) and with CMake's
# find_package(stepclock) — no -lstdc++ by hand — and writes a run file culprit reads. The
# stepclock folder also builds on its own with add_subdirectory.
set -euo pipefail
SRC=$1
BUILD=$2
WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$BUILD" --prefix "$WORK/prefix" > install.log || fail "install: $(cat install.log)"
P=$WORK/prefix
for f in bin/culprit bin/culprit-step bin/culprit-sim include/stepclock/stepclock.h \
         include/stepclock/stepclock.hpp lib/libstepclock.a lib/cmake/stepclock/stepclockConfig.cmake \
         lib/pkgconfig/stepclock.pc; do
  [[ -e "$P/$f" ]] || fail "not installed: $f"
done
ls "$P"/lib/libstepclock.so* > /dev/null || fail "libstepclock.so not installed"
"$P/bin/culprit" --version > /dev/null || fail "the installed culprit does not run"

cp "$SRC/tests/integration/build/outside/app.c" "$SRC/tests/integration/build/outside/CMakeLists.txt" .
echo '{"steps": 4, "model": {"name": "outside-c-app"}}' > config.json
export CULPRIT_CONFIG=$WORK/config.json
export PKG_CONFIG_PATH=$P/lib/pkgconfig
MPIRUN=(mpirun -np 2 --oversubscribe)
[[ $(id -u) == 0 ]] && MPIRUN+=(--allow-run-as-root)

check_run_file() {  # check_run_file WHAT FILE
  [[ -f "$2" ]] || fail "$1 wrote no run file"
  local steps
  steps=$(sqlite3 -batch -noheader "$2" "SELECT count(*) FROM events WHERE kind = 'step'")
  [[ "$steps" == 8 ]] || fail "$1: $steps step events, expected 2 ranks x 4 steps"
  [[ "$(sqlite3 -batch -noheader "$2" "SELECT value FROM meta WHERE key = 'source'")" == outside-c-app ]] ||
    fail "$1: the configuration was not read"
  "$P/bin/culprit" attribute --run-file "$2" > "$1.attr" 2> "$1.log" || fail "$1: culprit cannot read it: $(cat "$1.log")"
}

# pkg-config, shared: plain cc, no -lstdc++.
# shellcheck disable=SC2046
cc -o app_pc_shared app.c $(pkg-config --cflags --libs stepclock) -Wl,-rpath,"$P/lib" 2> cc1.log ||
  fail "cc against the shared library: $(cat cc1.log)"
"${MPIRUN[@]}" ./app_pc_shared "$WORK/pc_shared.db" > run1.log 2>&1 || fail "app (pkg-config, shared): $(cat run1.log)"
check_run_file pc_shared pc_shared.db
# grep -F reads to the end (grep -q would not): under pipefail, ldd's SIGPIPE would fail it.
ldd app_pc_shared | grep -F "$P/lib/libstepclock.so" > /dev/null ||
  fail "app_pc_shared does not use the installed library"

# pkg-config --static.
# shellcheck disable=SC2046
cc -o app_pc_static app.c $(pkg-config --cflags stepclock) "$P/lib/libstepclock.a" \
  $(pkg-config --static --libs stepclock | sed 's/-lstepclock//') 2> cc2.log ||
  fail "cc against the static library: $(cat cc2.log)"
! ldd app_pc_static | grep -q libstepclock || fail "app_pc_static links the shared library"
"${MPIRUN[@]}" ./app_pc_static "$WORK/pc_static.db" > run2.log 2>&1 || fail "app (pkg-config, static): $(cat run2.log)"
check_run_file pc_static pc_static.db

# CMake package, C-only project, both libraries.
cmake -S . -B outside-build -DCMAKE_PREFIX_PATH="$P" > cmake.log 2>&1 || fail "find_package(stepclock): $(cat cmake.log)"
cmake --build outside-build > build.log 2>&1 || fail "building against stepclock::: $(cat build.log)"
for kind in shared static; do
  "${MPIRUN[@]}" outside-build/app_cmake_$kind "$WORK/cmake_$kind.db" > run-$kind.log 2>&1 ||
    fail "app (CMake, $kind): $(cat run-$kind.log)"
  check_run_file cmake_$kind cmake_$kind.db
done

# A missing key is an error with the reason, not a crash.
echo '{"model": {}}' > empty.json
CULPRIT_CONFIG=$WORK/empty.json ./app_pc_shared x.db 2> missing.log && fail "a missing key was accepted"
grep -q "no key 'steps' in $WORK/empty.json" missing.log || fail "missing key message: $(cat missing.log)"

# add_subdirectory of stepclock alone (was: cannot find -lculprit_warnings).
mkdir sub && cat > sub/CMakeLists.txt <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(sub C CXX)
add_subdirectory($SRC/workloads/stepclock stepclock)
add_executable(app ../app.c)
target_link_libraries(app PRIVATE stepclock)
CMAKE
cmake -S sub -B sub-build > sub.log 2>&1 || fail "add_subdirectory configure: $(cat sub.log)"
cmake --build sub-build --target app > sub-build.log 2>&1 || fail "add_subdirectory build: $(tail -20 sub-build.log)"
"${MPIRUN[@]}" sub-build/app "$WORK/sub.db" > run-sub.log 2>&1 || fail "app (add_subdirectory): $(cat run-sub.log)"
check_run_file sub sub.db
echo "ok: installed; C program built with pkg-config (shared, static), CMake, add_subdirectory"
