#!/usr/bin/env bash
# Issue 15 item 3: a straggler among 2 (and 3) ranks must be found. Simulated sweeps
# (tests/data/analysis/small-world-{2,3}.toml: noisy phases, one rank slow in every forward
# GEMM, another in one backward GEMM) scored by `culprit validate`: >= 5/6 at each size, no
# control blamed. Before the fix the every-GEMM straggler was never found (3/6): at 2 ranks its
# own deviations made up the whole noise pool.
# Usage: small_world_sim.sh BIN_DIR DATA_DIR WORK_DIR
set -euo pipefail
bin=$1 data=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work"
for n in 2 3; do
  "$bin/culprit" validate "$data/analysis/small-world-$n.toml" --db "$work/s$n.db" --json \
    > "validate-$n.json"
  python3 - "$n" "validate-$n.json" <<'PY'
import json, sys
n, v = sys.argv[1], json.load(open(sys.argv[2]))
hits = sum(c["hit"] for c in v["cases"])
assert len(v["cases"]) == 6 and hits >= 5, (n, [(c["injected"], c["blamed"]) for c in v["cases"]])
assert v["controls"] == 3 and v["false_positives"] == 0, v
every = [c for c in v["cases"] if c["injected"]["phase"] == "gemm.fwd"]
assert all(c["blamed"]["rank"] == int(n) - 1 for c in every if c["hit"]), every
print("ok: %s ranks: validate %d/6, 0/3 controls blamed" % (n, hits))
PY
done
