#!/usr/bin/env bash
# Issue 37: an installed culprit (PREFIX/bin/culprit and what it installed beside it) does the
# user's three jobs with the source tree out of reach: the reference scenario, a torch manifest
# (the installed examples/torch/ddp_train.py under the installed Python module) and a PMPI
# manifest (LAMMPS on the installed examples/pmpi/in.melt). "Out of reach" is real: the script
# runs itself again in a private mount namespace where an empty tmpfs covers each HIDDEN folder
# (the checkout, which holds the build tree), so a path compiled in or left in a file fails.
# Needs root (mount namespaces); exits 77 (ctest: skipped) otherwise, saying so.
# Usage: installed_scenarios.sh PREFIX TORCH_PYTHON WORK_DIR HIDDEN...
set -euo pipefail
PREFIX=$1 PY=$2 WORK=$3
shift 3
fail() { echo "FAIL: $*" >&2; exit 1; }
if [[ "${CULPRIT_SOURCE_HIDDEN:-}" != 1 ]]; then
  [[ $(id -u) == 0 ]] || { echo "skipped: hiding the source tree needs root (a mount namespace)"; exit 77; }
  command -v unshare > /dev/null || { echo "skipped: no unshare(1) to hide the source tree"; exit 77; }
  [[ "$WORK" != "$1"* ]] || fail "WORK_DIR $WORK lies in a folder to hide ($1)"
  rm -rf "$WORK" && mkdir -p "$WORK"
  exec env CULPRIT_SOURCE_HIDDEN=1 unshare --mount --propagation private -- bash "$0" "$PREFIX" "$PY" "$WORK" "$@"
fi
for hidden in "$@"; do
  [[ -d "$hidden" ]] || continue  # inside a folder hidden already (a build tree in the checkout)
  mount -t tmpfs -o size=1m,mode=0555 culprit-hidden "$hidden" || fail "cannot hide $hidden"
  [[ -z "$(ls -A "$hidden")" ]] || fail "$hidden still shows files"
done
cd "$WORK"
C=$PREFIX/bin/culprit S=$PREFIX/share/culprit
env -u CULPRIT_PYTHON_DIR -u CULPRIT_PMPI_LIBRARY "$C" --version > version.txt
grep -q "^python module: $S/python$" version.txt || fail "python module: $(cat version.txt)"

# 1. The reference scenario as the demo runs it: 64 simulated ranks, one slow GEMM on rank 63.
"$C" run "$S/experiments/reference-64.toml" --db ref.db > ref-run.log 2>&1 ||
  fail "reference run: $(tail -20 ref-run.log)"
"$C" explain --db ref.db > ref-explain.txt 2>&1 || fail "reference explain: $(cat ref-explain.txt)"
grep -q "^cause: rank 63 " ref-explain.txt || fail "reference: rank 63 not named: $(cat ref-explain.txt)"

# 2. A torch manifest: the installed example script and Python module, 2 ranks over gloo; the
# installed manifest is valid where it lies (its command path is relative to share/culprit).
(cd "$S" && "$C" plan experiments/torch-ddp.toml > /dev/null) || fail "installed torch-ddp.toml"
cat > torch.toml <<TOML
[experiment]
name = "installed-torch"
python = "$PY"
repetitions = 1
warmup_steps = 1
steps = 3
timeout_s = 120
[baseline]
version = "v1"
ranks = 2
backend = "cpu"
[versions.v1]
command = ["{python}", "$S/examples/torch/ddp_train.py", "--config", "{config}", "--out", "{out}",
           "--hidden", "64", "--batch", "32"]
env = { OMP_NUM_THREADS = "1" }
TOML
env -u CULPRIT_PYTHON_DIR "$C" run torch.toml --db torch.db > torch-run.log 2>&1 ||
  fail "torch run: $(tail -20 torch-run.log)"
"$C" runs --db torch.db --json > torch-runs.json || fail "torch runs"
grep -q '"status": *"ok"' torch-runs.json || fail "torch run not ok: $(cat torch-runs.json)"

# 3. A PMPI manifest: unmodified LAMMPS under the installed libculprit_pmpi.so.
if LMP=$(command -v lmp); then
  cat > pmpi.toml <<TOML
[experiment]
name = "installed-pmpi"
repetitions = 1
warmup_steps = 5
steps = 20
timeout_s = 120
[baseline]
version = "melt"
ranks = 2
[versions.melt]
command = ["$LMP", "-in", "$S/examples/pmpi/in.melt", "-var", "steps", "40", "-var", "n", "4",
           "-log", "none", "-screen", "none"]
env = { OMP_NUM_THREADS = "1", OMPI_MCA_mpi_yield_when_idle = "1" }
instrument = "pmpi"
step_rule = { call = "MPI_Allreduce", every = 1 }
TOML
  env -u CULPRIT_PMPI_LIBRARY "$C" run pmpi.toml --db pmpi.db > pmpi-run.log 2>&1 ||
    fail "pmpi run: $(tail -20 pmpi-run.log)"
  "$C" runs --db pmpi.db --json > pmpi-runs.json || fail "pmpi runs"
  grep -q '"status": *"ok"' pmpi-runs.json || fail "pmpi run not ok: $(cat pmpi-runs.json)"
else
  fail "lmp not found (apt-get install lammps): the PMPI scenario needs it"
fi
echo "ok: $PREFIX ran the reference, torch and PMPI scenarios with $* out of reach"
