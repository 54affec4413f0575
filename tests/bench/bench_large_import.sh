#!/usr/bin/env bash
# Issue 36's large imported job: a 64-rank Kineto job of at least 2 GB of JSON in all, built by
# make_large_kineto.py from the real 2-rank DDP trace in ../shared/traces (its 8 profiled steps
# repeated, ids and timestamps made consistent) into a temporary folder, then stored with
# `culprit import`, timed by /usr/bin/time -v (wall, user, system, peak RSS). Each file is read,
# reduced to its records and its JSON freed before the reader takes another (one file a core),
# so the peak stays far below the job's size. Checks with sqlite3 that the run is ok with every
# rank and the steps the generator wrote; asserts nothing timed. Target: <= 60 s, <= 4 GiB.
#   tests/bench/bench_large_import.sh [BUILD_DIR] [RANKS] [MB_PER_FILE] [JOB_DIR]
# JOB_DIR: an existing job folder to import (not removed); default: one generated and removed.
set -euo pipefail
build=${1:-build}
ranks=${2:-64}
mb=${3:-33}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "$build/bin" && pwd)
source_dir=${SOURCE_TRACE:-$root/../shared/traces/torch-ddp/ddp2-control/kineto}
work=$(mktemp -d "${TMPDIR:-/tmp}/bench_large_import.XXXXXX")
trap 'rm -rf "$work"' EXIT
job=${4:-$work/job}
if [ ! -d "$job" ]; then
  python3 "$root/tests/bench/make_large_kineto.py" "$source_dir" "$job" --ranks "$ranks" --mb "$mb"
fi
bytes=$(du -cb "$job"/*.json | tail -1 | cut -f1)
/usr/bin/time -v -o "$work/import.time" "$bin/culprit" import "$job" --db "$work/big.db" \
  --experiment big --label baseline > "$work/import.txt" 2>&1 || { cat "$work/import.txt"; exit 1; }
awk -v gb="$(awk -v b="$bytes" 'BEGIN {print b / 1e9}')" -F': ' '
  /User time/ {u = $2} /System time/ {s = $2} /Maximum resident/ {m = $2}
  /Elapsed \(wall clock\)/ {n = split($2, p, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + p[i]}
  END {printf "bench_large_import: %.2f GB of JSON: %7.2f s wall %7.2f s user %6.2f s sys %6.0f MiB peak\n",
       gb, w, u, s, m / 1024}' "$work/import.time"
read -r status stored_ranks steps events < <(sqlite3 -separator ' ' "$work/big.db" \
  "SELECT r.status, (SELECT count(DISTINCT rank) FROM run_event_packs WHERE run_id = r.id),
          (SELECT count(*) FROM steps WHERE run_id = r.id),
          (SELECT sum(events) FROM run_event_packs WHERE run_id = r.id) FROM runs r")
expected_steps=$(python3 -c "
import json, re
d = json.load(open('$job/rank0.json'))
print(len({e['name'] for e in d['traceEvents'] if re.match(r'^ProfilerStep#\d+$', e.get('name', ''))}))")
echo "bench_large_import: run $status, $stored_ranks ranks, $steps steps, $events events stored"
[ "$status" = ok ] && [ "$stored_ranks" = "$ranks" ] && [ "$steps" = "$expected_steps" ] ||
  { echo "bench_large_import: expected an ok run of $ranks ranks and $expected_steps steps"; cat "$work/import.txt"; exit 1; }
