#!/usr/bin/env bash
# Fixed seed => identical run file, every row of every table; another seed => other noise
# with the same structure. Usage: determinism.sh BIN_DIR DATA_DIR WORK_DIR
source "$(dirname "$0")/common.sh"
bin=$1 data=$2 work=$3
fresh_dir "$work"
mkdir -p "$work/a" "$work/b" "$work/c"
cp "$data/structure-4.json" "$work/config.json"
sed 's/"seed": 5/"seed": 6/' "$work/config.json" > "$work/config-seed6.json"
grep -q '"seed": 6' "$work/config-seed6.json" || fail "could not change the seed"

# Same relative arguments in each folder, so even the recorded command line is identical.
(cd "$work/a" && "$bin/culprit-sim" --config ../config.json --out run.db)
(cd "$work/b" && "$bin/culprit-sim" --config ../config.json --out run.db)
(cd "$work/c" && "$bin/culprit-sim" --config ../config-seed6.json --out run.db)

dump_run_file "$work/a/run.db" > "$work/a.txt"
dump_run_file "$work/b/run.db" > "$work/b.txt"
[ "$(grep -c '^events' "$work/a.txt")" -gt 100 ] || fail "run file has too few events"
cmp -s "$work/a.txt" "$work/b.txt" || {
  diff "$work/a.txt" "$work/b.txt" | head -20 >&2
  fail "same seed, different run files"
}
cmp -s "$work/a/run.db" "$work/b/run.db" || fail "same seed, different run-file bytes"

sqlite3 -batch "$work/a/run.db" "SELECT begin_ns, end_ns FROM events ORDER BY rank, step, begin_ns, name" > "$work/a.times"
sqlite3 -batch "$work/c/run.db" "SELECT begin_ns, end_ns FROM events ORDER BY rank, step, begin_ns, name" > "$work/c.times"
cmp -s "$work/a.times" "$work/c.times" && fail "different seeds gave identical timings"
[ "$(structure_of "$work/a/run.db")" = "$(structure_of "$work/c/run.db")" ] ||
  fail "different seeds changed the step structure"
echo "PASS: identical run files for one seed, different noise for another"
