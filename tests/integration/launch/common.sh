# Shared by the launcher's integration scripts: arguments, a scratch folder, and assertions.
# Usage in a script: source common.sh BIN_DIR DATA_DIR SCRATCH_DIR
set -euo pipefail
BIN=$1
DATA=$2
WORK=$3
CULPRIT="$BIN/culprit"
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# q DB SQL: one value from the store.
q() {
  sqlite3 -batch -noheader "$1" "$2"
}

expect_eq() {  # expect_eq WHAT ACTUAL EXPECTED
  [[ "$2" == "$3" ]] || fail "$1: got '$2', expected '$3'"
}
