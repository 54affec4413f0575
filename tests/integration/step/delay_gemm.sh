#!/usr/bin/env bash
# 2 ranks, real GEMMs: a 40 ms spin delay on rank 1's layer-1 forward GEMM of microbatch 0
# (steps 2..8) makes that event ~40 ms longer on rank 1 only, and rank 0's next all-reduce ends
# about as much later, rank 0 waiting in it for rank 1. Also checks the run-file contract
# (tables, meta, counts).
source "$(dirname "$0")/common.sh"

cat >"$WORK/config.json" <<'JSON'
{"experiment": "step-delay", "config_label": "delay=rank1:gemm.fwd:40ms", "seed": 3,
 "backend": "cpu", "ranks": 2, "warmup_steps": 1, "steps": 13,
 "model": {"layers": 3, "microbatches": 2, "tokens": 128, "hidden": 192, "buckets": 2,
           "overlap": false, "dtype": "fp32", "compute": "gemm"},
 "inject": {"delays": [{"rank": 1, "phase": "gemm.fwd", "layer": 1, "microbatch": 0,
                        "step_first": 2, "step_last": 8, "ms": 40, "mode": "spin"}]}}
JSON
DB="$WORK/run.db"
mpi 2 "$STEP" --config "$WORK/config.json" --out "$DB"
[[ -f $DB ]] || fail "no run file at $DB"
[[ -z $(ls "$WORK" | grep '\.tmp\.' || true) ]] || fail "temporary run file left behind"

# Contract: meta keys, config echo verbatim, one step event per rank and step, all phases.
for key in format_version backend ranks warmup_steps steps model_flops_per_step \
  parameter_bytes started_at finished_at source; do
  [[ -n $(q "$DB" "SELECT value FROM meta WHERE key='$key'") ]] || fail "meta.$key missing"
done
[[ $(q "$DB" "SELECT value FROM meta WHERE key='source'") == culprit-step ]] || fail "source"
# unix_offset_ns puts rank 0's clock on Unix time: its first event lands between started_at and
# finished_at (whole seconds).
[[ $(q "$DB" "SELECT (SELECT CAST(value AS INTEGER) FROM meta WHERE key='unix_offset_ns') / 1e9
  + min(begin_ns) / 1e9 BETWEEN
  (SELECT CAST(strftime('%s', value) AS INTEGER) FROM meta WHERE key='started_at') AND
  (SELECT strftime('%s', value) + 1 FROM meta WHERE key='finished_at')
  FROM events WHERE rank = 0") == 1 ]] || fail "meta.unix_offset_ns does not place the run"
[[ $(q "$DB" "SELECT value FROM meta WHERE key='ranks'") == 2 ]] || fail "meta.ranks"
q "$DB" "SELECT json FROM config_echo WHERE id=1" | grep -q '"step_last": 8' || fail "config echo"
check_between "step events" "$(q "$DB" "SELECT count(*) FROM events WHERE kind='step'")" 28 28
# Per step and rank: 2 microbatches x 3 layers x 3 GEMMs + 2 all-reduces + optimizer + step.
check_between "events" "$(q "$DB" "SELECT count(*) FROM events")" $((2 * 14 * 22)) $((2 * 14 * 22))
check_between "clock models" "$(q "$DB" "SELECT count(*) FROM clock_models")" 2 2
for key in command_line binary_hash mpi_library ranks_per_core yield_mode; do
  [[ -n $(q "$DB" "SELECT value FROM provenance WHERE rank=-1 AND key='$key'") ]] ||
    fail "provenance.$key missing"
done
[[ $(q "$DB" "SELECT count(*) FROM provenance WHERE key='host'") == 2 ]] || fail "hosts"
[[ $(q "$DB" "SELECT count(*) FROM events WHERE name LIKE '%inject%'") == 0 ]] ||
  fail "events mention the injection"

INJECTED="step BETWEEN 2 AND 8"
CLEAN="step NOT BETWEEN 2 AND 8 AND step >= 1"
# On a shared machine preemption only ever adds time to an event, so the shortest instance is
# the robust estimate of a phase's own duration.
target_ms() { # rank, step filter
  q "$DB" "SELECT MIN(end_ns - begin_ns) / 1e6 FROM events WHERE name='gemm.fwd' AND layer=1
           AND microbatch=0 AND rank=$1 AND $2"
}
r1_growth=$(awk -v a="$(target_ms 1 "$INJECTED")" -v b="$(target_ms 1 "$CLEAN")" 'BEGIN{print a-b}')
r0_growth=$(awk -v a="$(target_ms 0 "$INJECTED")" -v b="$(target_ms 0 "$CLEAN")" 'BEGIN{print a-b}')
check_between "rank 1 targeted GEMM growth (ms)" "$r1_growth" 35 60
check_between "rank 0 same GEMM growth (ms)" "$r0_growth" -10 10
others=$(q "$DB" "SELECT (end_ns - begin_ns) / 1e6 FROM events WHERE rank=1 AND kind='compute'
                  AND NOT (name='gemm.fwd' AND layer=1 AND microbatch=0) AND $INJECTED" | median)
check_between "rank 1 other phases in injected steps (median ms)" "$others" 0 20

# The delay reaches rank 0 at the next all-reduce (seq 0), on aligned clocks: rank 0's wait there
# (last arrival minus its own) grows. By the delay less rank 0's own lateness, which a busy
# machine makes vary from step to step (a CI run: 17 ms of the 40 in the median step), so only
# bounds well clear of the clean steps' noise here.
wait_ms() {
  q "$DB" "WITH a AS (SELECT e.rank, e.step, $ALIGNED_BEGIN AS t FROM events e
                      JOIN clock_models c ON c.rank = e.rank
                      WHERE e.name='allreduce' AND e.seq=0 AND $1)
           SELECT (MAX(t) - MAX(CASE WHEN rank=0 THEN t END)) / 1e6 FROM a GROUP BY step" | median
}
wait_growth=$(awk -v a="$(wait_ms "e.step BETWEEN 2 AND 8")" \
  -v b="$(wait_ms "e.step NOT BETWEEN 2 AND 8 AND e.step >= 1")" 'BEGIN{print a-b}')
check_between "rank 0 wait growth at all-reduce seq 0 (ms)" "$wait_growth" 5 80
# Rank 0 leaves that all-reduce as soon as rank 1 arrives: its end minus rank 1's begin. Rank 0
# preempted meanwhile, or arriving last itself, only makes it longer, so the shortest over the
# injected steps: the aligned clocks agree, and rank 0 was held there by rank 1.
release_ms=$(q "$DB" "WITH a AS (SELECT e.rank, e.step, $ALIGNED_BEGIN AS b, $ALIGNED_END AS en
                                 FROM events e JOIN clock_models c ON c.rank = e.rank
                                 WHERE e.name = 'allreduce' AND e.seq = 0 AND e.$INJECTED)
                      SELECT MIN(d) FROM (SELECT (MAX(CASE WHEN rank = 0 THEN en END)
                        - MAX(CASE WHEN rank = 1 THEN b END)) / 1e6 AS d FROM a GROUP BY step)")
check_between "rank 0 all-reduce seq 0 end after rank 1 arrives (shortest, ms)" "$release_ms" -1 2
echo PASS
