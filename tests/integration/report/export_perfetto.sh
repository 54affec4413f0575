#!/usr/bin/env bash
# `culprit export --format perfetto` of a run of the small reference scenario: the whole run and
# a filtered part, each checked against the trace-event format and the store (check_perfetto.py).
# Usage: export_perfetto.sh BIN_DIR WORK_DIR
set -euo pipefail
bin=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
cd "$work"
# A run of the slow version (its culprit and first divergences are annotated).
run=$(sqlite3 ref.db "SELECT r.id FROM runs r JOIN configurations c ON c.id = r.config_id
                      WHERE c.is_baseline = 0 AND r.status = 'ok' ORDER BY r.id LIMIT 1")
"$bin/culprit" export --format perfetto --db ref.db "$run" -o trace.json
python3 "$here/check_perfetto.py" trace.json ref.db "$run"
"$bin/culprit" export --format perfetto --db ref.db "$run" --steps 4:6 --ranks 0,13-15 -o part.json
python3 "$here/check_perfetto.py" part.json ref.db "$run" 4 6 0,13-15
echo "trace: $(stat -c %s trace.json) bytes, filtered: $(stat -c %s part.json) bytes"
# Bad filters are usage errors that say what is wrong, and write no trace.
# refused FILTER_OPTION VALUE MESSAGE: the export exits 2 with MESSAGE on stderr.
refused() {
  local rc=0
  "$bin/culprit" export --format perfetto --db ref.db "$run" "$1" "$2" -o bad.json 2> bad.txt || rc=$?
  [[ $rc -eq 2 ]] || { echo "$1 $2 exited $rc, want 2"; exit 1; }
  grep -qF -- "$3" bad.txt || { echo "$1 $2 said:"; cat bad.txt; exit 1; }
  [[ ! -e bad.json ]]
}
refused --ranks 0,99 "'99' names a rank this run does not have (the run's ranks: 0..15)"
refused --ranks 5-3 "'5-3' is a range A-B with A after B (the run's ranks: 0..15)"
# A negative rank read as a range with an empty start ("'' is not a non-negative integer").
refused --ranks -1 "'-1' is not a rank R or a range A-B of ranks"
# A step past int is too large, not "not a non-negative integer".
refused --steps 0:99999999999999 "'99999999999999' is too large (at most 2147483647)"
# Steps the run does not have (issue 38 item 14: it wrote a trace of metadata only, exit 0).
steps=$(sqlite3 ref.db "SELECT min(step) || '..' || max(step) FROM steps WHERE run_id = $run")
refused --steps 100:200 "--steps 100:200 selects no step of run $run, which has steps $steps"
"$bin/culprit" export --format perfetto --db ref.db 2> norun.txt && exit 1
grep -q "give its RUN id" norun.txt
echo "export_perfetto: ok"
