#!/usr/bin/env bash
# Issue 38, items 2 and 13: `culprit reduce` refuses a pair it cannot compare, saying why, and
# writes no manifest: one run given twice (it "reproduced" a +0.00 ms change by injecting the
# run's own straggler), runs of two experiments, a run that is not ok (exit 1, "internal error",
# before). The runs are a real trace pair (tests/data/importers/ddp-last-work-cut) imported into
# two experiments, and its rank 0 alone (--partial: one capture is refused twice in one
# experiment) into the first again; the failed run is a hand-edited status.
source "$(dirname "$0")/common.sh"
TRACES="$DATA/importers/ddp-last-work-cut/traces"
import() {  # EXPERIMENT LABEL PATH... [--partial]
  "$CULPRIT" import "${@:3}" --db s.db --experiment "$1" --label "$2" >/dev/null 2>&1 ||
    fail "import into experiment $1 failed"
}
import a l1 "$TRACES"
import b l2 "$TRACES"
import a l3 "$TRACES/rank0.json.gz" --partial
expect_rc "the same run twice" 2 "$CULPRIT" reduce --db s.db 1 1 -o r.toml
expect_log "the reason is given" "run 1 is both the baseline and the candidate"
expect_rc "runs of two experiments" 2 "$CULPRIT" reduce --db s.db 1 2 -o r.toml
expect_log "the experiments are named" "belong to the experiments 'a' and 'b'"
q s.db "UPDATE runs SET status = 'failed' WHERE id = 3"
expect_rc "a failed run" 2 "$CULPRIT" reduce --db s.db 1 3 -o r.toml
expect_log "the status is named" "run 3 is failed, not ok"
[[ ! -e r.toml ]] || fail "a refused reduce wrote r.toml"
echo "ok: same run, two experiments and a failed run refused with exit 2, no manifest written"
# Item 14: --ranks 0 is refused in one short line (it printed a 310-digit range).
expect_rc "--ranks 0" 2 "$CULPRIT" reduce --db s.db 1 3 --ranks 0 -o r.toml
expect_log "the range is readable" "--ranks: Value 0 not in range 1 to 16777216"
[[ $(wc -c < err.log) -lt 300 ]] || fail "the --ranks refusal is $(wc -c < err.log) bytes: $(cat err.log)"
echo "ok: --ranks 0 refused in $(wc -c < err.log) bytes"
# Item 13: a run without events (a failed run; here its events deleted by hand) is refused by
# `export --format perfetto` with exit 2 naming its status (exit 1 "internal error" before).
q s.db "DELETE FROM run_event_packs WHERE run_id = 3; DELETE FROM steps WHERE run_id = 3"
expect_rc "perfetto export of a failed run" 2 "$CULPRIT" export --db s.db --format perfetto 3 -o t.json
expect_log "the status is named" "run 3 in s.db has no events to export \(failed"
echo "ok: perfetto export of a run without events refused"
