# Shared by the pmpi integration tests. Usage of a test: <test>.sh BIN_DIR DATA_DIR WORK_DIR [EXTRA]
set -euo pipefail
BIN=$1
DATA=$2
WORK=$3
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
q() { sqlite3 -batch -noheader "$1" "$2"; }
