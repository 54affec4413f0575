#!/usr/bin/env bash
# Fixture of the report tests: the small reference scenario (16 simulated ranks, 6 + 6 runs).
# Usage: run_reference.sh BIN_DIR MANIFEST WORK_DIR
set -euo pipefail
bin=$1 manifest=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$bin/culprit" run "$manifest" --db "$work/ref.db" > "$work/run.txt"
