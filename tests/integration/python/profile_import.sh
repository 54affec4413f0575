#!/usr/bin/env bash
# The same run seen twice: examples/torch/ddp_train.py on 2 ranks under `culprit run` (timed by
# the Python module) and profiled by torch.profiler (legacy export, Debian's torch), with 30 ms
# injected into rank 1's layer2. The profiler's traces are imported with `culprit import`; blind
# attribution must name rank 1 / layer2 from both sources, and neither source blames anybody in
# the control run. Then `culprit report` of the imported runs renders (its HTML is checked for
# the sections and the blamed rank).
# Usage: profile_import.sh BIN_DIR WORK_DIR TORCH_PYTHON SOURCE_DIR
set -euo pipefail
bin=$1 work=$2 py=$3 src=$4
rm -rf "$work" && mkdir -p "$work"
cd "$src"
export PATH="$(dirname "$py"):$PATH"
"$bin/culprit" run tests/data/python/ddp-profile.toml --db "$work/m.db" --keep-run-files \
  > "$work/run.txt" 2> "$work/run.err" || { tail -20 "$work/run.err"; echo "FAIL: run"; exit 1; }
delay_run=$(sqlite3 "$work/m.db" "SELECT r.id FROM runs r JOIN configurations c ON c.id = r.config_id
  WHERE c.label LIKE 'delay=%' AND r.status = 'ok'")
control_run=$(sqlite3 "$work/m.db" "SELECT r.id FROM runs r JOIN configurations c ON c.id = r.config_id
  WHERE c.is_baseline = 1 AND r.status = 'ok'")
[[ -n $delay_run && -n $control_run ]] || { echo "FAIL: runs not ok"; cat "$work/run.txt"; exit 1; }
profile_of() { find "$work/m.db.runs" -type d -path "*/$1.*" -name '*.profile' | head -1; }
for which in delay control; do
  run=${which}_run
  dir=$(profile_of "${!run}")
  [[ -f $dir/rank0.json && -f $dir/rank1.json ]] || { echo "FAIL: no profile for run ${!run}"; exit 1; }
  label=$([[ $which == control ]] && echo baseline || echo delay)
  "$bin/culprit" import "$dir" --db "$work/i.db" --format legacy --experiment profiled \
    --label "$label" --json > "$work/import-$which.json"
  "$bin/culprit" attribute --db "$work/m.db" "${!run}" --json > "$work/measured-$which.json"
  imported=$("$py" -c "import json,sys; print(json.load(open(sys.argv[1]))['run_id'])" \
    "$work/import-$which.json")
  "$bin/culprit" attribute --db "$work/i.db" "$imported" --json > "$work/imported-$which.json"
done
"$py" - "$work" <<'PY'
import json, sys
work = sys.argv[1]
def culprit(name):
    a = json.load(open(f"{work}/{name}.json"))
    runs = a if isinstance(a, list) else [a]
    s = runs[0]["summary"]
    c = s["culprit"]
    return None if not c else (c["rank"], c["phase"], c["excess_ms"], s["median_step_ms"])
regions = {"layer0", "layer1", "layer2", "layer3", "optimizer"}
for which in ("delay", "control"):
    m, i = culprit("measured-" + which), culprit("imported-" + which)
    print(f"{which}: measured by the module {m}, imported from the profiler {i}")
    if which == "delay":
        assert m and m[:2] == (1, "layer2"), f"measured {which}: {m}"
        if i is None or i[:2] != (1, "layer2"):
            # Seen on some runs: the imported view splits the steps' blame between layer2 and
            # the next region (the injected sleep sits at the end of layer2's label), so no
            # region holds half of them. Then most steps must still blame rank 1, layer2 most.
            a = json.load(open(f"{work}/imported-delay.json"))
            a = a[0] if isinstance(a, list) else a
            blamed = [s["culprit"] for s in a["steps"] if s.get("culprit")]
            ones = [c["phase"] for c in blamed if c["rank"] == 1]
            print(f"imported delay, per step: {ones}")
            assert 2 * len(ones) >= len(a["steps"]), f"imported delay: rank 1 in {len(ones)} steps"
            assert max(set(ones), key=ones.count) == "layer2", f"imported delay: {ones}"
        continue
    assert m is None, f"measured control blames {m}"
    # The profiler sees every op: on a ~2 ms step it can find a rank a few tens of us slower in
    # one autograd op, which the module's regions do not resolve. No region may be blamed, and
    # anything blamed must stay below 2 % of the step (what validate scores as a delay).
    if i is not None:
        assert i[1] not in regions, f"imported control blames a region: {i}"
        assert i[2] < 0.02 * i[3], f"imported control blames {i}: 2 % of the step or more"
imp = json.load(open(f"{work}/import-delay.json"))
assert imp["format"] == "legacy" and imp["ranks"] == 2 and imp["steps"] >= 8, imp
PY
"$bin/culprit" report --db "$work/i.db" --experiment profiled -o "$work/imported.html" > /dev/null
grep -q "layer2" "$work/imported.html" || { echo "FAIL: the report does not name layer2"; exit 1; }
echo ok
