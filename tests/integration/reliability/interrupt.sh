#!/usr/bin/env bash
# Issue 15, defect 2: Ctrl-C / SIGTERM (and SIGHUP: the terminal closed) during a run. culprit forwards the signal to the run's
# process group (mpirun and its ranks), records the run `interrupted`, keeps the rest pending
# and exits 128 + signal; nothing of the job is left running; running again resumes cleanly.
source "$(dirname "$0")/common.sh"
hang_manifest hang.toml 307.75

check_signal() {  # check_signal SIGNAL EXIT_CODE
  local signal=$1 code=$2 rc=0
  "$CULPRIT" run hang.toml --db s.db > "$signal.out" 2> "$signal.log" &
  local pid=$!
  wait_for "the slow run to be in flight" running_version s.db 307.75
  local start=$SECONDS
  kill -"$signal" "$pid"
  wait "$pid" || rc=$?
  expect_eq "exit code after $signal" "$rc" "$code"
  [[ $((SECONDS - start)) -lt 20 ]] || fail "culprit took $((SECONDS - start)) s to stop after $signal"
  ! pgrep -f "sleep 307.75" >/dev/null || fail "ranks still run after $signal: $(pgrep -af 'sleep 307.75')"
  expect_eq "status after $signal" \
    "$(q s.db "SELECT r.status FROM runs r JOIN configurations c ON c.id = r.config_id WHERE c.label = 'version=slow'")" interrupted
  expect_log "the signal is reported" "interrupted by SIG$signal" "$signal.log"
}

check_signal INT 130
check_signal TERM 143
check_signal HUP 129  # the terminal closed: the same orderly stop
expect_eq "runs in flight after the interruptions" "$(q s.db "SELECT count(*) FROM runs WHERE status = 'running'")" 0

touch go
"$CULPRIT" run hang.toml --db s.db > resume.out 2> resume.log || fail "resume failed: $(cat resume.log)"
expect_eq "ok runs after the resume" "$(q s.db "SELECT count(*) FROM runs WHERE status = 'ok'")" 2
expect_eq "all runs" "$(q s.db "SELECT count(*) FROM runs")" 2
expect_eq "attempts of the interrupted run" \
  "$(q s.db "SELECT r.attempt FROM runs r JOIN configurations c ON c.id = r.config_id WHERE c.label = 'version=slow'")" 4
expect_eq "integrity_check" "$(q s.db "PRAGMA integrity_check")" ok
echo "ok: SIGINT -> 130, SIGTERM -> 143, SIGHUP -> 129, no rank left, resumed to 2 ok runs"
