#!/usr/bin/env bash
# Issue 36's property test, as a benchmark (too long for CI): simulated runs of random shapes
# (layers 1-8, microbatches 1-4, steps 10-100, then ranks 1..16,384; seeded) each stored by
# `culprit run` into one store, then checked: the run is ok, every event the simulator wrote
# landed (sum of run_event_packs.events against the shape's count, read with sqlite3), and
# integrity_check is ok. Prints one line per shape with wall time and peak memory; exits 1 on
# the first shape that fails (its manifest and stderr are kept).
#   tests/bench/bench_store_shapes.sh [BUILD_DIR] [SHAPES] [SEED] [MAX_EVENTS]
# MAX_EVENTS (default 40e6: about a minute a shape on a loaded 2-core machine) sizes the shapes
# to a time budget: the ranks are drawn up to what keeps the run within it (16,384 where the
# other dimensions allow), so every shape drawn is stored, none skipped.
set -euo pipefail
build=${1:-build}
shapes=${2:-12}
seed=${3:-36}
max_events=${4:-40000000}
bin=$(cd "$build/bin" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bench_store_shapes.XXXXXX")
keep=0
trap '[ "$keep" = 1 ] || rm -rf "$work"' EXIT
RANDOM=$seed
failed=0
stored_shapes=0
for i in $(seq 1 "$shapes"); do
  layers=$(( RANDOM % 8 + 1 )) microbatches=$(( RANDOM % 4 + 1 )) steps=$(( RANDOM % 91 + 10 ))
  # Two gradient buckets, one where there is one layer (the manifest wants buckets <= layers).
  buckets=$(( layers < 2 ? layers : 2 ))
  # culprit-sim's events per rank and step: 3 GEMMs per layer and microbatch, an all-reduce per
  # bucket, the optimizer and the step.
  per_rank=$(( (steps + 2) * (3 * layers * microbatches + buckets + 2) ))
  cap=$(( max_events / per_rank ))
  [ "$cap" -gt 16384 ] && cap=16384
  [ "$cap" -lt 1 ] && cap=1
  ranks=$(( (RANDOM * 32768 + RANDOM) % cap + 1 ))
  events=$(( ranks * per_rank ))
  m="$work/shape$i.toml"
  cat > "$m" <<TOML
[experiment]
name = "shape-$i"
repetitions = 1
warmup_steps = 2
steps = $steps
seed = $i
timeout_s = 600
[stats]
max_repetitions = 1
[baseline]
ranks = $ranks
backend = "sim"
[baseline.model]
layers = $layers
microbatches = $microbatches
tokens = 128
hidden = 256
buckets = $buckets
overlap = false
compute = "gemm"
TOML
  start=$(date +%s.%N)
  if ! /usr/bin/time -f "%M" -o "$work/shape$i.rss" "$bin/culprit" run "$m" --db "$work/s.db" \
      > "$work/shape$i.out" 2> "$work/shape$i.err"; then
    failed=1
  fi
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  status=$(sqlite3 "$work/s.db" "SELECT status FROM runs r JOIN experiments e ON e.id = r.experiment_id WHERE e.name = 'shape-$i'")
  stored=$(sqlite3 "$work/s.db" "SELECT coalesce(sum(p.events), 0) FROM run_event_packs p JOIN runs r ON r.id = p.run_id JOIN experiments e ON e.id = r.experiment_id WHERE e.name = 'shape-$i'")
  printf 'bench_store_shapes: shape %2d ranks=%5d layers=%d mb=%d steps=%3d: %s, %d events stored, %.1f s, %d MiB peak\n' \
    "$i" "$ranks" "$layers" "$microbatches" "$steps" "$status" "$stored" "$wall" $(( $(cat "$work/shape$i.rss" | tail -1) / 1024 ))
  if [ "$failed" = 1 ] || [ "$status" != ok ] || [ "$stored" != "$events" ]; then
    keep=1
    echo "bench_store_shapes: FAILED at shape $i (expected $events events; $work kept):"
    tail -5 "$work/shape$i.err"
    exit 1
  fi
  stored_shapes=$((stored_shapes + 1))
done
if [ "$stored_shapes" -gt 0 ]; then
  check=$(sqlite3 "$work/s.db" "PRAGMA integrity_check")
  [ "$check" = ok ] || { keep=1; echo "bench_store_shapes: integrity_check: $check"; exit 1; }
fi
echo "bench_store_shapes: $stored_shapes shapes stored whole, none failed"
