#!/usr/bin/env bash
# An abort fault on rank 1 at step 3 ends the job nonzero within seconds, naming rank 1, and
# leaves no run file under the final name.
source "$(dirname "$0")/common.sh"

cat >"$WORK/config.json" <<'JSON'
{"experiment": "step-abort", "backend": "cpu", "ranks": 2, "warmup_steps": 1, "steps": 20,
 "model": {"layers": 2, "microbatches": 1, "tokens": 128, "hidden": 128, "buckets": 1,
           "compute": "sleep"},
 "inject": {"faults": [{"rank": 1, "step": 3, "kind": "abort"}]}}
JSON
start=$(date +%s)
exit_code_of mpi 2 "$STEP" --config "$WORK/config.json" --out "$WORK/run.db" >"$WORK/out.txt" 2>&1
elapsed=$(($(date +%s) - start))
cat "$WORK/out.txt"
((RC != 0)) || fail "job exited 0 despite the abort fault"
check_between "seconds until the job ended" "$elapsed" 0 20
grep -q "rank 1: injected fault 'abort' at step 3" "$WORK/out.txt" || fail "message names no rank"
[[ ! -e $WORK/run.db ]] || fail "a run file exists under the final name"
echo PASS
