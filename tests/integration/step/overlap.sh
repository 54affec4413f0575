#!/usr/bin/env bash
# 2 ranks, real GEMMs, overlap on vs off: with overlap the bucket all-reduces run during the
# backward GEMMs of the same rank; without it they start after backward. Gradients are checked
# after every all-reduce inside culprit-step (a wrong sum fails the run). GEMMs are sized so
# that the backward work left after bucket 0 is issued lasts tens of ms: with both cores busy
# computing, the communication thread must get scheduled within that window to overlap.
source "$(dirname "$0")/common.sh"

run() { # overlap
  cat >"$WORK/config_$1.json" <<JSON
{"experiment": "step-overlap", "backend": "cpu", "ranks": 2, "warmup_steps": 1, "steps": 4,
 "model": {"layers": 4, "microbatches": 2, "tokens": 512, "hidden": 512, "buckets": 2,
           "overlap": $1, "dtype": "fp32", "compute": "gemm"}}
JSON
  mpi 2 "$STEP" --config "$WORK/config_$1.json" --out "$WORK/$1.db"
}
run true
run false

INTERSECT="SELECT COUNT(*) FROM events c JOIN events g ON g.rank = c.rank AND g.step = c.step
  WHERE c.name = 'allreduce' AND g.name LIKE 'gemm.bwd.%'
  AND c.begin_ns < g.end_ns AND g.begin_ns < c.end_ns"
for mode in true false; do
  DB="$WORK/$mode.db"
  for r in 0 1; do
    q "$DB" "SELECT value FROM provenance WHERE rank=$r AND key='gradient_check'" |
      grep -q "^passed: 10 all-reduced" || fail "overlap=$mode: rank $r gradient check missing"
  done
  check_between "overlap=$mode all-reduces" \
    "$(q "$DB" "SELECT COUNT(*) FROM events WHERE name='allreduce'")" 20 20
done
on=$(q "$WORK/true.db" "$INTERSECT")
off=$(q "$WORK/false.db" "$INTERSECT")
check_between "overlap=true: all-reduce/backward-GEMM intersections" "$on" 1 100000
check_between "overlap=false: all-reduce/backward-GEMM intersections" "$off" 0 0
# With overlap, bucket 0 (last layers) arrives before the last backward GEMM of its step begins
# (not in every step on a loaded machine: the communication thread may be scheduled late);
# without overlap, never.
EARLY="SELECT COUNT(*) FROM events c JOIN events g ON g.rank = c.rank
  AND g.step = c.step WHERE c.name = 'allreduce' AND c.seq = 0 AND g.name = 'gemm.bwd.wgrad'
  AND g.layer = 0 AND g.microbatch = 1 AND c.begin_ns < g.begin_ns"
check_between "overlap=true: rank-steps with bucket 0 before the last wgrad" \
  "$(q "$WORK/true.db" "$EARLY")" 1 10
check_between "overlap=false: rank-steps with bucket 0 before the last wgrad" \
  "$(q "$WORK/false.db" "$EARLY")" 0 0
echo PASS
