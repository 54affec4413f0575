# Shared by the bisect integration scripts: args BIN_DIR DATA_DIR WORK_DIR.
set -euo pipefail
BIN="$1"
DATA="$2"
WORK="$3"
CULPRIT="$BIN/culprit"
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# json FILE EXPR: evaluates a python expression over the JSON document `d`.
json() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
expect_eq() {
  [[ "$2" == "$3" ]] || fail "$1: got '$2', expected '$3'"
}
q() {
  sqlite3 "$1" "$2"
}
