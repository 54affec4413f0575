#!/usr/bin/env bash
# culprit-sim's command line: environment variables, usage errors (exit 2), an injected abort
# (exit 3, no run file, message naming rank and step), and a hang that only a kill ends.
# Usage: cli.sh BIN_DIR DATA_DIR WORK_DIR
source "$(dirname "$0")/common.sh"
bin=$1 data=$2 work=$3
fresh_dir "$work"
cfg="$data/structure-4.json"

CULPRIT_CONFIG="$cfg" CULPRIT_RUN_FILE="$work/env.db" "$bin/culprit-sim"
[ "$(sqlite3 "$work/env.db" "SELECT value FROM meta WHERE key='backend'")" = sim ] ||
  fail "run file from environment variables lacks meta.backend=sim"
[ "$(sqlite3 "$work/env.db" "SELECT json FROM config_echo")" = "$(cat "$cfg")" ] ||
  fail "config_echo is not the input verbatim"

exit_code_of "$bin/culprit-sim" --out "$work/x.db" 2> "$work/usage.err"
[ $RC = 2 ] || fail "missing --config exited $RC, expected 2"
grep -q -- "--config" "$work/usage.err" || fail "usage error does not mention --config"

sed 's/"ranks": 4/"ranks": 0/' "$cfg" > "$work/bad.json"
exit_code_of "$bin/culprit-sim" --config "$work/bad.json" --out "$work/bad.db" 2> "$work/bad.err"
[ $RC = 2 ] || fail "invalid configuration exited $RC, expected 2"
grep -q "ranks" "$work/bad.err" || fail "configuration error does not name the key"
[ ! -e "$work/bad.db" ] || fail "a run file was written for an invalid configuration"

sed 's/"faults": \[\]/"faults": [{"rank": 3, "step": 2, "kind": "abort"}]/' "$cfg" > "$work/abort.json"
exit_code_of "$bin/culprit-sim" --config "$work/abort.json" --out "$work/abort.db" 2> "$work/abort.err"
[ $RC = 3 ] || fail "injected abort exited $RC, expected 3"
grep -q "rank 3 at step 2" "$work/abort.err" || fail "abort message does not name rank and step"
[ ! -e "$work/abort.db" ] || fail "a run file was written despite the abort"
ls "$work" | grep -q '\.tmp\.' && fail "a temporary run file was left behind"

sed 's/"faults": \[\]/"faults": [{"rank": 1, "step": 0, "kind": "hang"}]/' "$cfg" > "$work/hang.json"
exit_code_of timeout 2 "$bin/culprit-sim" --config "$work/hang.json" --out "$work/hang.db" 2> "$work/hang.err"
[ $RC = 124 ] || fail "injected hang exited $RC, expected to be killed by the timeout (124)"
[ ! -e "$work/hang.db" ] || fail "a run file was written despite the hang"
echo "PASS: culprit-sim command line"
