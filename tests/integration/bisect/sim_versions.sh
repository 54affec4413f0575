#!/usr/bin/env bash
# `culprit bisect` on 16 simulated versions (backend "sim", run_cv 0.03): the hidden culprit
# s11 (about 5 % slower) is found, the posterior's top candidate is s11, and a rerun on the
# same database makes no new run.
source "$(dirname "$0")/common.sh"
MANIFEST="$DATA/bisect/sim.toml"

bisect_ok "$MANIFEST" s.db first
expect_eq "status" "$(json first.json 'd["status"]')" found
expect_eq "first bad" "$(json first.json 'd["first_bad"]')" s11
expect_eq "last good" "$(json first.json 'd["last_good"]')" s10
expect_eq "top candidate" "$(json first.json 'd["candidates"][0]["version"]')" s11
json first.json 'd["candidates"][0]["probability"] >= 0.95 or sys.exit("posterior %s" % d["candidates"])'
json first.json '0.02 < d["relative"] < 0.10 or sys.exit("relative shift %s" % d["relative"])'
json first.json '0.01 < d["noise"]["cv"] < 0.06 or sys.exit("cv %s" % d["noise"])'
json first.json 'd["steps"][-1]["kind"] == "verify" or sys.exit(1)'
RUNS=$(json first.json 'd["runs"]')
# Every run keeps the machine's contention in its provenance (rank -1).
expect_eq "runs with contention provenance" \
  "$(q s.db "SELECT count(DISTINCT run_id) FROM provenance WHERE rank = -1 AND key = 'contention.cores'")" \
  "$(q s.db "SELECT count(*) FROM runs WHERE status = 'ok'")"
"$CULPRIT" bisect "$MANIFEST" --db s.db --json > second.json 2> second.log ||
  fail "second bisect: $(tail -20 second.log)"
expect_eq "second first bad" "$(json second.json 'd["first_bad"]')" s11
expect_eq "new runs in the second bisect" "$(json second.json 'd["new_runs"]')" 0
echo "ok: s11 found with $RUNS simulated runs; the rerun made none"
