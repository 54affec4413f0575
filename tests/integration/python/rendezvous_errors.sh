#!/usr/bin/env bash
# Issue 38 item 11: the Python module never waits forever. (1) A rank whose peer never starts
# (RANK/WORLD_SIZE set, no MASTER_ADDR: the file rendezvous beside CULPRIT_RUN_FILE) gives up
# after CULPRIT_RENDEZVOUS_TIMEOUT_S (2 s here) saying how many ranks joined, and leaves no
# file; it waited forever and left `run.db.rendezvous..` before. (2) `mpirun -np 2` with
# CULPRIT_RUN_FILE in a folder that does not exist exits at once naming the folder (it hung).
# Usage: rendezvous_errors.sh WORK_DIR TORCH_PYTHON SOURCE_DIR
set -euo pipefail
work=$1 py=$2 src=$3
rm -rf "$work" && mkdir -p "$work/out" && cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > clock.py <<PY
import sys
sys.path.insert(0, "$src/python")
import culprit
culprit.StepClock(warmup_steps=0, steps=1).finish()
PY

rc=0
env RANK=0 WORLD_SIZE=2 CULPRIT_RUN_FILE="$work/out/run.db" CULPRIT_RENDEZVOUS_TIMEOUT_S=2 \
  timeout 100 "$py" clock.py > alone.log 2>&1 || rc=$?
[[ $rc != 124 ]] || fail "the lone rank still waits after 100 s"
[[ $rc != 0 ]] || fail "the lone rank started although its peer never did"
grep -q "rank 0 of 2: only 1 of the 2 ranks joined the rendezvous within 2 s" alone.log ||
  fail "the timeout is not said: $(tail -3 alone.log)"
[[ -z "$(ls -A out)" ]] || fail "files left beside the run file: $(ls -A out)"

rc=0
timeout 100 mpirun --allow-run-as-root --oversubscribe -np 2 \
  -x CULPRIT_RUN_FILE="$work/missing/run.db" "$py" clock.py > mpirun.log 2>&1 || rc=$?
[[ $rc != 124 ]] || fail "mpirun with a missing run-file folder still runs after 100 s"
[[ $rc != 0 ]] || fail "mpirun with a missing run-file folder exited 0"
grep -q "run file $work/missing/run.db: the folder $work/missing does not exist" mpirun.log ||
  fail "the missing folder is not named: $(tail -5 mpirun.log)"
[[ ! -e missing ]] || fail "the missing folder was created"
echo "ok: a lone rank gives up after its timeout, leaving nothing; a missing folder is said at once"
