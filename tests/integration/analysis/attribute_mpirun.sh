#!/usr/bin/env bash
# Real mpirun, 4 ranks, sleep compute: a 40 ms delay inside rank 2's layer-1 forward GEMM
# (microbatch 0) is blamed blind on rank 2, gemm.fwd, layer 1, with an excess within +-20 %.
# Usage: attribute_mpirun.sh BIN_DIR DATA_DIR WORK_DIR MPIRUN CONFIG
set -euo pipefail
bin=$1 data=$2 work=$3 mpirun=$4 config=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
"$mpirun" --allow-run-as-root --oversubscribe -np 4 "$bin/culprit-step" \
  --config "$data/analysis/$config" --out "$work/run.db"
"$bin/culprit" attribute --run-file "$work/run.db" --json > "$work/attribution.json"
python3 "$here/check_culprit.py" 2 gemm.fwd 1 40 0.2 < "$work/attribution.json"
# The text report names the cause and labels the waiting as the symptom.
"$bin/culprit" attribute --run-file "$work/run.db" > "$work/attribution.txt"
grep -q "culprit (first unexplained divergence): rank 2 gemm.fwd layer 1" "$work/attribution.txt"
grep -q "symptom" "$work/attribution.txt"
echo "ok: $config blamed on rank 2 gemm.fwd layer 1"
