#!/usr/bin/env bash
# `culprit reduce` on the reference scenario: a baseline and a candidate run of
# experiments/reference-64.toml (6 + 6 runs) are reduced to a manifest; the reduced experiment,
# run at 64 ranks and scaled down to 8, must reproduce the baseline configuration's median
# (within 3 %) and its shift (within 10 %), and its control must be equivalent to the baseline
# (check_reduce.py).
# Usage: reference.sh BIN_DIR EXPERIMENT_TOML WORK_DIR
set -euo pipefail
bin=$1 experiment=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$bin/culprit" run "$experiment" --db ref.db > run.txt
"$bin/culprit" runs --db ref.db --json > runs.json
"$bin/culprit" compare --db ref.db --json > ref.compare.json
read -r base cand < <(python3 - <<'PY'
import json
runs = json.load(open("runs.json"))
runs = runs["runs"] if isinstance(runs, dict) else runs
ok = [r for r in runs if r["status"] == "ok"]
base = [r["id"] for r in ok if "v1.5" not in r["config"]][0]
cand = [r["id"] for r in ok if "v1.5" in r["config"]][0]
print(base, cand)
PY
)
"$bin/culprit" reduce --db ref.db "$base" "$cand" -o repro.toml > reduce.txt
"$bin/culprit" reduce --db ref.db "$base" "$cand" --ranks 8 --json -o repro8.toml > reduce8.json
cat reduce.txt
grep -q "^  cause-1: straggler: rank 63 gemm.bwd.wgrad layer 0" reduce.txt
# The manifest is ordinary: culprit plan accepts it, and it says where its numbers came from.
"$bin/culprit" plan repro.toml > plan.txt
grep -q "^# Calibration: run $base, 64 ranks x 40 steady steps" repro.toml
grep -q "^# Scaled down from 64 to 8 ranks" repro8.toml

for m in repro repro8; do
  "$bin/culprit" run $m.toml --db $m.db > $m.run.txt
  "$bin/culprit" compare --db $m.db --json > $m.compare.json
  "$bin/culprit" explain --db $m.db > $m.explain.txt
  "$bin/culprit" runs --db $m.db --json > $m.runs.json
done
cat repro.explain.txt
grep -q "^reproduction of the original +" repro.explain.txt
grep -q "^  version=cause-1: +.* reproduces .* % of the original" repro.explain.txt
grep -q "^  version=control: .* (injects nothing: expected 0 %)" repro.explain.txt
python3 "$here/check_reduce.py" ref.compare.json repro.compare.json repro8.compare.json reduce8.json
rm -rf ref.db ref.db.runs repro.db repro.db.runs repro8.db repro8.db.runs
