#!/usr/bin/env bash
# 64 simulated ranks with jitter and a skewed clock: a straggling GEMM on rank 63 is blamed on
# rank 63 (culprit-sim writes the run file; attribution never reads its injection truth).
# Usage: attribute_sim.sh BIN_DIR DATA_DIR WORK_DIR
set -euo pipefail
bin=$1 data=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
"$bin/culprit-sim" --config "$data/analysis/sim_64_rank63_fwd_layer5.json" --out "$work/run.db"
"$bin/culprit" attribute --run-file "$work/run.db" --json > "$work/attribution.json"
python3 "$here/check_culprit.py" 63 gemm.fwd 5 4 0.2 < "$work/attribution.json"
echo "ok: 64 simulated ranks, rank 63 gemm.fwd layer 5 blamed"
