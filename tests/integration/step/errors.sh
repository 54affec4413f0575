#!/usr/bin/env bash
# Boundary errors: missing arguments, a rank-count mismatch, and the cuda backend without a
# GPU (or not compiled in) all fail with a message saying what to do; never a silent fallback.
source "$(dirname "$0")/common.sh"

expect_failure() { # name, expected rc (or "nonzero"), pattern, command...
  local name=$1 want=$2 pattern=$3
  shift 3
  set +e
  "$@" >"$WORK/$name.txt" 2>&1
  local rc=$?
  set -e
  if [[ $want == nonzero ]]; then ((rc != 0)) || fail "$name: exited 0"; else
    ((rc == want)) || { cat "$WORK/$name.txt"; fail "$name: exit $rc, expected $want"; }; fi
  grep -q -- "$pattern" "$WORK/$name.txt" || { cat "$WORK/$name.txt"; fail "$name: no '$pattern'"; }
  echo "ok: $name (exit $rc)"
}

expect_failure no-args 2 "--config is required" env -u CULPRIT_CONFIG -u CULPRIT_RUN_FILE "$STEP"
cat >"$WORK/four.json" <<'JSON'
{"backend": "cpu", "ranks": 4, "steps": 1, "model": {"compute": "sleep"}}
JSON
expect_failure rank-mismatch nonzero "mpirun -np 4" mpi 1 "$STEP" --config "$WORK/four.json" \
  --out "$WORK/x.db"
cat >"$WORK/cuda.json" <<'JSON'
{"backend": "cuda", "ranks": 1, "warmup_steps": 0, "steps": 1,
 "model": {"layers": 2, "tokens": 128, "hidden": 128, "buckets": 1, "compute": "sleep"}}
JSON
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "skip: cuda-without-gpu (a GPU is visible here; tests/gpu/ covers the backend)"
else
  expect_failure cuda-without-gpu nonzero "rank 0: error: backend cuda: n" \
    mpi 1 "$STEP" --config "$WORK/cuda.json" --out "$WORK/cuda.db"
  [[ ! -e $WORK/cuda.db ]] || fail "cuda backend without a GPU wrote a run file"
fi
# Environment variables stand in for the flags.
cat >"$WORK/one.json" <<'JSON'
{"backend": "cpu", "ranks": 1, "warmup_steps": 0, "steps": 1,
 "model": {"layers": 2, "tokens": 128, "hidden": 128, "buckets": 1, "compute": "sleep"}}
JSON
CULPRIT_CONFIG="$WORK/one.json" CULPRIT_RUN_FILE="$WORK/env.db" mpi 1 "$STEP"
[[ -f $WORK/env.db ]] || fail "CULPRIT_CONFIG/CULPRIT_RUN_FILE were not used"
echo PASS
