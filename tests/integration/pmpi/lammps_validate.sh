#!/usr/bin/env bash
# LAMMPS from Debian (`lmp`, linked to Open MPI), nobody here wrote it, unmodified, under the
# PMPI interposer: an LJ melt on 2 ranks (tests/data/pmpi/in.melt), one step per timestep
# (step_rule = { call = "MPI_Allreduce", every = 1 }). A sweep of delays injected before the
# neighbor-check MPI_Allreduce on one rank or the other:
#  - `culprit validate` blames the injected rank and phase (compute>MPI_Allreduce) in >= 95 %
#    of the runs, and the controls blame nobody;
#  - `culprit attribute` on a delayed run names that rank and phase, excess within 25 %;
#  - `culprit explain` names it as the first divergence of the median step change.
# Usage: lammps_validate.sh BIN_DIR DATA_DIR WORK_DIR
source "$(dirname "$0")/common.sh"
LMP=$(command -v lmp) || fail "lmp not found (apt-get install lammps)"
cat >manifest.toml <<TOML
[experiment]
name = "pmpi-lammps-validate"
repetitions = 2
warmup_steps = 40
steps = 60
seed = 16
timeout_s = 300

[baseline]
version = "melt"
ranks = 2

[versions.melt]
command = ["$LMP", "-in", "$DATA/pmpi/in.melt", "-var", "steps", "200", "-var", "n", "6", "-log", "none",
           "-screen", "none"]
env = { OMP_NUM_THREADS = "1" }
instrument = "pmpi"
step_rule = { call = "MPI_Allreduce", every = 1 }

[[vary]]
factor = "delay"
levels = [
  { rank = 1, phase = "compute>MPI_Allreduce", ms = 10 },
  { rank = 0, phase = "compute>MPI_Allreduce", ms = 10 },
  { rank = 1, phase = "compute>MPI_Allreduce", ms = 20, mode = "spin" },
  { rank = 0, phase = "compute>MPI_Allreduce", ms = 5 },
]
TOML
"$BIN/culprit" validate manifest.toml --db v.db --json >validate.json 2>validate.log ||
  { cat validate.log; fail "culprit validate"; }
"$BIN/culprit" validate manifest.toml --db v.db >validate.txt 2>/dev/null || true
cat validate.txt
"$BIN/culprit" explain --db v.db --json >explain.json
RUN=$(q v.db "SELECT r.id FROM runs r JOIN configurations c ON c.id = r.config_id
              WHERE c.label LIKE 'delay=rank1:compute>MPI_Allreduce:10ms%' LIMIT 1")
[[ -n $RUN ]] || fail "no run of the 10 ms delay on rank 1: $(q v.db "SELECT label FROM configurations")"
"$BIN/culprit" attribute --db v.db "$RUN" --json >attribute.json
"$BIN/culprit" attribute --db v.db "$RUN" >attribute.txt
grep -q "culprit (first unexplained divergence): rank 1 compute>MPI_Allreduce" attribute.txt ||
  { cat attribute.txt; fail "attribute text"; }
python3 - <<'PY'
import json
v = json.load(open("validate.json"))
print("validate: accuracy", v["accuracy"], "cases", len(v["cases"]), "controls", v["controls"],
      "false positives", v["false_positives"])
for c in v["cases"]:
    print("  injected", c["injected"], "blamed", c["blamed"], "hit", c["hit"])
assert len(v["cases"]) == 8, v
assert v["accuracy"] >= 0.95, v
assert v["controls"] == 2 and v["false_positives"] == 0, v
for c in v["cases"]:
    if c["hit"]:
        assert abs(c["blamed"]["ms"] - c["injected"]["ms"]) <= 0.25 * c["injected"]["ms"], c
a = json.load(open("attribute.json"))
runs = a["runs"] if isinstance(a, dict) and "runs" in a else a
run = runs[0] if isinstance(runs, list) else runs
culprit = run["summary"]["culprit"]
print("attribute:", culprit)
assert culprit["rank"] == 1 and culprit["phase"] == "compute>MPI_Allreduce", culprit
assert abs(culprit["excess_ms"] - 10) <= 2.5, culprit
e = json.load(open("explain.json"))
for x in e["explanations"]:
    first = [c for c in x["components"] if c.get("first_divergence")]
    print("explain:", x["candidate"] if "candidate" in x else "", x["culprit"])
    assert x["culprit"]["phase"] == "compute>MPI_Allreduce", x["culprit"]
    assert len(first) == 1 and first[0]["rank"] == x["culprit"]["rank"], x
print("ok")
PY
echo PASS
