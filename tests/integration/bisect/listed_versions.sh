#!/usr/bin/env bash
# 12 listed versions, v07 and later about 40 % slower: bisect finds v07, and a second bisect on the
# same database reuses every stored run (no new run).
source "$(dirname "$0")/common.sh"
MANIFEST="$DATA/bisect/listed.toml"

bisect_ok "$MANIFEST" b.db first
expect_eq "status" "$(json first.json 'd["status"]')" found
expect_eq "first bad" "$(json first.json 'd["first_bad"]')" v07
expect_eq "last good" "$(json first.json 'd["last_good"]')" v06
json first.json '0.15 < d["relative"] < 0.80 or sys.exit("relative shift %s" % d["relative"])'
json first.json 'd["shift_ci_ms"][0] > 0 or sys.exit("CI %s" % d["shift_ci_ms"])'
json first.json 'all(set(s) >= {"version", "verdict", "n"} for s in d["steps"]) or sys.exit(1)'
RUNS=$(q b.db "SELECT count(*) FROM runs")
# Every run made is stored (new_runs); `runs` counts those the decision used: a block prefetched
# for both ends of a pair may hold a run the decision did not need.
expect_eq "new runs in the report" "$(json first.json 'd["new_runs"]')" "$(q b.db "SELECT count(*) FROM runs WHERE status = 'ok'")"
json first.json 'd["runs"] <= d["new_runs"] or sys.exit("runs %s > new_runs %s" % (d["runs"], d["new_runs"]))'

"$CULPRIT" bisect "$MANIFEST" --db b.db --json > second.json 2> second.log ||
  fail "second bisect: $(tail -20 second.log)"
expect_eq "second first bad" "$(json second.json 'd["first_bad"]')" v07
expect_eq "new runs in the second bisect" "$(json second.json 'd["new_runs"]')" 0
expect_eq "runs stored after the second bisect" "$(q b.db "SELECT count(*) FROM runs")" "$RUNS"
echo "ok: v07 found with $RUNS runs; the rerun made none"
