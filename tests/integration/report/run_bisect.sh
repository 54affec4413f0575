#!/usr/bin/env bash
# Fixture of the bisection report test: `culprit bisect` on 8 simulated releases (r05 is bad).
# Usage: run_bisect.sh BIN_DIR MANIFEST WORK_DIR
set -euo pipefail
bin=$1 manifest=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$bin/culprit" bisect "$manifest" --db "$work/ref.db" --json > "$work/bisect.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["first_bad"]=="r05", d' "$work/bisect.json"
