#!/usr/bin/env bash
# A 12-run sweep submitted as 3 shards with --wait: the merged database holds exactly the 12
# planned runs, all ok, and compare on it gives the verdicts of the same sweep run locally.
# A sweep needing more ranks than a node has cores is refused at submit (exit 2).
source "$(dirname "$0")/common.sh"
MANIFEST="$DATA/slurm/sweep12.toml"
PLAN_KEYS=$("$CULPRIT" plan --json "$MANIFEST" |
  python3 -c 'import json,sys; p=json.load(sys.stdin); print(sorted((r["config"], r["repetition"], "ok") for r in p["runs"]))')

"$CULPRIT" submit "$MANIFEST" --shards 3 --db sweep.db --wait --json > wait.json 2> wait.log ||
  fail "submit --wait exited $?: $(cat wait.log)"
expect_eq "runs merged" "$(run_keys sweep.db)" "$PLAN_KEYS"
expect_eq "runs stored" "$(q sweep.db 'SELECT count(*) FROM runs')" 12
expect_eq "tasks completed" "$(json wait.json '[t["state"] for t in d["tasks"]]')" \
  "['COMPLETED', 'COMPLETED', 'COMPLETED']"
grep -q "runs 12/12 done" wait.log || fail "no progress line reached 12/12: $(cat wait.log)"
# The scripts are kept and readable; each task ran its shard into its own database.
for f in shards.sbatch merge.sbatch submission.txt sbatch-commands.txt shard-1.db shard-3.db \
         logs/shard-2.out logs/merge.out; do
  [[ -e sweep.db.slurm/$f ]] || fail "sweep.db.slurm/$f missing"
done
grep -q -- '--shard "$i/3"' sweep.db.slurm/shards.sbatch || fail "task script: $(cat sweep.db.slurm/shards.sbatch)"
# Every run was launched by srun inside its array task, and says so.
expect_eq "launchers" "$(q sweep.db 'SELECT DISTINCT launcher FROM runs')" srun
expect_eq "array tasks recorded" \
  "$(q sweep.db "SELECT group_concat(v, ',') FROM (SELECT DISTINCT value AS v FROM provenance WHERE key = 'slurm.array_task_id' ORDER BY 1)")" \
  "1,2,3"

"$CULPRIT" run "$MANIFEST" --db local.db 2> local.log || fail "local run: $(cat local.log)"
expect_eq "local launcher" "$(q local.db 'SELECT DISTINCT launcher FROM runs')" mpirun
LOCAL=$(verdicts local.db "$MANIFEST")
SLURM=$(verdicts sweep.db "$MANIFEST")
expect_eq "verdicts (Slurm vs local)" "$SLURM" "$LOCAL"
[[ "$SLURM" == *regressed* ]] || fail "the injected 150 ms delay was not found: $SLURM"

# More ranks than the node's cores: refused before anything is submitted.
CORES=$(scontrol show node | sed -n 's/.*CPUTot=\([0-9]*\).*/\1/p' | sort -n | tail -1)
sed "s/^ranks = 2/ranks = $((CORES * 4))/; s/^name = \"slurm-sweep\"/name = \"too-wide\"/" \
  "$MANIFEST" > wide.toml
exit_code_of "$CULPRIT" submit wide.toml --shards 2 --db wide.db 2> wide.log
expect_eq "exit code of a too-wide sweep" "$RC" 2
grep -q "cores" wide.log && grep -q -- "--oversubscribe" wide.log || fail "message: $(cat wide.log)"
[[ ! -e wide.db.slurm/submission.txt ]] || fail "a refused sweep left a submission behind"
# ... and run when oversubscription is asked for (one rank more than the cores, 2 runs).
sed "s/^ranks = 2/ranks = $((CORES + 1))/; s/^repetitions = 6/repetitions = 1/; s/^name = \"slurm-sweep\"/name = \"oversubscribed\"/" \
  "$MANIFEST" > over.toml
"$CULPRIT" submit over.toml --shards 1 --db over.db --oversubscribe --wait 2> over.log ||
  fail "--oversubscribe sweep: $(cat over.log)"
expect_eq "oversubscribed runs ok" "$(q over.db "SELECT count(*) FROM runs WHERE status = 'ok'")" 2
grep -q -- "'--overcommit' '--exclusive'" over.db.slurm/sbatch-commands.txt ||
  fail "no --overcommit: $(cat over.db.slurm/sbatch-commands.txt)"
echo "ok: 12 runs over 3 shards merged, verdicts as local ($SLURM)"
