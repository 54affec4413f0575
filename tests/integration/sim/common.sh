# Shared helpers of the simulator's integration tests (sourced, not run).
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

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
