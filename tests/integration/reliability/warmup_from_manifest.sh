#!/usr/bin/env bash
# Issue 15, defect 7: the manifest's experiment.warmup_steps decides which steps are warm-up.
# A run file without meta.warmup_steps, or with another or a non-numeric value, gets a warning
# and the manifest's value; a run file read on its own with a non-numeric value is a clear
# error (exit 2), not the bare text `stoi`.
source "$(dirname "$0")/common.sh"
cat > rewrite.sh <<SH
#!/usr/bin/env bash
# culprit-step, then (rank 0) the run file's meta.warmup_steps is changed to \$WARMUP.
"$BIN/culprit-step" "\$@" || exit
out=""; while [[ \$# -gt 0 ]]; do [[ \$1 == --out ]] && out=\$2; shift; done
if [[ "\${OMPI_COMM_WORLD_RANK:-0}" == 0 ]]; then
  for _ in \$(seq 1 100); do [[ -f "\$out" ]] && break; sleep 0.05; done
  if [[ "\$WARMUP" == none ]]; then
    sqlite3 "\$out" "DELETE FROM meta WHERE key = 'warmup_steps'"
  else
    sqlite3 "\$out" "UPDATE meta SET value = '\$WARMUP' WHERE key = 'warmup_steps'"
  fi
  cp "\$out" "$PWD/last-run-file.\$WARMUP"
fi
SH
chmod +x rewrite.sh
for value in none abc 0; do
  cat > w-$value.toml <<TOML
[experiment]
name = "warmup-$value"
repetitions = 1
warmup_steps = 2
steps = 5

[baseline]
ranks = 2
backend = "cpu"
version = "rewritten"

$(sleep_model_toml 32 32)

[versions.rewritten]
description = "culprit-step whose run file says warmup_steps = $value"
command = ["$PWD/rewrite.sh", "--config", "{config}", "--out", "{out}"]
env = { WARMUP = "$value" }
TOML
done
for value in none abc 0; do
  expect_rc "sweep whose run file says warmup_steps=$value" 0 "$CULPRIT" run w-$value.toml --db w.db
  case $value in
    none) expect_log "missing warm-up warned" "has no meta.warmup_steps: the manifest's experiment.warmup_steps = 2 is used" ;;
    *) expect_log "disagreeing warm-up warned" "says meta.warmup_steps = '$value' but the manifest's experiment.warmup_steps = 2 decides" ;;
  esac
done
# Every ok run counts exactly the manifest's 2 warm-up steps of its 5.
expect_eq "runs whose warm-up is not the manifest's" \
  "$(q w.db "SELECT count(*) FROM runs r WHERE r.status = 'ok' AND (SELECT sum(warmup) FROM steps s WHERE s.run_id = r.id) != 2")" 0
expect_eq "ok runs" "$(q w.db "SELECT count(*) FROM runs WHERE status = 'ok'")" "$(q w.db "SELECT count(*) FROM runs")"
expect_eq "the run file's own value is kept" \
  "$(q w.db "SELECT count(*) FROM run_meta WHERE key = 'run_file_warmup_steps' AND value = 'abc'")" 1
expect_rc "attribute --run-file with warmup_steps = abc" 2 "$CULPRIT" attribute --run-file last-run-file.abc
expect_log "the bad value is named" "meta.warmup_steps = 'abc' is not a whole number"
! grep -q "stoi" err.log || fail "bare stoi: $(cat err.log)"
echo "ok: warm-up from the manifest; disagreeing run files warned; non-numeric value explained"
