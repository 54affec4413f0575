#!/usr/bin/env bash
# Issue 15, defect 1: two writers on one store. While `culprit run` writes, a second
# `culprit run` on the same --db is refused (exit 2, naming the holder's pid and host) and
# changes nothing; readers keep working. A lock left by a dead culprit is taken over.
source "$(dirname "$0")/common.sh"
hang_manifest hang.toml 311.25
"$CULPRIT" run hang.toml --db s.db 2> first.log &
FIRST=$!
wait_for "the first sweep to be in flight" running_version s.db 311.25
BEFORE=$(q s.db "SELECT group_concat(id || status || attempt) FROM runs")

expect_rc "a second writer" 2 "$CULPRIT" run hang.toml --db s.db
expect_log "the holder is named" "being written by another culprit \(pid $FIRST on $(hostname)"
expect_rc "a second writer of another manifest" 2 "$CULPRIT" run "$DATA/launch/small.toml" --db s.db
expect_eq "runs after the refused writers" "$(q s.db "SELECT group_concat(id || status || attempt) FROM runs")" "$BEFORE"
# Readers are not blocked.
expect_rc "runs while the sweep writes" 0 "$CULPRIT" runs --db s.db
grep -q running out.log || fail "runs does not list the run in flight: $(cat out.log)"
expect_rc "export while the sweep writes" 0 "$CULPRIT" export --db s.db

touch go  # the first sweep's slow run is killed below; only its own outcome matters here
kill -TERM "$FIRST"
wait "$FIRST" || true
[[ ! -e s.db.lock ]] || fail "the lock file outlived its holder"

# A lock file left behind (its holder died; the kernel dropped its flock) is taken over.
echo "pid 999999 on gone-host since 2026-01-01T00:00:00Z" > s.db.lock
expect_rc "a writer after a stale lock" 0 "$CULPRIT" run hang.toml --db s.db
expect_log "the stale lock is reported" "took over the writer lock left by pid 999999 on gone-host"
expect_eq "all runs ok after the takeover" "$(q s.db "SELECT count(*) FROM runs WHERE status != 'ok'")" 0
[[ ! -e s.db.lock ]] || fail "the lock file stayed after the sweep"
expect_eq "integrity_check" "$(q s.db "PRAGMA integrity_check")" ok
echo "ok: second writer refused naming pid $FIRST, readers served, stale lock taken over"
