#!/usr/bin/env bash
# Issue 37: [launch] launcher = "torchrun" runs a Python command with torch.distributed.run on
# this host: the example on 2 ranks (env:// rendezvous from torchrun's variables), both ranks'
# steps stored, the launcher recorded. Hand-written manifest, 1 run of 3 steps.
# Usage: torchrun.sh BIN_DIR WORK_DIR TORCH_PYTHON SOURCE_DIR
set -euo pipefail
bin=$1 work=$2 py=$3 src=$4
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > "$work/torchrun.toml" <<TOML
[experiment]
name = "torchrun"
repetitions = 1
warmup_steps = 1
steps = 3
python = "$py"
[launch]
launcher = "torchrun"
[baseline]
version = "v1"
ranks = 2
backend = "cpu"
[versions.v1]
command = ["{python}", "$src/examples/torch/ddp_train.py", "--config", "{config}", "--out", "{out}",
           "--hidden", "16", "--batch", "16"]
env = { OMP_NUM_THREADS = "1" }
TOML
cd "$work"
"$bin/culprit" run torchrun.toml --db t.db > run.txt 2> run.log || fail "culprit run: $(tail -30 run.log)"
grep -q "preflight: $py -> " run.log || fail "no preflight line: $(cat run.log)"
[[ "$(sqlite3 t.db "SELECT status FROM runs")" == ok ]] || fail "run not ok: $(cat run.txt)"
ranks=$(sqlite3 t.db "SELECT count(DISTINCT rank) FROM provenance WHERE rank >= 0 AND key = 'host'")
[[ "$ranks" == 2 ]] || fail "ranks stored: $ranks"
launcher=$(sqlite3 t.db "SELECT value FROM provenance WHERE key = 'launch.launcher'")
[[ "$launcher" == torchrun ]] || fail "launcher recorded: $launcher"
echo "ok: torchrun ran 2 ranks under culprit run"
