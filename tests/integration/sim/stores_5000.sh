#!/usr/bin/env bash
# Issue 36's regression: the 5,000-rank manifest a user ran stores (it failed with "database or
# disk is full" on an empty disk), every event lands, and the store is intact. The event count
# is the simulator's own (5,000 ranks x 52 steps x 28 events), read back with sqlite3.
# Usage: stores_5000.sh BIN_DIR DATA_DIR WORK_DIR
source "$(dirname "$0")/common.sh"
bin=$1 data=$2 work=$3
fresh_dir "$work"
"$bin/culprit" run "$data/scale-5000.toml" --db "$work/s.db" > "$work/run.out" 2> "$work/run.err" ||
  fail "culprit run exited $?: $(tail -3 "$work/run.err")"
status=$(sqlite3 "$work/s.db" "SELECT group_concat(status) FROM runs")
[ "$status" = ok ] || fail "run status '$status', expected ok"
events=$(sqlite3 "$work/s.db" "SELECT sum(events) || ' in ' || count(DISTINCT rank) || ' ranks' FROM run_event_packs")
[ "$events" = "7280000 in 5000 ranks" ] || fail "stored $events, expected 7280000 in 5000 ranks"
steps=$(sqlite3 "$work/s.db" "SELECT count(*) FROM steps WHERE warmup = 0")
[ "$steps" = 50 ] || fail "$steps steady steps stored, expected 50"
check=$(sqlite3 "$work/s.db" "PRAGMA integrity_check")
[ "$check" = ok ] || fail "integrity_check: $check"
echo "PASS: the 5,000-rank run stored whole ($events, $steps steady steps)"
