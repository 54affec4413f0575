#!/usr/bin/env bash
# Issue 15, defect 4: a result that cannot be written (full disk, /dev/full) is an error:
# exit 1 and a message on stderr, for every command that prints a result.
source "$(dirname "$0")/common.sh"
[[ -w /dev/full ]] || fail "/dev/full is needed"
MANIFEST="$DATA/launch/small.toml"
"$CULPRIT" run "$MANIFEST" --db s.db --shard 1/3 2> run.log || fail "sweep failed: $(cat run.log)"

check() {  # check WHAT COMMAND...: the command succeeds to a file, and fails to /dev/full
  local what=$1 rc=0
  shift
  "$@" > ok.out 2> ok.log || fail "$what to a file: exit $?: $(cat ok.log)"
  [[ -s ok.out ]] || fail "$what printed nothing"
  "$@" > /dev/full 2> full.log || rc=$?
  expect_eq "exit code of $what > /dev/full" "$rc" 1
  expect_log "$what says why" "cannot write the output to stdout \(No space left on device\)" full.log
}

check "export" "$CULPRIT" export --db s.db
check "export --json" "$CULPRIT" export --db s.db --json
check "runs" "$CULPRIT" runs --db s.db
check "runs --json" "$CULPRIT" runs --db s.db --json
check "compare" "$CULPRIT" compare --db s.db
check "plan" "$CULPRIT" plan "$MANIFEST"
check "plan --json" "$CULPRIT" plan --json "$MANIFEST"
# A sweep whose summary cannot be printed still stores its runs, and says the output failed.
rc=0
"$CULPRIT" run "$MANIFEST" --db s.db --shard 2/3 > /dev/full 2> full.log || rc=$?
expect_eq "exit code of run > /dev/full" "$rc" 1
expect_log "run says why" "cannot write the output" full.log
echo "ok: every result written to /dev/full exits 1 with the reason"
