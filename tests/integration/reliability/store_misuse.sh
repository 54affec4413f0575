#!/usr/bin/env bash
# Issue 15, defects 5, 8 and 10: a store culprit may only read is read; what is not a culprit
# store is refused with exit 2, the reason and the file named, and left untouched.
source "$(dirname "$0")/common.sh"
MANIFEST="$DATA/launch/small.toml"
"$CULPRIT" run "$MANIFEST" --db s.db --shard 1/3 2> run.log || fail "sweep failed: $(cat run.log)"
RUN=$(q s.db "SELECT min(id) FROM runs WHERE status = 'ok'")

# Defect 5: a store of another user (not writable, in a folder this user cannot write) and a
# store on a read-only mount are readable; `run` says read-only with exit 2.
mkdir ro && cp s.db ro/s.db && chmod 755 ro && chmod 644 ro/s.db
as_other() { if [[ $(id -u) == 0 ]]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi; }
if [[ $(id -u) != 0 ]]; then chmod a-w ro/s.db ro; fi
mkdir out && chmod 777 out  # where the other user writes the report
# report: issue 38 item 13 (its pictures' second connection opened the store read-write).
for reader in "runs --db ro/s.db" "export --db ro/s.db" "compare --db ro/s.db" "attribute $RUN --db ro/s.db" \
              "report --db ro/s.db -o out/report.html"; do
  # shellcheck disable=SC2086
  expect_rc "$reader on another user's store" 0 as_other "$CULPRIT" $reader
done
expect_rc "run on another user's store" 2 as_other "$CULPRIT" run "$MANIFEST" --db ro/s.db
expect_log "run says read-only" "ro/s.db is read-only"
if [[ $(id -u) == 0 ]] && unshare -m true 2>/dev/null; then
  rc=0
  unshare -m bash -c "mount --bind ro ro && mount -o remount,ro,bind ro && \
    '$CULPRIT' runs --db ro/s.db > mount.out 2> mount.log && \
    '$CULPRIT' report --db ro/s.db -o out/mount-report.html 2>> mount.log && \
    { '$CULPRIT' run '$MANIFEST' --db ro/s.db 2> mount-run.log; echo \$? > mount-run.rc; }" || rc=$?
  expect_eq "runs and report on a read-only mount" "$rc" 0
  expect_eq "run on a read-only mount" "$(cat mount-run.rc)" 2
  expect_log "run on a read-only mount says read-only" "read-only" mount-run.log
fi
[[ ! -e ro/s.db-wal && ! -e ro/s.db.lock ]] || fail "files were left beside the read-only store: $(ls ro)"

