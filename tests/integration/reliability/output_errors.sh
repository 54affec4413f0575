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

# Files named with -o: the same rule, and the target is never replaced by something else.
check_file() {  # check_file WHAT COMMAND... (the command takes -o FILE after it)
  local what=$1 rc=0
  shift
  "$@" -o out.file 2> ok.log || fail "$what -o out.file: exit $?: $(cat ok.log)"
  [[ -s out.file ]] || fail "$what -o out.file wrote nothing"
  "$@" -o /dev/full 2> full.log || rc=$?
  expect_eq "exit code of $what -o /dev/full" "$rc" 1
  expect_log "$what -o /dev/full says why" "writing '/dev/full' failed \(disk full\?\)" full.log
  # Before the fix the temporary file was renamed onto /dev/full, replacing the device node.
  [[ -c /dev/full ]] || fail "$what -o /dev/full replaced the device with a regular file"
  rc=0
  mkdir -p a.folder
  "$@" -o a.folder 2> folder.log || rc=$?
  expect_eq "exit code of $what -o FOLDER" "$rc" 2
  expect_log "$what -o FOLDER says why" "'a.folder' is a folder: give a file name" folder.log
  # Through a symlink (dangling here), the file it points to is written and the link kept.
  rm -f link.out target.out
  ln -s target.out link.out
  "$@" -o link.out 2> link.log || fail "$what -o SYMLINK: exit $?: $(cat link.log)"
  [[ -L link.out && -s target.out ]] || fail "$what -o SYMLINK replaced the link"
}
check_file "export" "$CULPRIT" export --db s.db
check_file "export --format perfetto" "$CULPRIT" export --db s.db --format perfetto 1
check_file "report" "$CULPRIT" report --db s.db
# What only a timeline uses is refused with csv/json, not silently dropped.
for extra in "1" "--steps 1:2" "--ranks 0"; do
  rc=0
  # shellcheck disable=SC2086
  "$CULPRIT" export --db s.db $extra > /dev/null 2> extra.log || rc=$?
  expect_eq "exit code of export $extra (csv)" "$rc" 2
  expect_log "export $extra says it is for perfetto" "selects what --format perfetto exports" extra.log
done
echo "ok: every result written to /dev/full exits 1 with the reason"
