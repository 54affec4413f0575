#!/usr/bin/env bash
# `culprit plan` on every ready-to-run experiment and every valid test manifest: exit 0, one
# JSON document with the keys of the interface contract, nothing written.
#   plan_valid.sh BIN_DIR SOURCE_DIR WORK_DIR
set -u
bin=$1/culprit src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
failures=0

for manifest in "$src"/experiments/*.toml "$src"/tests/data/manifests/valid/*.toml; do
  name=$(basename "$manifest" .toml)
  if ! (cd "$work" && "$bin" plan "$manifest" >"$work/../$name.txt" 2>"$work/../$name.err"); then
    echo "FAIL $name: culprit plan failed"; cat "$work/../$name.err"; failures=$((failures + 1))
    continue
  fi
  grep -q "^configurations" "$work/../$name.txt" || { echo "FAIL $name: no table"; failures=$((failures + 1)); }
  if ! (cd "$work" && "$bin" plan --json "$manifest" >"$work/../$name.json" 2>/dev/null); then
    echo "FAIL $name: culprit plan --json failed"; failures=$((failures + 1)); continue
  fi
  # Shape: configs[{label,factor,level}], runs[{config,repetition,position}], warnings[];
  # every configuration appears `repetitions` times; positions are 0..n-1 in order.
  if ! python3 - "$work/../$name.json" "$name" <<'PY'
import json, sys, collections
doc = json.load(open(sys.argv[1]))
configs, runs, warnings = doc["configs"], doc["runs"], doc["warnings"]
assert isinstance(warnings, list)
assert configs[0]["label"] == "baseline" and configs[0]["factor"] == "" and configs[0]["level"] is None
for c in configs:
    assert {"label", "factor", "level"} <= c.keys(), c
labels = [c["label"] for c in configs]
assert len(set(labels)) == len(labels), labels
reps = doc["experiment"]["repetitions"]
counts = collections.Counter(r["config"] for r in runs)
assert set(counts) == set(labels) and all(n == reps for n in counts.values()), counts
assert [r["position"] for r in runs] == list(range(len(runs)))
for label in labels:
    assert sorted(r["repetition"] for r in runs if r["config"] == label) == list(range(reps))
# Custom commands (torch, LAMMPS): culprit's model cannot know their step time ("unknown").
custom = [c for c in configs if c["predicted_step_ms"] is None]
assert all(c["estimated_run_s"] is None for c in custom), custom
if sys.argv[2] in ("torch-ddp", "lammps-melt"):
    assert len(custom) == len(configs), configs
assert doc["unestimated_runs"] == sum(counts[c["label"]] for c in custom), doc
assert doc["estimated_s"] > 0 or len(custom) == len(configs)
PY
  then
    echo "FAIL $name: plan JSON does not have the contract's shape"; failures=$((failures + 1))
  fi
done

# A torch script's step time is its own: "unknown", not a model estimate.
grep -Eq "^estimated cost: [0-9]+ runs, unknown \(custom commands" "$work/../torch-ddp.txt" || {
  echo "FAIL: plan of torch-ddp does not say its cost is unknown"; failures=$((failures + 1)); }
grep -Eq "^  +0  baseline .* unknown +unknown " "$work/../torch-ddp.txt" || {
  echo "FAIL: plan of torch-ddp gives a step time"; failures=$((failures + 1)); }

# The same manifest plans the same way every time (seeded order).
"$bin" plan --json "$src/experiments/straggler-sweep.toml" >"$work/../again.json"
cmp -s "$work/../again.json" "$work/../straggler-sweep.json" || {
  echo "FAIL: two plans of the same manifest differ"; failures=$((failures + 1)); }

if [[ -n $(ls -A "$work") ]]; then
  echo "FAIL: culprit plan wrote files: $(ls -A "$work")"; failures=$((failures + 1))
fi
echo "plan_valid: $failures failure(s)"
[[ $failures -eq 0 ]]
