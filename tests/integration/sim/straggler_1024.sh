#!/usr/bin/env bash
# A hidden straggler among 1,024 simulated ranks shows in the run file: after clock
# alignment, the delayed rank is the last to enter the first all-reduce of every steady step,
# and its delayed GEMM exceeds its peers' by about the injected 4 ms.
# Usage: straggler_1024.sh BIN_DIR DATA_DIR WORK_DIR
source "$(dirname "$0")/common.sh"
bin=$1 data=$2 work=$3
fresh_dir "$work"
"$bin/culprit-sim" --config "$data/straggler-1024.json" --out "$work/run.db"

ranks=$(sqlite3 "$work/run.db" "SELECT count(DISTINCT rank) FROM events")
[ "$ranks" = 1024 ] || fail "expected 1024 ranks, found $ranks"

last_arrivers=$(sqlite3 -batch "$work/run.db" <<'SQL'
WITH arrival AS (
  SELECT e.step, e.rank,
         e.begin_ns + c.offset_ns + c.drift_ppm * 1e-6 * (e.begin_ns - c.ref_ns) AS aligned_ns
  FROM events e JOIN clock_models c USING (rank)
  WHERE e.name = 'allreduce' AND e.seq = 0
    AND e.step >= (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'warmup_steps')),
ranked AS (
  SELECT step, rank, ROW_NUMBER() OVER (PARTITION BY step ORDER BY aligned_ns DESC) AS k
  FROM arrival)
SELECT count(*) || ' steps, last: ' || group_concat(DISTINCT rank) FROM ranked WHERE k = 1;
SQL
)
[ "$last_arrivers" = "10 steps, last: 737" ] || fail "last arrivers: $last_arrivers"

excess_ms=$(sqlite3 -batch "$work/run.db" <<'SQL'
SELECT printf('%.2f',
  (SELECT avg(end_ns - begin_ns) FROM events
   WHERE rank = 737 AND name = 'gemm.bwd.dgrad' AND layer = 2) / 1e6 -
  (SELECT avg(end_ns - begin_ns) FROM events
   WHERE rank <> 737 AND name = 'gemm.bwd.dgrad' AND layer = 2) / 1e6);
SQL
)
awk -v x="$excess_ms" 'BEGIN { exit !(x > 3.7 && x < 4.3) }' ||
  fail "rank 737's gemm.bwd.dgrad layer 2 exceeds its peers by $excess_ms ms, expected ~4"

# Rank 1000's raw clock runs 300 ms behind (injected skew, plus up to 1 ms of seeded offset);
# its clock model must undo that.
offset_ms=$(sqlite3 "$work/run.db" "SELECT offset_ns / 1e6 FROM clock_models WHERE rank = 1000")
awk -v x="$offset_ms" 'BEGIN { exit !(x > 298 && x < 302) }' ||
  fail "rank 1000's clock model offset is $offset_ms ms, expected about +300"
# Blind attribution (reads only events and clock models) must name the hidden straggler.
"$bin/culprit" attribute --run-file "$work/run.db" --json > "$work/attribution.json"
python3 "$(dirname "$0")/../analysis/check_culprit.py" 737 gemm.bwd.dgrad 2 4 0.2 \
  < "$work/attribution.json" || fail "attribution did not blame rank 737 gemm.bwd.dgrad layer 2"
echo "PASS: rank 737 is the last arriver in every steady step, excess $excess_ms ms, and blamed"
