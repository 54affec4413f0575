#!/usr/bin/env bash
# A range whose versions all run the same workload: not reproduced, exit 3.
source "$(dirname "$0")/common.sh"
exit_code_of "$CULPRIT" bisect "$DATA/bisect/flat.toml" --db b.db --json > out.json 2> out.log
expect_eq "exit code ($(cat out.json))" "$RC" 3
expect_eq "status" "$(json out.json 'd["status"]')" not_reproduced
expect_eq "first bad" "$(json out.json 'd["first_bad"]')" None
# Only the endpoints were measured.
expect_eq "versions measured" "$(q b.db "SELECT count(DISTINCT config_id) FROM runs")" 2
echo "ok: not reproduced"
