#!/usr/bin/env bash
# The Python module end to end: examples/torch/ddp_train.py on 2 ranks under `culprit validate`
# (real mpirun, real torch, DDP over gloo on CPU), delays injected blind into its regions
# (tests/data/python/ddp-validate.toml). Checks:
#   - validate: every delay blamed on its rank and region (>= 95 %), no control blamed;
#   - attribute of a run with 30 ms in rank 1's layer2: culprit rank 1 layer2, excess within
#     25 % of 30 ms in the median over steps;
#   - explain of that configuration: culprit rank 1 layer2, components + unclassified = delta
#     exactly (to the cent of a millisecond, as printed).
# Usage: ddp_validate.sh BIN_DIR WORK_DIR TORCH_PYTHON SOURCE_DIR
set -euo pipefail
bin=$1 work=$2 py=$3 src=$4
rm -rf "$work" && mkdir -p "$work"
# The manifest's command is `python3 examples/...`: run from the source tree, with the python3
# that has torch first on PATH.
cd "$src"
export PATH="$(dirname "$py"):$PATH"
rc=0
"$bin/culprit" validate tests/data/python/ddp-validate.toml --db "$work/v.db" --json \
  > "$work/validate.json" 2> "$work/validate.err" || rc=$?
if ((rc != 0)); then
  tail -30 "$work/validate.err"; echo "FAIL: culprit validate exited $rc"; exit 1
fi
"$bin/culprit" validate tests/data/python/ddp-validate.toml --db "$work/v.db" > "$work/validate.txt"
"$bin/culprit" explain --db "$work/v.db" --json > "$work/explain.json"
run=$(sqlite3 "$work/v.db" "SELECT r.id FROM runs r JOIN configurations c ON c.id = r.config_id
  WHERE c.label LIKE 'delay=rank1:layer2:%' AND r.status = 'ok' ORDER BY r.id LIMIT 1")
"$bin/culprit" attribute --db "$work/v.db" "$run" --json > "$work/attribute.json"
"$py" - "$work" <<'PY'
import json, sys
work = sys.argv[1]
v = json.load(open(work + "/validate.json"))
print(open(work + "/validate.txt").read())
cases = v["cases"]
assert len(cases) == 6, cases
assert v["accuracy"] >= 0.95, v
assert v["controls"] == 3 and v["false_positives"] == 0, v
for c in cases:
    assert c["hit"], c
a = json.load(open(work + "/attribute.json"))
s = a["summary"]
c = s["culprit"]
assert c is not None and c["rank"] == 1 and c["phase"] == "layer2", s
assert abs(c["excess_ms"] - 30) <= 0.25 * 30, c
for step in a["steps"]:
    total = step["unclassified_ms"] + sum(k["ms"] for k in step["components"])
    assert abs(total - step["time_ms"]) < 1e-6, step
e = json.load(open(work + "/explain.json"))
found = [x for x in e["explanations"] if x["candidate"].startswith("delay=rank1:layer2")]
assert len(found) == 1, e
x = found[0]
cents = round(x["unclassified_ms"] * 100) + sum(round(k["ms"] * 100) for k in x["components"])
assert cents == round(x["delta_ms"] * 100), x
assert round(x["delta_ms"] * 100) == round((x["candidate_median_ms"] - x["baseline_median_ms"]) * 100), x
assert x["culprit"]["rank"] == 1 and x["culprit"]["phase"] == "layer2", x
assert abs(x["culprit"]["excess_ms"] - 30) <= 0.25 * 30, x
# A CPU run: GPU counters do not apply, and explain says so instead of printing an ncu command.
assert x["why"] is None and x["next_capture"] is None and x["telemetry_capture"] is None, x
assert x["why_not_applicable"].startswith("rank 1 ran layer2 on the CPU (the configuration's "
                                          "backend is cpu)"), x["why_not_applicable"]
print("ok: validate %d/%d, 0/3 controls blamed; run %d blamed on rank 1 layer2 (%+.2f ms); "
      "explain delta %.2f ms reconciled" % (sum(k["hit"] for k in cases), len(cases),
                                             s["run"], c["excess_ms"],
                                             x["delta_ms"]))
PY
