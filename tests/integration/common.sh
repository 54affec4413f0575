# Shared by every area's integration scripts (sourced through the area's common.sh, not run):
# strict mode, the scratch folder, assertions and queries. Nothing here knows an area.
set -euo pipefail

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# fresh_dir DIR: DIR exists and is empty (a scratch folder under the build tree).
fresh_dir() {
  rm -rf "$1"
  mkdir -p "$1"
}

# take_bin_data_work BIN_DIR DATA_DIR WORK_DIR: the usual first arguments of a script, as BIN,
# DATA, WORK and CULPRIT (the culprit binary); WORK is made fresh and becomes the current folder.
take_bin_data_work() {
  BIN=$1
  DATA=$2
  WORK=$3
  CULPRIT="$BIN/culprit"
  fresh_dir "$WORK"
  cd "$WORK"
}

# q DB SQL: the values SQL selects from the SQLite file DB, one row a line, `|` between columns.
# A query that fails ends the test, also from inside `$(…)` given as an argument (`awk -v
# a="$(q …)"`), whose status bash drops: an empty answer would be read as 0 and checked as if
# measured. The script itself is signalled, not only the subshell.
q() {
  sqlite3 -batch -noheader "$1" "$2" && return
  echo "FAIL: query on $1 failed: $2" >&2
  kill -TERM $$
  exit 1
}

# q_try DB SQL: q for a file another process may not have made yet or holds locked (polling
# loops); a failure is the caller's to handle.
q_try() { sqlite3 -batch -noheader "$1" "$2"; }

# json FILE PYTHON_EXPR: prints the expression over the JSON document of FILE, named `d`.
json() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

expect_eq() {  # expect_eq WHAT ACTUAL EXPECTED
  [[ "$2" == "$3" ]] || fail "$1: got '$2', expected '$3'"
}

# expect_rc WHAT EXPECTED COMMAND...: runs COMMAND (stderr to err.log, stdout to out.log) and
# fails unless it exits EXPECTED.
expect_rc() {
  local what=$1 expected=$2 rc=0
  shift 2
  "$@" > out.log 2> err.log || rc=$?
  [[ "$rc" == "$expected" ]] || fail "$what: exit $rc, expected $expected; stderr: $(cat err.log)"
}

# expect_log WHAT PATTERN [FILE]: the file (err.log) holds the extended regex.
expect_log() {
  grep -Eq -- "$2" "${3:-err.log}" || fail "$1: '$2' not in ${3:-err.log}: $(cat "${3:-err.log}")"
}

# exit_code_of COMMAND...: runs COMMAND (its output redirected by the caller) and sets RC to
# its exit status, without stopping the script when it fails.
exit_code_of() {
  RC=0
  "$@" || RC=$?
}

# sleep_model_toml TOKENS HIDDEN: a manifest's [baseline.model] table for a one-layer model
# whose compute sleeps (quick and steady on a loaded machine).
sleep_model_toml() {
  cat <<TOML
[baseline.model]
layers = 1
microbatches = 1
tokens = $1
hidden = $2
buckets = 1
compute = "sleep"
flops_per_s = 1e9
TOML
}
