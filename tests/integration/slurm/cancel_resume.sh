#!/usr/bin/env bash
# One array task cancelled mid-way: --status reports it (Slurm state, log path), --resume
# resubmits only that shard and completes exactly its missing runs; no run is stored twice and
# the runs that were ok before are kept as they were.
source "$(dirname "$0")/common.sh"
MANIFEST="$DATA/slurm/sweep12.toml"
"$CULPRIT" submit "$MANIFEST" --shards 3 --db sweep.db --json > submit.json 2> submit.log ||
  fail "submit: $(cat submit.log)"
ARRAY=$(json submit.json 'd["array_job"]')
MERGE=$(json submit.json 'd["merge_job"]')
# Cancel task 2 once it has finished one run of its four.
for _ in $(seq 1 480); do
  DONE=$(q_try sweep.db.slurm/shard-2.db "SELECT count(*) FROM runs WHERE status = 'ok'" 2>/dev/null || echo 0)
  [[ "$DONE" -ge 1 ]] && break
  sleep 0.25
done
[[ "$DONE" -ge 1 ]] || fail "shard 2 never finished a run: $(squeue --array)"
scancel "${ARRAY}_2"
wait_job "$ARRAY"
wait_job "$MERGE"
kept() {  # id:started_at of the runs that were ok before the resume
  q sweep.db.slurm/shard-2.db "SELECT group_concat(x, ',') FROM (SELECT id || ':' || started_at AS x FROM runs WHERE id IN ($1) ORDER BY id)"
}
IDS=$(q sweep.db.slurm/shard-2.db "SELECT group_concat(id, ',') FROM runs WHERE status = 'ok'")
OK_BEFORE=$(kept "$IDS")
N_OK_BEFORE=$(q sweep.db.slurm/shard-2.db "SELECT count(*) FROM runs WHERE status = 'ok'")
[[ "$N_OK_BEFORE" -lt 4 ]] || fail "shard 2 finished before the cancel; nothing to resume"

"$CULPRIT" submit "$MANIFEST" --db sweep.db --status --json > status.json 2> status.log ||
  fail "status: $(cat status.log)"
expect_eq "shard 2 state" "$(json status.json 'd["tasks"][1]["state"]')" CANCELLED
expect_eq "shard 2 log" "$(json status.json 'd["tasks"][1]["log"]')" "$WORK/sweep.db.slurm/logs/shard-2.out"
expect_eq "other shards" "$(json status.json '[d["tasks"][0]["state"], d["tasks"][2]["state"]]')" \
  "['COMPLETED', 'COMPLETED']"
expect_eq "merged ok before resume" "$(json status.json 'd["merged_ok"]')" $((8 + N_OK_BEFORE))
"$CULPRIT" submit "$MANIFEST" --db sweep.db --status > status.txt
grep -q "shard 2/3  job ${ARRAY}_2  CANCELLED" status.txt || fail "status text: $(cat status.txt)"
grep -q "log $WORK/sweep.db.slurm/logs/shard-2.out" status.txt || fail "no log path: $(cat status.txt)"

"$CULPRIT" submit "$MANIFEST" --db sweep.db --resume --wait > resume.txt 2> resume.log ||
  fail "resume exited $?: $(cat resume.log)"
# Only shard 2 was resubmitted.
LAST_ARRAY=$(grep -- "--array=" sweep.db.slurm/sbatch-commands.txt | tail -1)
[[ "$LAST_ARRAY" == *"'--array=2'"* ]] || fail "resubmitted more than shard 2: $LAST_ARRAY"
expect_eq "runs stored" "$(q sweep.db 'SELECT count(*) FROM runs')" 12
expect_eq "distinct runs" "$(q sweep.db "SELECT count(DISTINCT config_id || ':' || repetition) FROM runs")" 12
expect_eq "ok runs" "$(q sweep.db "SELECT count(*) FROM runs WHERE status = 'ok'")" 12
expect_eq "shard 2's ok runs kept as they were" "$(kept "$IDS")" "$OK_BEFORE"
EXECUTED=$(grep -c "ok, median" sweep.db.slurm/logs/shard-2.out)
expect_eq "runs executed by shard 2 in all" "$EXECUTED" 4
grep -q "12 of 12 planned run(s) ok" resume.txt || fail "resume report: $(cat resume.txt)"
echo "ok: cancelled shard 2 after $N_OK_BEFORE run(s); resume ran the other $((4 - N_OK_BEFORE))"
