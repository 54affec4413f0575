#!/usr/bin/env bash
# Issue 38, item 13: `culprit import` onto a full disk is the user's to fix (exit 2 naming it,
# not 1 "internal error"), and the store it was creating is not left behind (a 0-byte file was).
# The shell's file size limit (ulimit -f, SIGXFSZ ignored) stands in for the full disk; the
# traces are a real pair (tests/data/importers/ddp-last-work-cut).
source "$(dirname "$0")/common.sh"
TRACES="$DATA/importers/ddp-last-work-cut/traces"
trap '' XFSZ
for kib in 64 512; do  # inside open_store, and later while the run is stored
  expect_rc "import with $kib KiB of disk" 2 \
    bash -c 'ulimit -f "$1"; exec "$2" import "$3" --db new.db' _ "$kib" "$CULPRIT" "$TRACES"
  expect_log "the full disk is named" "free space on its file system"
  [[ ! -e new.db && ! -e new.db-wal ]] || fail "a refused import left a store behind: $(ls -la)"
done
"$CULPRIT" import "$TRACES" --db new.db >/dev/null 2>&1 || fail "the import with room failed"
expect_eq "runs once there is room" "$(q new.db "SELECT count(*) FROM runs WHERE status = 'ok'")" 1
echo "ok: a full disk is exit 2 and leaves no store"
