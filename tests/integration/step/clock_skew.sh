#!/usr/bin/env bash
# 4 ranks, sleep compute: +500 ms offset and 100 ppm drift injected on rank 2's raw clock are
# recovered by the clock model within its stated uncertainty, and aligned timestamps of rank 2
# agree with rank 0's.
source "$(dirname "$0")/common.sh"

cat >"$WORK/config.json" <<'JSON'
{"experiment": "step-skew", "backend": "cpu", "ranks": 4, "warmup_steps": 1, "steps": 9,
 "model": {"layers": 4, "microbatches": 2, "tokens": 256, "hidden": 256, "buckets": 2,
           "overlap": false, "compute": "sleep", "flops_per_s": 4e9},
 "inject": {"clock_skews": [{"rank": 2, "offset_ms": 500, "drift_ppm": 100}]}}
JSON
DB="$WORK/run.db"
mpi 4 "$STEP" --config "$WORK/config.json" --out "$DB"

read -r offset drift u ref < <(q "$DB" "SELECT offset_ns, drift_ppm, uncertainty_ns, ref_ns
                                        FROM clock_models WHERE rank=2" | tr '|' ' ')
span=$(q "$DB" "SELECT MAX(end_ns) - $ref FROM events WHERE rank=2")
echo "rank 2: offset ${offset} ns, drift ${drift} ppm, uncertainty ${u} ns over ${span} ns"
check_between "rank 2 uncertainty (ns)" "$u" 0 5000000
# The offset at ref_ns is -500 ms minus the drift accumulated since the skew was set (< 1 s).
check_between "rank 2 offset + 500 ms (ns)" "$(awk -v o="$offset" 'BEGIN{print o + 5e8}')" \
  "$(awk -v u="$u" 'BEGIN{print -u - 200000}')" "$(awk -v u="$u" 'BEGIN{print u + 1000}')"
# Each end of the span is known within u, so the slope within 2u/span (plus a little).
tol=$(awk -v u="$u" -v s="$span" 'BEGIN{print 2 * u / s * 1e6 + 2}')
check_between "rank 2 drift + 100 ppm" "$(awk -v d="$drift" 'BEGIN{print d + 100}')" "-$tol" "$tol"
# Ranks on one host share the true clock: their recovered offsets are 0 within uncertainty.
for r in 1 3; do
  read -r o_r u_r < <(q "$DB" "SELECT offset_ns, uncertainty_ns FROM clock_models WHERE rank=$r" |
    tr '|' ' ')
  check_between "rank $r offset (ns)" "$o_r" "-$(awk -v u="$u_r" 'BEGIN{print u + 1000}')" \
    "$(awk -v u="$u_r" 'BEGIN{print u + 1000}')"
done

# Aligned all-reduce completions of rank 2 and rank 0 are close (raw ones are 500 ms apart)...
ALIGNED="WITH x AS (SELECT e.rank, e.step, e.seq, $ALIGNED_BEGIN AS b, $ALIGNED_END AS f
                    FROM events e JOIN clock_models c ON c.rank = e.rank
                    WHERE e.name = 'allreduce')"
diff_ms=$(q "$DB" "$ALIGNED SELECT ABS(r2.f - r0.f) / 1e6 FROM x r2 JOIN x r0
                   ON r0.step = r2.step AND r0.seq = r2.seq AND r0.rank = 0 WHERE r2.rank = 2" |
  median)
check_between "median |aligned completion rank 2 - rank 0| (ms)" "$diff_ms" 0 \
  "$(awk -v u="$u" 'BEGIN{print u / 1e6 + 3}')"
# ...and causal: no rank's all-reduce completes before the last rank arrived.
violations=$(q "$DB" "$ALIGNED SELECT COUNT(*) FROM x me JOIN
  (SELECT step, seq, MAX(b) AS last FROM x GROUP BY step, seq) l ON l.step = me.step AND
  l.seq = me.seq WHERE me.rank = 2 AND me.f < l.last - ($u + 100000)")
check_between "rank 2 completions before the last arrival" "$violations" 0 0
echo PASS
