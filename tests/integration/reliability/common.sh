# Shared by the reliability scripts (issue 15): the launcher's helpers plus manifests written
# into the scratch folder, so that commands can name absolute paths.
# Usage: source common.sh BIN_DIR DATA_DIR SCRATCH_DIR
source "$(dirname "${BASH_SOURCE[0]}")/../launch/common.sh"

# hang_manifest FILE MARKER: a 2-rank sweep whose one version sleeps under mpirun (`sleep
# MARKER`, a unique number to find the processes by) until the file ./go exists, and then is
# the real culprit-step; the baseline is an ordinary quick run.
hang_manifest() {
  local file=$1 marker=$2
  cat > slow.sh <<SH
#!/usr/bin/env bash
[[ -f "$PWD/go" ]] || exec sleep $marker
exec "$BIN/culprit-step" "\$@"
SH
  chmod +x slow.sh
  cat > "$file" <<TOML
[experiment]
name = "reliability-hang"
repetitions = 1
warmup_steps = 1
steps = 3
timeout_s = 120

[baseline]
ranks = 2
backend = "cpu"

$(sleep_model_toml 32 32)

[versions.slow]
description = "sleeps until ./go exists"
command = ["$PWD/slow.sh", "--config", "{config}", "--out", "{out}"]

[[vary]]
factor = "version"
levels = ["slow"]
TOML
}

# wait_for WHAT CONDITION...: polls (up to 60 s) until CONDITION succeeds.
wait_for() {
  local what=$1
  shift
  for _ in $(seq 1 600); do
    if "$@" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  fail "timed out waiting for $what"
}

running_version() {  # the slow version's run is in flight and its ranks sleep (polled)
  [[ "$(q_try "$1" "SELECT count(*) FROM runs WHERE status = 'running'")" == 1 ]] && pgrep -f "sleep $2" >/dev/null
}
