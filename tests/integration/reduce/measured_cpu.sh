#!/usr/bin/env bash
# A measured schedule on the cpu backend (real mpirun, 4 sleeping ranks): the run files carry
# the schedule's own region names and both all-reduces, and `culprit validate` blames each
# injected delay on its rank and region (3/3, no false positive on the baseline); each rank's
# CPU wait inside its collectives is kept per step beside the step's (the environment check's).
# Usage: measured_cpu.sh BIN_DIR DATA_DIR WORK_DIR
set -euo pipefail
bin=$1 data=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$bin/culprit" validate "$data/reduce/measured-cpu.toml" --db m.db > validate.txt
cat validate.txt
grep -q "accuracy (rank and phase): 3/3 = 100.0 %" validate.txt
grep -q "false positives on controls: 0/1" validate.txt
names=$(sqlite3 m.db "SELECT group_concat(name, ',') FROM (SELECT DISTINCT name FROM run_events ORDER BY name)")
[[ $names == "allreduce,backward,layer0,layer1,layer2,optimizer,step" ]] || {
  echo "FAIL: event names $names"; exit 1; }
collectives=$(sqlite3 m.db "SELECT count(DISTINCT seq) FROM run_events WHERE kind = 'collective'")
[[ $collectives == 2 ]] || { echo "FAIL: $collectives collective sequence numbers"; exit 1; }
# The stepping thread's wait for a CPU inside its collectives (read around each all-reduce) is
# kept beside the step's: every rank of every run, each step's part no more than the step's.
python3 - <<'PY'
import sqlite3
db = sqlite3.connect("m.db")
def lists(key):
    return {(run, rank): dict(tuple(map(int, p.split(":"))) for p in value.split(","))
            for run, rank, value in db.execute(
                "SELECT run_id, rank, value FROM provenance WHERE key = ?", (key,))}
step, inside = lists("sched.step_wait_ns"), lists("sched.step_collective_wait_ns")
assert len(inside) == 4 * 4 and inside.keys() == step.keys(), (sorted(inside), sorted(step))
for key, waits in inside.items():
    assert waits.keys() == step[key].keys(), key
    assert all(0 <= ns <= step[key][s] for s, ns in waits.items()), (key, waits, step[key])
PY
echo ok
