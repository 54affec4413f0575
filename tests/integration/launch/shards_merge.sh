#!/usr/bin/env bash
# Two shards run separately and merged equal the full plan; merging again changes nothing.
source "$(dirname "$0")/common.sh"
MANIFEST="$DATA/launch/small.toml"
PLAN_KEYS=$("$CULPRIT" plan --json "$MANIFEST" |
  python3 -c 'import json,sys; p=json.load(sys.stdin); print(sorted((r["config"], r["repetition"]) for r in p["runs"]))')

"$CULPRIT" run "$MANIFEST" --db shard1.db --shard 1/2 2> shard1.log || fail "shard 1: $(cat shard1.log)"
"$CULPRIT" run "$MANIFEST" --db shard2.db --shard 2/2 2> shard2.log || fail "shard 2: $(cat shard2.log)"
N1=$(q shard1.db "SELECT count(*) FROM runs")
N2=$(q shard2.db "SELECT count(*) FROM runs")
[[ "$N1" -gt 0 && "$N2" -gt 0 ]] || fail "a shard ran nothing ($N1, $N2)"
expect_eq "shards overlap" "$(q shard1.db "SELECT group_concat(position) FROM runs WHERE position % 2 <> 0")" ""

"$CULPRIT" merge merged.db shard1.db shard2.db 2> merge.log || fail "merge: $(cat merge.log)"
MERGED_KEYS=$("$CULPRIT" runs --db merged.db --json |
  python3 -c 'import json,sys; r=json.load(sys.stdin); assert all(x["status"]=="ok" for x in r), r; print(sorted((x["config"], x["repetition"]) for x in r))')
expect_eq "merged runs" "$MERGED_KEYS" "$PLAN_KEYS"

dump() {
  q merged.db "SELECT c.config_hash, r.repetition, r.status, r.median_ms,
                 (SELECT count(*) FROM run_events e WHERE e.run_id = r.id),
                 (SELECT count(*) FROM steps s WHERE s.run_id = r.id)
               FROM runs r JOIN configurations c ON c.id = r.config_id ORDER BY 1, 2"
  q merged.db "SELECT count(*) FROM experiments; SELECT count(*) FROM configurations"
}
BEFORE=$(dump)
"$CULPRIT" merge merged.db shard2.db shard1.db 2> merge2.log || fail "second merge: $(cat merge2.log)"
expect_eq "store after merging again" "$(dump)" "$BEFORE"
expect_eq "integrity_check" "$(q merged.db "PRAGMA integrity_check")" "ok"
# The merged store is a complete sweep: resuming it runs nothing.
"$CULPRIT" run "$MANIFEST" --db merged.db --json > resume.json 2> resume.log
expect_eq "runs executed on the merged store" \
  "$(python3 -c 'import json; print(json.load(open("resume.json"))["executed"])')" 0
echo "ok: shards of $N1 + $N2 runs merged into the full plan"