# Defect 8: a SQLite file of another application is neither migrated nor changed.
sqlite3 app.db "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users VALUES (1, 'a');"
SUM=$(sha256sum app.db)
expect_rc "run --db on a foreign SQLite file" 2 "$CULPRIT" run "$MANIFEST" --db app.db
expect_log "the foreign file is named" "app.db is a SQLite file of another application \(tables: users\)"
expect_eq "the foreign file" "$(sha256sum app.db)" "$SUM"
expect_rc "runs --db on a foreign SQLite file" 2 "$CULPRIT" runs --db app.db
expect_log "runs names the foreign file" "app.db is a SQLite file of another application"
expect_log "and says how a profiler's export goes in" "goes in with .culprit import FILE --db STORE."
expect_rc "merge into a foreign SQLite file" 2 "$CULPRIT" merge app.db s.db
expect_eq "the foreign file after merge" "$(sha256sum app.db)" "$SUM"
# An empty file may become a store.
: > empty.db
expect_rc "run --db on an empty file" 0 "$CULPRIT" run "$MANIFEST" --db empty.db --shard 3/3 --keep-run-files
# A run file kept beside its store, given as a store or imported as a trace, and a store
# imported as a trace: each named for what it is, with the command that reads it.
RUN_FILE=$(ls empty.db.runs/*/run.db | head -1)
SUM=$(sha256sum "$RUN_FILE")
expect_rc "runs --db on a run file" 2 "$CULPRIT" runs --db "$RUN_FILE"
expect_log "the run file and its store are named" \
  "$RUN_FILE is a culprit run file .*culprit attribute --run-file $RUN_FILE. reads it as it is; its store is empty.db: pass that with --db"
expect_eq "the run file" "$(sha256sum "$RUN_FILE")" "$SUM"
expect_rc "import of a run file" 2 "$CULPRIT" import "$RUN_FILE" --db imported.db
expect_log "import names the run file" "$RUN_FILE: a culprit run file .*, not a profiler trace: .culprit attribute --run-file"
expect_rc "import of a store" 2 "$CULPRIT" import s.db --db imported.db
expect_log "import names the store" "s.db: a culprit store, not a profiler trace: read it with --db"
[[ ! -e imported.db ]] || fail "a refused import created imported.db"
# Traces imported into a sweep's experiment: refused (every compare of the sweep would refuse
# from then on, the environments differing beyond the varied factor), nothing stored.
EXPERIMENT=$(q s.db "SELECT name FROM experiments")
ROWS="SELECT (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM configurations)"
BEFORE=$(q s.db "$ROWS")
expect_rc "import into a sweep's experiment" 2 "$CULPRIT" import \
  "$DATA/importers/ddp-last-work-cut/traces" --db s.db --experiment "$EXPERIMENT"
expect_log "the manifest is named" \
  "experiment '$EXPERIMENT' was run from the manifest .*small.toml; imported traces go in an experiment of their own"
expect_eq "runs and configurations of the sweep's store" "$(q s.db "$ROWS")" "$BEFORE"
expect_rc "attribute --run-file of the run file" 0 "$CULPRIT" attribute --run-file "$RUN_FILE"

# Defect 10: user errors exit 2 with the reason and the file, never "internal error".
head -c 5000 /dev/urandom > garbage.db
printf 'not a database at all\n' >> garbage.db
expect_rc "--db that is not SQLite (run)" 2 "$CULPRIT" run "$MANIFEST" --db garbage.db
expect_log "run names the file" "garbage.db cannot be read as a culprit store"
expect_rc "--db that is not SQLite (runs)" 2 "$CULPRIT" runs --db garbage.db
expect_log "runs names the file" "garbage.db cannot be read as a culprit store"
expect_rc "--db in a missing folder" 2 "$CULPRIT" run "$MANIFEST" --db no/such/dir/s.db
expect_log "the missing folder is named" "the folder no/such/dir does not exist"
expect_rc "attribute --peak-flops nan" 2 "$CULPRIT" attribute "$RUN" --db s.db --peak-flops nan
expect_log "the option and the value are named" "--peak-flops must be a finite FLOP/s >= 0 .*, not nan"
expect_rc "runs --db on a store that does not exist" 2 "$CULPRIT" runs --db none.db
expect_log "says how a store comes to be" "database none.db does not exist: run \`culprit run MANIFEST\` or \`culprit import\` first"
[[ ! -e none.db ]] || fail "runs created none.db"
mkdir folder.db
expect_rc "--db that is a folder (run)" 2 "$CULPRIT" run "$MANIFEST" --db folder.db
expect_log "the folder is named" "folder.db is a folder"
expect_rc "--db that is a folder (runs)" 2 "$CULPRIT" runs --db folder.db
cp s.db future.db
sqlite3 future.db "PRAGMA user_version = 99"
expect_rc "run on a store of a newer schema" 2 "$CULPRIT" run "$MANIFEST" --db future.db
expect_log "the newer schema is named" "future.db has schema version 99, newer than this culprit"
expect_rc "runs on a store of a newer schema" 2 "$CULPRIT" runs --db future.db
expect_rc "attribute --run-file of a garbage file" 2 "$CULPRIT" attribute --run-file garbage.db
expect_log "the run file is named" "garbage.db"
! grep -q "internal error" err.log || fail "a garbage run file is an internal error: $(cat err.log)"
FAILED=$(q s.db "SELECT id FROM runs LIMIT 1")
sqlite3 s.db "UPDATE runs SET status = 'failed' WHERE id = $FAILED; DELETE FROM run_event_packs WHERE run_id = $FAILED"
expect_rc "attribute of a failed run" 2 "$CULPRIT" attribute "$FAILED" --db s.db
expect_log "the failed run is named" "run $FAILED"
! grep -q "internal error" err.log || fail "attribute of a failed run is an internal error: $(cat err.log)"

# Defect 14: a typo in --experiment is not an empty result; two formats at once are refused;
# merge checks every input before it creates or changes OUT.
expect_rc "runs --experiment typo" 2 "$CULPRIT" runs --db s.db --experiment launch-smal
expect_log "the stored experiments are listed" "no experiment 'launch-smal' in s.db \(it holds: launch-small\)"
expect_rc "export --experiment typo" 2 "$CULPRIT" export --db s.db --experiment launch-smal
expect_rc "export --format csv --json" 2 "$CULPRIT" export --db s.db --format csv --json
expect_log "the conflict is named" "--json and --format csv ask for two formats"
expect_rc "merge with a missing input" 2 "$CULPRIT" merge merged.db s.db missing.db
expect_log "the missing input is named" "shard database missing.db does not exist; nothing was merged"
[[ ! -e merged.db ]] || fail "merge created OUT before it checked its inputs"
mkdir -p shards
expect_rc "merge with a folder as input" 2 "$CULPRIT" merge merged.db s.db shards
expect_log "the folder is said to be one" "shard database shards is a folder, not a database file: name the shard's .db; nothing was merged"
[[ ! -e merged.db ]] || fail "merge created OUT before it checked a folder input"
expect_rc "merge with a garbage input" 2 "$CULPRIT" merge merged.db s.db garbage.db
[[ ! -e merged.db ]] || fail "merge created OUT before it checked a garbage input"
sed 's/^steps = 4/steps = 5/' "$MANIFEST" > changed.toml
"$CULPRIT" run changed.toml --db other.db --shard 1/3 2> other.log || fail "changed sweep: $(cat other.log)"
expect_rc "merge of shards of different manifests" 2 "$CULPRIT" merge merged.db s.db other.db
expect_log "the conflict names both files" "was run from different manifests in s.db and other.db"
[[ ! -e merged.db ]] || fail "merge left a half-merged OUT"
# Control characters stored in a run's error (a child's stderr line) are printed escaped.
sqlite3 s.db "UPDATE runs SET error = 'boom' || char(27) || '[2J' || char(13) || 'x' WHERE id = $FAILED"
expect_rc "runs with a control character in an error" 0 "$CULPRIT" runs --db s.db
grep -qF 'boom\x1b[2J\x0dx' out.log || fail "the error is not escaped: $(grep boom out.log | od -c | head)"
! grep -q $'\x1b' out.log || fail "a raw escape reached the terminal"
expect_eq "integrity_check" "$(q s.db "PRAGMA integrity_check")" ok
echo "ok: read-only stores read, foreign and broken files refused with exit 2"
