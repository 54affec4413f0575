#!/usr/bin/env bash
# Checks culprit-step's CUDA backend on a real GPU (one rank per GPU; at most 2 GPUs used).
#   tests/gpu/step_cuda.sh [BIN_DIR]
# Without BIN_DIR it configures and builds culprit-step in build-gpu/ first (a few minutes on
# 16 cores). Exit 0: all checks passed; 77: skipped (no GPU visible); anything else: failure.
# Total run time is well under 10 minutes.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP: no GPU visible (nvidia-smi -L failed); the cuda backend needs one"
  exit 77
fi
nvidia-smi -L
if [[ $# -ge 1 ]]; then
  BIN=$1
else
  cmake -S "$ROOT" -B "$ROOT/build-gpu" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCULPRIT_BUILD_TESTS=OFF -DCULPRIT_BUILD_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES=native \
    >/dev/null
  cmake --build "$ROOT/build-gpu" --target culprit-step -j "$(nproc)"
  BIN=$ROOT/build-gpu/bin
fi
WORK=$(mktemp -d)
GPUS=$(nvidia-smi -L | wc -l)
NP=$((GPUS >= 2 ? 2 : 1))
FLAGS=(--bind-to none)
[[ $(id -u) -eq 0 ]] && FLAGS+=(--allow-run-as-root)
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { sqlite3 -batch -noheader "$1" "$2"; }

run() { # name dtype overlap compute
  cat >"$WORK/$1.json" <<JSON
{"experiment": "gpu-check", "backend": "cuda", "ranks": $NP, "warmup_steps": 1, "steps": 5,
 "model": {"layers": 4, "microbatches": 2, "tokens": 2048, "hidden": 2048, "buckets": 2,
           "overlap": $3, "dtype": "$2", "compute": "$4", "flops_per_s": 1e13},
 "inject": {"delays": [{"rank": $((NP - 1)), "phase": "gemm.fwd", "layer": 1, "microbatch": 0,
                        "step_first": 2, "step_last": 3, "ms": 20, "mode": "gpu"}]}}
JSON
  timeout 120 mpirun "${FLAGS[@]}" -np "$NP" "$BIN/culprit-step" --config "$WORK/$1.json" \
    --out "$WORK/$1.db" || fail "$1: culprit-step failed"
  local db=$WORK/$1.db
  for r in $(seq 0 $((NP - 1))); do
    q "$db" "SELECT value FROM provenance WHERE rank=$r AND key='gradient_check'" |
      grep -q '^passed: 12 ' || fail "$1: rank $r gradient check"
  done
  [[ -n $(q "$db" "SELECT value FROM provenance WHERE key='nccl'") ]] || fail "$1: no NCCL version"
  [[ $(q "$db" "SELECT COUNT(*) FROM events WHERE kind='compute' AND device < 0") == 0 ]] ||
    fail "$1: compute events without a device"
  # The gpu-mode delay lands inside the targeted event on the last rank only.
  local grow
  grow=$(q "$db" "SELECT (SELECT MIN(end_ns-begin_ns) FROM events WHERE name='gemm.fwd' AND
      layer=1 AND microbatch=0 AND rank=$((NP - 1)) AND step BETWEEN 2 AND 3) -
      (SELECT MIN(end_ns-begin_ns) FROM events WHERE name='gemm.fwd' AND layer=1 AND
      microbatch=0 AND rank=$((NP - 1)) AND step IN (1, 4, 5))")
  awk -v g="$grow" 'BEGIN{exit !(g > 18e6 && g < 30e6)}' || fail "$1: delay growth $grow ns"
  # Device events are mapped onto the host clock: inside their step event.
  [[ $(q "$db" "SELECT COUNT(*) FROM events e JOIN events s ON s.rank=e.rank AND s.step=e.step
        AND s.kind='step' WHERE e.kind!='step' AND (e.begin_ns < s.begin_ns - 1000000 OR
        e.end_ns > s.end_ns + 1000000)") == 0 ]] || fail "$1: device events outside their step"
  echo "ok: $1 (delay growth $((grow / 1000)) us)"
}

run fp32-gemm fp32 false gemm
run bf16-overlap bf16 true gemm
run fp16-gemm fp16 false gemm
run fp32-sleep fp32 true sleep
# Overlap: some all-reduce on the comm stream overlaps a backward GEMM.
if ((NP > 1)); then
  [[ $(q "$WORK/bf16-overlap.db" "SELECT COUNT(*) FROM events c JOIN events g ON
      g.rank=c.rank AND g.step=c.step WHERE c.name='allreduce' AND g.name LIKE 'gemm.bwd.%'
      AND c.begin_ns < g.end_ns AND g.begin_ns < c.end_ns") -gt 0 ]] || fail "no overlap"
fi
# The next capture `culprit explain` prints for a culprit-step run: ncu filtered on one phase
# instance's NVTX range (run meta phase_ranges). One rank; the instance with the gpu-mode delay
# must show more kernels (the GEMM's and the delay's) than the same phase a step earlier.
[[ $(q "$WORK/fp32-gemm.db" "SELECT value FROM meta WHERE key='phase_ranges'") == nvtx ]] ||
  fail "culprit-step built without NVTX ranges (meta phase_ranges)"
if ! command -v ncu >/dev/null; then
  echo "skip: the NVTX capture (ncu not on PATH)"
else
  sed -e "s/\"ranks\": $NP/\"ranks\": 1/" -e 's/"rank": [0-9]*/"rank": 0/' "$WORK/fp32-gemm.json" \
    > "$WORK/ncu.json"
  capture() { # RANGE NAME: ncu on one phase instance's range, as `culprit explain` prints it
    mpirun "${FLAGS[@]}" -np 1 timeout 300 ncu --clock-control none --nvtx --nvtx-include "$1/" \
      --metrics gpu__time_duration.sum --csv --page details --log-file "$WORK/ncu-$2.csv" \
      "$BIN/culprit-step" --config "$WORK/ncu.json" --out "$WORK/ncu-$2.db" \
      > "$WORK/ncu-$2.log" 2>&1 || fail "ncu ($2): $(tail -5 "$WORK/ncu-$2.log")"
  }
  kernels() { # NAME: the kernels ncu profiled (distinct IDs of the details page)
    python3 -c 'import csv, sys
print(len({r[0] for r in csv.reader(open(sys.argv[1])) if r and r[0].isdigit()}))' "$WORK/ncu-$1.csv"
  }
  capture "gemm.fwd step 2 microbatch 0 layer 1" delayed
  if grep -qs ERR_NVGPUCTRPERM "$WORK/ncu-delayed.log" "$WORK/ncu-delayed.csv"; then
    echo "skip: the NVTX capture (ncu may not read the GPU's counters here: ERR_NVGPUCTRPERM)"
  else
    capture "gemm.fwd step 1 microbatch 0 layer 1" plain
    delayed=$(kernels delayed) plain=$(kernels plain)
    ((plain >= 1 && delayed > plain)) ||
      fail "ncu --nvtx-include: $delayed kernels in the delayed instance, $plain in the plain one"
    echo "ok: ncu on one phase instance's NVTX range ($delayed kernels delayed, $plain plain)"
  fi
fi
echo "PASS (ranks: $NP, run files in $WORK)"
