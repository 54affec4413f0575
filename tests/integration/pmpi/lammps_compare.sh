#!/usr/bin/env bash
# Two LAMMPS inputs compared like two versions of an application: the LJ melt with cutoff 2.5
# (baseline) and 3.5 (the "new version", about 2.7x the pair interactions per atom), both
# unmodified under the PMPI interposer. `culprit compare` must say regressed, with a positive
# shift whose confidence interval excludes 0.
# Sampling is adaptive, as a user on a shared host would run it: beside a busy core a whole run
# of 0.3-0.5 ms steps can come out several times slower than its siblings (a rank that yields
# while it waits hands its core to the other process for a time slice), and with 5 runs against
# 5 one such run leaves the comparison inconclusive. `culprit run` then adds blocks of 5 runs
# each until it is decided, at alpha 0.05 over the 4 planned looks (0.0125 a look; 5 against 5
# reach p = 0.008 when every candidate run is the slower, so a quiet host stops there).
# Usage: lammps_compare.sh BIN_DIR DATA_DIR WORK_DIR
source "$(dirname "$0")/common.sh"
LMP=$(command -v lmp) || fail "lmp not found (apt-get install lammps)"
MELT=$(cd "$DATA/../.." && pwd)/examples/pmpi/in.melt  # the example input culprit installs
version() { # name cutoff
  cat <<TOML
[versions.$1]
command = ["$LMP", "-in", "$MELT", "-var", "cut", "$2", "-var", "steps", "110", "-var", "n", "6",
           "-log", "none", "-screen", "none"]
env = { OMP_NUM_THREADS = "1", OMPI_MCA_mpi_yield_when_idle = "1" }
instrument = "pmpi"
step_rule = { call = "MPI_Allreduce", every = 1 }
TOML
}
cat >manifest.toml <<TOML
[experiment]
name = "pmpi-lammps-compare"
repetitions = 5
warmup_steps = 40
steps = 60
seed = 7
timeout_s = 300

[stats]
sampling = "adaptive"
max_repetitions = 20

[baseline]
version = "cut25"
ranks = 2

$(version cut25 2.5)

$(version cut35 3.5)

[[vary]]
factor = "version"
levels = ["cut35"]
TOML
"$BIN/culprit" run manifest.toml --db c.db >run.log 2>&1 || { cat run.log; fail "culprit run"; }
"$BIN/culprit" compare --db c.db --json >compare.json || [[ $? == 0 ]]
"$BIN/culprit" compare --db c.db || true
python3 - <<'PY'
import json
doc = json.load(open("compare.json"))
c = doc["comparisons"][0]
print("compare:", c["verdict"], "shift", c["shift_ms"], "ci", c["shift_ci_ms"], "relative", c["relative"])
assert c["verdict"] == "regressed", c
assert c["shift_ms"] > 0 and c["shift_ci_ms"][0] > 0, c
assert c["relative"] > 0.2, c
PY
echo PASS
