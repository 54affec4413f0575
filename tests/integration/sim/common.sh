# Shared helpers of the simulator's integration tests (sourced, not run).
set -euo pipefail

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# A fresh scratch folder per test, under the build tree.
fresh_dir() {
  rm -rf "$1"
  mkdir -p "$1"
}

# Every row of every run-file table, in a stable order, as text.
dump_run_file() {
  sqlite3 -batch "$1" <<'SQL'
SELECT 'meta', key, value FROM meta ORDER BY key;
SELECT 'config_echo', id, json FROM config_echo;
SELECT 'provenance', rank, key, value FROM provenance ORDER BY rank, key;
SELECT 'clock_models', * FROM clock_models ORDER BY rank;
SELECT 'events', * FROM events ORDER BY rank, step, kind, name, microbatch, layer, seq, begin_ns;
SQL
}

# The step structure: which events exist, by identifiers only.
structure_of() {
  sqlite3 -batch "$1" \
    "SELECT DISTINCT rank, step, microbatch, layer, seq, kind, name FROM events
     ORDER BY rank, step, microbatch, layer, seq, kind, name;"
}
