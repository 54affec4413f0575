#!/usr/bin/env bash
# A hanging run is killed at its timeout and classified `timeout`, a failing one `failed`, and
# the sweep goes on (exit 5 at the end); a bad manifest exits 2 and writes nothing; a sweep
# whose runs are all ok exits 0.
source "$(dirname "$0")/common.sh"

exit_code_of "$CULPRIT" run "$DATA/launch/bad.toml" 2> bad.log
expect_eq "exit code for a bad manifest" "$RC" 2
grep -q "bad.toml:4:15" bad.log || fail "the error does not name the place: $(cat bad.log)"
[[ -z "$(ls -A)" || "$(ls -A)" == "bad.log" ]] || fail "files were written: $(ls -A)"

exit_code_of "$CULPRIT" run "$DATA/launch/timeout.toml" --db t.db --json > t.json 2> t.log
expect_eq "exit code when a run failed" "$RC" 5
expect_eq "hang" "$(q t.db "SELECT r.status FROM runs r JOIN configurations c ON c.id = r.config_id WHERE c.label = 'version=hang'")" timeout
expect_eq "broken" "$(q t.db "SELECT r.status FROM runs r JOIN configurations c ON c.id = r.config_id WHERE c.label = 'version=broken'")" failed
expect_eq "baseline" "$(q t.db "SELECT r.status FROM runs r JOIN configurations c ON c.id = r.config_id WHERE c.is_baseline")" ok
# Killed near its 3 s limit (plus the 5 s grace at most), not after the 100 s sleep.
WALL=$(q t.db "SELECT CAST(wall_s AS INTEGER) FROM runs WHERE status = 'timeout'")
[[ "$WALL" -lt 30 ]] || fail "the hanging run took ${WALL}s"
expect_eq "runs reported" "$(python3 -c 'import json; d=json.load(open("t.json")); print(d["executed"], d["not_ok"])')" "3 2"

"$CULPRIT" run "$DATA/launch/small.toml" --db small.db --shard 1/3 2> small.log || fail "exit code $? for an all-ok sweep: $(cat small.log)"
echo "ok: timeout, failure and exit codes"
