#!/usr/bin/env bash
# `culprit reduce` on a pair of imported real torch traces (shared/traces/torch-ddp: the control
# and rank 1 sleeping 30 ms in layer2 in ProfilerStep#5): the reduced manifest keeps the job's own
# region names, names rank 1 / layer2 as the cause with about 30 ms in the step at that position
# (the 4th recorded step), and in the reduced experiment's cause-1 runs attribution blames rank 1
# / layer2 in that step.
# Usage: torch_pair.sh BIN_DIR TRACES_DIR WORK_DIR
set -euo pipefail
bin=$1 traces=$2/torch-ddp work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$bin/culprit" import "$traces/ddp2-control/legacy" --db t.db --experiment pair --label baseline >/dev/null
"$bin/culprit" import "$traces/ddp2-sleep-layer2/legacy" --db t.db --experiment pair --label candidate >/dev/null
"$bin/culprit" reduce --db t.db 1 2 --repetitions 3 --json -o repro.toml > reduce.json
grep -q '{ name = "layer2"' repro.toml
grep -q '{ name = "optimizer"' repro.toml
python3 - <<'PY'
import json
r = json.load(open("reduce.json"))
causes = [c for c in r["causes"] if c["rank"] == 1 and c["phase"] == "layer2"]
assert len(r["causes"]) == 1 and causes, r["causes"]
delays = causes[0]["delays"]
assert len(delays) == 1, delays
d = delays[0]
assert d["step_first"] == d["step_last"] == 3, d
assert 22.5 <= d["ms"] <= 37.5, d
print("cause:", causes[0]["phase"], "rank", causes[0]["rank"], d)
PY
"$bin/culprit" run repro.toml --db r.db > run.txt
run=$(sqlite3 r.db "SELECT r.id FROM runs r JOIN configurations c ON c.id = r.config_id
  WHERE c.label = 'version=cause-1' AND r.status = 'ok' LIMIT 1")
"$bin/culprit" attribute --db r.db "$run" --json > attribute.json
python3 - <<'PY'
import json
a = json.load(open("attribute.json"))
a = a[0] if isinstance(a, list) else a
step = [s for s in a["steps"] if s["step"] == 3][0]
c = step["culprit"]
assert c and c["rank"] == 1 and c["phase"] == "layer2", step
print("reduced run, step 3:", c)
PY
echo ok
