#!/usr/bin/env bash
# Issue 37: `cpack -G DEB` builds a .deb whose Depends name the Debian packages of every shared
# library the installed binaries need (an oracle: dpkg -S of each library ldd resolves under
# /lib or /usr/lib), `dpkg -i` installs it into this machine, and the installed /usr/bin/culprit
# runs the reference, a torch and a PMPI manifest with the source and build trees out of reach
# (installed_scenarios.sh). The package is purged again however the test ends.
# Needs root and dpkg; exits 77 (ctest: skipped) otherwise, saying so.
# Usage: install_deb.sh BUILD_DIR WORK_DIR TORCH_PYTHON SOURCE_DIR
set -euo pipefail
BUILD=$1 WORK=$2 PY=$3 SRC=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ $(id -u) == 0 ]] || { echo "skipped: dpkg -i needs root"; exit 77; }
command -v dpkg-deb > /dev/null || { echo "skipped: no dpkg-deb (not a Debian machine)"; exit 77; }
if [[ "$(dpkg-query -W -f='${db:Status-Status}' culprit 2> /dev/null)" == installed ]]; then
  fail "a culprit package is installed already (dpkg --purge culprit first): this test installs its own"
fi
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"
cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$WORK/pkg" > cpack.log 2>&1 ||
  fail "cpack: $(tail -20 cpack.log)"
deb=$(find pkg -maxdepth 1 -name 'culprit_*.deb' | head -1)
[[ -n "$deb" ]] || fail "no culprit_*.deb in $WORK/pkg: $(tail -5 cpack.log)"
depends=$(dpkg-deb --field "$deb" Depends)
for needed in openmpi-bin python3; do
  grep -qw "$needed" <<< "$depends" || fail "Depends lacks $needed: $depends"
done
# Every Debian library the binaries link (DT_NEEDED; their own needs are their packages') is a
# dependency; CUDA's, outside Debian, belong to no package and are not.
dpkg-deb -x "$deb" root
for binary in root/usr/bin/culprit root/usr/bin/culprit-step root/usr/bin/culprit-sim; do
  while read -r lib; do
    # usrmerge: dpkg knows a library by /lib/... or by /usr/lib/..., whichever its package lists.
    owner=$({ dpkg -S "$lib" || dpkg -S "/usr${lib#/usr}" || dpkg -S "${lib#/usr}"; } 2> /dev/null |
      head -1 | cut -d: -f1) || true
    [[ -n "$owner" ]] || continue
    grep -qw "$owner" <<< "$depends" || fail "$binary loads $lib of $owner, not in Depends: $depends"
  done < <(needed=$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
           ldd "$binary" | awk -v needed="$needed" 'BEGIN { split(needed, n, "\n"); for (i in n) want[n[i]] = 1 }
             $1 in want && $3 ~ "^/(usr/)?lib/" { print $3 }')
done
trap 'dpkg --purge culprit > /dev/null 2>&1 || true' EXIT
dpkg -i "$deb" > dpkg.log 2>&1 || fail "dpkg -i: $(tail -20 dpkg.log)"
[[ "$(command -v culprit)" == /usr/bin/culprit ]] || fail "culprit is not /usr/bin/culprit"
rc=0
"$(dirname "$0")/installed_scenarios.sh" /usr "$PY" "$(mktemp -d /tmp/culprit-deb.XXXXXX)/work" \
  "$SRC" "$BUILD" || rc=$?
[[ $rc == 0 ]] || fail "the installed package's scenarios (above)"
echo "ok: $(basename "$deb") installs with Depends: $depends; its culprit runs the scenarios"
