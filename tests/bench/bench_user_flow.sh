#!/usr/bin/env bash
# Issue 17's user flow through the CLI: tests/data/bench/scale-16384.toml (16,384 simulated ranks
# x 50 steps, a baseline and one 30 ms delay level, one run each) stored with `culprit run`, then
# `culprit explain`; each timed by /usr/bin/time -v (wall, user, system, peak RSS; for `run`
# the peak is the largest of culprit and its culprit-sim children). Prints the figures and the
# explanation's cause line; asserts nothing timed (the machine is shared), but exits 1 when the
# cause is not the injected one (EXPECT, default 'rank 16383 gemm.bwd.wgrad layer 0'). Target: run + explain <= 30 s,
# <= 3 GiB.
#   tests/bench/bench_user_flow.sh [BUILD_DIR] [MANIFEST]
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
manifest=${2:-$root/tests/data/bench/scale-16384.toml}
bin=$(cd "$build/bin" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bench_user_flow.XXXXXX")
trap 'rm -rf "$work"' EXIT

figures() {  # NAME TIME_FILE
  awk -v name="$1" -F': ' '
    /User time/ {u = $2} /System time/ {s = $2} /Maximum resident/ {m = $2}
    /Elapsed \(wall clock\)/ {n = split($2, p, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + p[i]}
    END {printf "bench_user_flow: %-8s %7.2f s wall %7.2f s user %6.2f s sys %6.0f MiB peak\n",
         name, w, u, s, m / 1024}' "$2"
}

/usr/bin/time -v -o "$work/run.time" "$bin/culprit" run "$manifest" --db "$work/flow.db" \
  > "$work/run.txt" 2>&1
/usr/bin/time -v -o "$work/explain.time" "$bin/culprit" explain --db "$work/flow.db" \
  > "$work/explain.txt" 2>&1
figures run "$work/run.time"
figures explain "$work/explain.time"
grep '^cause:' "$work/explain.txt" || true
grep -q "^cause: ${EXPECT:-rank 16383 gemm.bwd.wgrad layer 0}" "$work/explain.txt" ||
  { cat "$work/explain.txt"; exit 1; }
