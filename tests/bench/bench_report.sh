#!/usr/bin/env bash
# `culprit report` at scale: the small reference scenario (tests/data/report/reference-16.toml)
# widened to RANKS simulated ranks (default 16,384; the delay on the last rank's GEMM), one run
# per configuration of 2 warm-up + 6 steps, then `culprit report` timed (wall and CPU) with its
# peak memory. Prints the figures; asserts nothing (the machine is shared). One run per side: the
# report's cost is one attribution per run (explain, the scorecard and the pictures share them),
# so more runs cost proportionally more. Targets for 16,384 ranks: <= 10 s, a file <= 20 MB.
#   tests/bench/bench_report.sh [RANKS] [BUILD_DIR]
set -euo pipefail
ranks=${1:-16384}
build=${2:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "$build/bin" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bench_report.XXXXXX")
trap 'rm -rf "$work"' EXIT
last=$((ranks - 1))
sed -e "s/^ranks = 16$/ranks = $ranks/" -e "s/rank = 15,/rank = $last,/" \
    -e 's/^repetitions = 6$/repetitions = 1/' -e 's/^max_repetitions = 12$/max_repetitions = 1/' \
    -e 's/^steps = 12$/steps = 6/' -e 's/^microbatches = 4$/microbatches = 1/' -e 's/microbatch = 3,/microbatch = 0,/' -e 's/^timeout_s = 120$/timeout_s = 600/' \
    "$root/tests/data/report/reference-16.toml" > "$work/bench.toml"
grep -q "^ranks = $ranks$" "$work/bench.toml"

seconds() { python3 -c 'import time; print(f"{time.monotonic():.3f}")'; }
t0=$(seconds)
"$bin/culprit" run "$work/bench.toml" --db "$work/bench.db" > "$work/run.txt" 2>&1
t1=$(seconds)
# Peak memory of the report process, from its rusage (python3 runs it and reads it).
python3 - "$bin/culprit" "$work" <<'PY' > "$work/report.txt"
import resource, subprocess, sys, time
culprit, work = sys.argv[1], sys.argv[2]
start = time.monotonic()
subprocess.run([culprit, "report", "--db", f"{work}/bench.db", "-o", f"{work}/report.html"],
               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
elapsed = time.monotonic() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{elapsed:.2f} {peak:.0f} {usage.ru_utime + usage.ru_stime:.2f}")
PY
read -r report_s peak_mib cpu_s < "$work/report.txt"
size=$(stat -c %s "$work/report.html")
events=$(sqlite3 "$work/bench.db" "SELECT coalesce(sum(events), 0) FROM run_event_packs")
printf 'bench_report: %d ranks, 2 runs x 8 steps, %d events stored; culprit run %.1f s\n' \
  "$ranks" "$events" "$(python3 -c "print($t1 - $t0)")"
printf 'bench_report: culprit report %.2f s wall, %.2f s CPU (target <= 10 s), file %.2f MB (target <= 20 MB), peak %d MiB\n' \
  "$report_s" "$cpu_s" "$(python3 -c "print($size / 1e6)")" "$peak_mib"
