#!/usr/bin/env bash
# 2 ranks, overlap on vs off: with overlap the bucket all-reduces run during the backward GEMMs
# of the same rank; without it they start after backward. Gradients are checked after every
# all-reduce inside culprit-step (a wrong sum fails the run).
#
# The timing checks run with compute = "sleep": on this 2-core machine two ranks doing real BLAS
# leave no core for a communication thread, so "during" would only mean a time slice, and the
# woken thread usually preempts its own rank's GEMM before that GEMM reads its clock (CI saw 0
# intersections in a whole run). Sleeping GEMMs leave the cores free, so the overlap is real and
# its absence with overlap = false is a statement about the schedule, not the scheduler. A third
# run does real GEMMs with overlap on: the gradient check then proves the communication thread's
# buffers are not torn by the BLAS running beside it.
source "$(dirname "$0")/common.sh"

run() { # name overlap compute
  cat >"$WORK/config_$1.json" <<JSON
{"experiment": "step-overlap", "backend": "cpu", "ranks": 2, "warmup_steps": 1, "steps": 4,
 "model": {"layers": 4, "microbatches": 2, "tokens": 512, "hidden": 512, "buckets": 2,
           "overlap": $2, "dtype": "fp32", "compute": "$3", "flops_per_s": 1e11}}
JSON
  mpi 2 "$STEP" --config "$WORK/config_$1.json" --out "$WORK/$1.db"
}
run true true sleep
run false false sleep
run gemm true gemm

for mode in true false gemm; do
  DB="$WORK/$mode.db"
  for r in 0 1; do
    q "$DB" "SELECT value FROM provenance WHERE rank=$r AND key='gradient_check'" |
      grep -q "^passed: 10 all-reduced" || fail "$mode: rank $r gradient check missing"
  done
  check_between "$mode: all-reduces" \
    "$(q "$DB" "SELECT COUNT(*) FROM events WHERE name='allreduce'")" 20 20
done

# Rank-steps (2 ranks x 5 steps) in which bucket 0's all-reduce intersects a backward GEMM. Half
# suffice: beside a busy core a woken communication thread may still finish before its rank's
# next GEMM reads the clock (9 of 10 seen); a thread that never ran concurrently gives 0.
INTERSECT="SELECT COUNT(DISTINCT c.rank || '/' || c.step) FROM events c JOIN events g
  ON g.rank = c.rank AND g.step = c.step
  WHERE c.name = 'allreduce' AND c.seq = 0 AND g.name LIKE 'gemm.bwd.%'
  AND c.begin_ns < g.end_ns AND g.begin_ns < c.end_ns"
check_between "overlap=true: rank-steps with bucket 0 during a backward GEMM" \
  "$(q "$WORK/true.db" "$INTERSECT")" 5 10
check_between "overlap=false: rank-steps with bucket 0 during a backward GEMM" \
  "$(q "$WORK/false.db" "$INTERSECT")" 0 0
# With overlap, bucket 0 (last layers) begins before the last backward GEMM of its step;
# without overlap, never.
EARLY="SELECT COUNT(*) FROM events c JOIN events g ON g.rank = c.rank
  AND g.step = c.step WHERE c.name = 'allreduce' AND c.seq = 0 AND g.name = 'gemm.bwd.wgrad'
  AND g.layer = 0 AND g.microbatch = 1 AND c.begin_ns < g.begin_ns"
check_between "overlap=true: rank-steps with bucket 0 before the last wgrad" \
  "$(q "$WORK/true.db" "$EARLY")" 5 10
check_between "overlap=false: rank-steps with bucket 0 before the last wgrad" \
  "$(q "$WORK/false.db" "$EARLY")" 0 0
echo PASS
