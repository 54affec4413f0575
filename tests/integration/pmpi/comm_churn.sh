#!/usr/bin/env bash
# Issue 38 item 7: the interposer kept timing only the first 63 communicators a program made
# (120 MPI_Comm_split + MPI_Comm_free: 52 of 100 barriers recorded, events_dropped 0, nothing
# said). comm_churn.c under real mpirun (2 ranks) with the interposer preloaded: every one of the
# 120 barriers on a split communicator is recorded on both ranks, and matches across them. Then
# with a name budget too small for them (CULPRIT_PMPI_COMM_NAMES=50), the 70 calls beyond it are
# counted in provenance and said on stderr, not lost silently.
# Usage: comm_churn.sh BIN_DIR DATA_DIR WORK_DIR PROGRAM
source "$(dirname "$0")/common.sh"
PROGRAM=$4
LIB="$BIN/../lib/libculprit_pmpi.so"
[[ -f $LIB ]] || fail "no $LIB"

churn() {  # churn RUN_FILE [ENV=VALUE...]: the program under mpirun, the interposer preloaded
  local file=$1
  shift
  local env=(-x LD_PRELOAD="$LIB" -x CULPRIT_RUN_FILE="$PWD/$file")
  for e in "$@"; do env+=(-x "$e"); done
  mpirun --allow-run-as-root --oversubscribe -np 2 "${env[@]}" "$PROGRAM" 120 >"$file.log" 2>&1 ||
    { cat "$file.log"; fail "mpirun $PROGRAM"; }
}

churn all.db
barriers() { q "$1" "SELECT count(*) FROM events WHERE kind='collective' AND name LIKE 'MPI_Barrier@c%' $2"; }
expect_eq "barriers on split communicators, both ranks" "$(barriers all.db "")" 240
expect_eq "distinct communicators named" \
  "$(q all.db "SELECT count(DISTINCT name) FROM events WHERE name LIKE 'MPI_Barrier@c%'")" 120
unmatched=$(q all.db "SELECT count(*) FROM (SELECT step, seq, name FROM events
  WHERE kind='collective' GROUP BY step, seq, name HAVING count(DISTINCT rank) != 2)")
expect_eq "barrier instances not on both ranks" "$unmatched" 0
expect_eq "no drop said" "$(q all.db "SELECT count(*) FROM provenance WHERE key='pmpi.collectives_unrecorded'")" 0
! grep -q "not recorded" all.db.log || fail "a drop was said: $(cat all.db.log)"

churn budget.db CULPRIT_PMPI_COMM_NAMES=50
expect_eq "barriers recorded within the budget" "$(barriers budget.db "")" 100
expect_eq "calls not recorded, per rank" \
  "$(q budget.db "SELECT group_concat(rank || ':' || value, ' ') FROM provenance
                  WHERE key='pmpi.collectives_unrecorded' ORDER BY rank")" "0:70 1:70"
expect_log "the drop is said on stderr" \
  "rank [01]: 70 collective call\(s\) on communicators not recorded.*CULPRIT_PMPI_COMM_NAMES" \
  budget.db.log
echo "ok: 120 communicators made and freed, every barrier recorded; past a budget, counted and said"
