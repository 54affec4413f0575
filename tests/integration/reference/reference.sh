#!/usr/bin/env bash
# The reference scenario end to end: `culprit run` on experiments/reference-64.toml (64 simulated
# ranks, 6 + 6 runs), then `culprit compare` and `culprit explain`, JSON checked by
# check_reference.py and the text reports by grep.
# Usage: reference.sh BIN_DIR EXPERIMENT_TOML WORK_DIR
set -euo pipefail
bin=$1 experiment=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$bin/culprit" run "$experiment" --db "$work/ref.db" > run.txt
"$bin/culprit" compare --db "$work/ref.db" --json > compare.json
"$bin/culprit" explain --db "$work/ref.db" --json > explain.json
"$bin/culprit" explain --db "$work/ref.db" > explain.txt
python3 "$here/check_reference.py" compare.json explain.json
# The text names the cause, calls the waiting a symptom and the dashboard figure no locator.
grep -q "(first divergence)" explain.txt
grep -q "^cause: rank 63 gemm.bwd.wgrad layer 0 microbatch 3" explain.txt
grep -q "^symptom: 63 ranks waited .* - they are not the cause" explain.txt
grep -q "^sampled activity (a 1 s dashboard): baseline .*, candidate .* - it does not locate" \
  explain.txt
cat explain.txt
# The store is ~200 MB of events: keep it only when something failed.
rm -rf "$work/ref.db" "$work/ref.db.runs"
