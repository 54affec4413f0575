#!/usr/bin/env bash
# `culprit validate` on a small simulated sweep (16 ranks, a skewed clock on rank 5): every
# injected delay is blamed on its rank and phase and no control is blamed; then `culprit explain`
# on the same store reconciles exactly and names the injected straggler as the first divergence.
# Usage: validate_explain_sim.sh BIN_DIR DATA_DIR WORK_DIR
set -euo pipefail
bin=$1 data=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$bin/culprit" validate "$data/analysis/validate-sim-16.toml" --db "$work/v.db" --json > validate.json
"$bin/culprit" validate "$data/analysis/validate-sim-16.toml" --db "$work/v.db" > validate.txt
grep -q "accuracy (rank and phase): 6/6 = 100.0 %" validate.txt
"$bin/culprit" explain --db "$work/v.db" --json > explain.json
python3 - <<'PY'
import json
v = json.load(open("validate.json"))
assert len(v["cases"]) == 6 and v["accuracy"] == 1.0, v
assert v["controls"] == 3 and v["false_positives"] == 0, v
for c in v["cases"]:
    assert c["hit"] and c["blamed"]["rank"] == c["injected"]["rank"], c
    assert abs(c["blamed"]["ms"] - c["injected"]["ms"]) <= 0.2 * c["injected"]["ms"], c
e = json.load(open("explain.json"))
assert len(e["explanations"]) == 2, e
for x in e["explanations"]:
    cents = round(x["unclassified_ms"] * 100) + sum(round(c["ms"] * 100) for c in x["components"])
    assert cents == round(x["delta_ms"] * 100), x
    assert round(x["delta_ms"] * 100) == round((x["candidate_median_ms"] - x["baseline_median_ms"]) * 100), x
    first = [c for c in x["components"] if c["first_divergence"]]
    assert len(first) == 1 and first[0]["rank"] == x["culprit"]["rank"], x
    assert x["culprit"]["phase"] in ("gemm.bwd.wgrad", "optimizer"), x
print("ok: validate 6/6, explain reconciles")
PY
"$bin/culprit" explain --db "$work/v.db" | grep -q "(first divergence)"
