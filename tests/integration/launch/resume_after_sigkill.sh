#!/usr/bin/env bash
# The orchestrator is killed with SIGKILL in the middle of a real MPI sweep and run again:
# exactly the planned runs end up ok, none duplicated, and the store passes integrity_check.
source "$(dirname "$0")/common.sh"
MANIFEST="$DATA/launch/small.toml"
PLANNED=$("$CULPRIT" plan --json "$MANIFEST" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["runs"]))')

"$CULPRIT" run "$MANIFEST" --db sweep.db 2> first.log &
PID=$!
# Wait until at least one run is ok and another is in flight, then kill without warning.
for _ in $(seq 1 600); do
  if [[ -f sweep.db ]] &&
     [[ "$(q_try sweep.db "SELECT count(*) FROM runs WHERE status = 'ok'" 2>/dev/null || echo 0)" -ge 1 ]] &&
     [[ "$(q_try sweep.db "SELECT count(*) FROM runs WHERE status = 'running'" 2>/dev/null || echo 0)" -ge 1 ]]; then
    break
  fi
  sleep 0.05
done
kill -KILL "$PID"
wait "$PID" 2>/dev/null || true
# Almost always one run is in flight; the kill may rarely land between two runs.
RUNNING=$(q sweep.db "SELECT count(*) FROM runs WHERE status = 'running'")
[[ "$RUNNING" -le 1 ]] || fail "$RUNNING runs in flight at once"
OK_BEFORE=$(q sweep.db "SELECT count(*) FROM runs WHERE status = 'ok'")
[[ "$OK_BEFORE" -lt "$PLANNED" ]] || fail "the sweep finished before it could be killed"

"$CULPRIT" run "$MANIFEST" --db sweep.db 2> second.log || fail "rerun failed: $(cat second.log)"
if [[ "$RUNNING" -eq 1 ]]; then
  grep -q "running them again" second.log || fail "the interrupted run was not reported"
fi
expect_eq "ok runs" "$(q sweep.db "SELECT count(*) FROM runs WHERE status = 'ok'")" "$PLANNED"
expect_eq "all runs" "$(q sweep.db "SELECT count(*) FROM runs")" "$PLANNED"
expect_eq "distinct (config, repetition)" \
  "$(q sweep.db "SELECT count(*) FROM (SELECT DISTINCT config_id, repetition FROM runs)")" "$PLANNED"
expect_eq "reruns of the interrupted run" "$(q sweep.db "SELECT count(*) FROM runs WHERE attempt = 2")" "$RUNNING"
expect_eq "runs without steps" \
  "$(q sweep.db "SELECT count(*) FROM runs r WHERE NOT EXISTS (SELECT 1 FROM steps s WHERE s.run_id = r.id)")" 0
expect_eq "integrity_check" "$(q sweep.db "PRAGMA integrity_check")" "ok"
expect_eq "foreign_key_check" "$(q sweep.db "PRAGMA foreign_key_check")" ""
# Running once more changes nothing.
"$CULPRIT" run "$MANIFEST" --db sweep.db --json > third.json 2> third.log
expect_eq "runs executed by a third call" \
  "$(python3 -c 'import json; print(json.load(open("third.json"))["executed"])')" 0
echo "ok: killed with $OK_BEFORE of $PLANNED runs done; resumed to $PLANNED ok"
