#!/usr/bin/env bash
# A C application instrumented with the stepclock C API writes a complete run file.
source "$(dirname "$0")/common.sh"
DB="$WORK/run.db"
mpi 2 "$BIN_DIR/stepclock_c_api_example" "$DB"
check_between "events" "$(q "$DB" "SELECT COUNT(*) FROM events")" 18 18
check_between "collectives with bytes" \
  "$(q "$DB" "SELECT COUNT(*) FROM events WHERE kind='collective' AND seq=0 AND bytes=8")" 6 6
check_between "clock models" "$(q "$DB" "SELECT COUNT(*) FROM clock_models")" 2 2
[[ $(q "$DB" "SELECT value FROM meta WHERE key='source'") == c-api-example ]] || fail "source"
[[ $(q "$DB" "SELECT json FROM config_echo") == '{"example": true}' ]] || fail "config echo"
echo PASS
