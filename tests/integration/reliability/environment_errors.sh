#!/usr/bin/env bash
# Issue 15, defect 9: a missing launcher or workload is found before the first run (exit 2,
# named, nothing marked); an environment failure during a sweep stops it there, the rest
# stays pending, and the summary says how to go on (--retry-failed for failed runs).
source "$(dirname "$0")/common.sh"
MANIFEST="$DATA/launch/small.toml"
PLANNED=$("$CULPRIT" plan --json "$MANIFEST" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["runs"]))')

# mpirun missing from PATH.
mkdir emptybin
expect_rc "run without mpirun" 2 env PATH="$PWD/emptybin" "$CULPRIT" run "$MANIFEST" --db a.db
expect_log "mpirun is named" "launcher 'mpirun' of configuration '[^']+' is not found in PATH"
expect_eq "runs not pending without mpirun" "$(q a.db "SELECT count(*) FROM runs WHERE status != 'pending'")" 0

# culprit without culprit-step beside it or in PATH (was: every run "killed by signal 6").
mkdir alone && cp "$CULPRIT" alone/culprit
expect_rc "run without culprit-step" 2 env PATH="$(dirname "$(command -v mpirun)"):/usr/bin:/bin" alone/culprit run "$MANIFEST" --db b.db
expect_log "culprit-step is named" "workload 'culprit-step' of configuration '[^']+' is not found in PATH nor beside culprit"
expect_eq "runs not pending without culprit-step" "$(q b.db "SELECT count(*) FROM runs WHERE status != 'pending'")" 0

# Issue 38 item 10: a stale SLURM_JOB_ID (an allocation that is not running here) made the auto
# launcher pick srun and every run fail within milliseconds; it is refused before the first run.
expect_rc "run with a stale SLURM_JOB_ID" 2 env SLURM_JOB_ID=424242 "$CULPRIT" run "$MANIFEST" --db s.db
expect_log "the stale allocation is named" "inside a Slurm allocation as SLURM_JOB_ID=424242 says\), but that allocation is not running here \(squeue --jobs=424242: .+\): nothing was run; if the allocation ended, unset SLURM_JOB_ID"
expect_eq "runs not pending with a stale SLURM_JOB_ID" "$(q s.db "SELECT count(*) FROM runs WHERE status != 'pending'")" 0

# A run folder that cannot be created (a file is in the way of <db>.runs): the first run fails,
# the sweep stops, the rest stays pending, and the summary says how to go on.
: > c.db.runs
expect_rc "run with an unwritable run folder" 5 "$CULPRIT" run "$MANIFEST" --db c.db
expect_eq "failed runs" "$(q c.db "SELECT count(*) FROM runs WHERE status = 'failed'")" 1
expect_eq "pending runs" "$(q c.db "SELECT count(*) FROM runs WHERE status = 'pending'")" $((PLANNED - 1))
expect_log "the stop is explained" "stopped: environment error in run" out.log
expect_log "pending runs are announced" "$((PLANNED - 1)) run\(s\) left pending: \`culprit run $MANIFEST --db c.db\` again continues" out.log
# Issue 38 item 10: the hint keeps the store (it dropped --db, and copying it ran against culprit.db).
expect_log "the retry hint is printed, with the store" "\`culprit run $MANIFEST --db c.db --retry-failed\`" out.log
rm c.db.runs
expect_rc "the sweep continues" 5 "$CULPRIT" run "$MANIFEST" --db c.db
expect_eq "still failed without --retry-failed" "$(q c.db "SELECT count(*) FROM runs WHERE status = 'failed'")" 1
expect_log "the retry hint again" "--retry-failed" out.log
expect_rc "--retry-failed" 0 "$CULPRIT" run "$MANIFEST" --db c.db --retry-failed
expect_eq "all ok" "$(q c.db "SELECT count(*) FROM runs WHERE status = 'ok'")" "$PLANNED"
# Every run ingested: no empty c.db.runs is left beside the store (the file in its way above
# was kept: rmdir removes only an empty folder).
expect_eq "no empty run folder left" "$([[ -e c.db.runs ]] && echo left || echo gone)" gone
# A full disk (a 4 MiB tmpfs holding the store and its run folders; the store of schema 6 with
# its WAL takes 3 MiB before the first run): the sweep stops at the
# first run the full disk breaks instead of failing every remaining run within milliseconds.
if [[ $(id -u) == 0 ]] && unshare -m true 2>/dev/null; then
  mkdir full
  rc=0
  unshare -m bash -c "mount -t tmpfs -o size=4m tmpfs full && \
    '$CULPRIT' run '$MANIFEST' --db full/f.db > full.out 2> full.log; echo \$? > full.rc; \
    sqlite3 -batch -noheader full/f.db \"SELECT count(*) FROM runs WHERE status = 'failed'\" > full.failed; \
    sqlite3 -batch -noheader full/f.db \"SELECT count(*) FROM runs WHERE status = 'pending'\" > full.pending" || rc=$?
  expect_eq "mounting a tmpfs" "$rc" 0
  expect_eq "exit code on a full disk ($(tail -2 full.log))" "$(cat full.rc)" 5
  [[ "$(cat full.failed)" -le 1 ]] || fail "$(cat full.failed) runs failed on a full disk"
  [[ "$(cat full.pending)" -ge 1 ]] || fail "no run left pending on a full disk: $(cat full.out)"
  grep -Eq "full|No space left" full.out full.log || fail "the full disk is not named: $(cat full.log)"
  ! grep -q "internal error" full.log || fail "a full disk is an internal error: $(cat full.log)"
fi
echo "ok: missing launcher/workload found before launch; environment failure stops the sweep"
