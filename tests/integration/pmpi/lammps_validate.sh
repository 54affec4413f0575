#!/usr/bin/env bash
# LAMMPS from Debian (`lmp`, linked to Open MPI), nobody here wrote it, unmodified, under the
# PMPI interposer: an LJ melt on 2 ranks (examples/pmpi/in.melt), one step per timestep
# (step_rule = { call = "MPI_Allreduce", every = 1 }). A sweep of delays injected before the
# neighbor-check MPI_Allreduce on one rank or the other:
#  - `culprit validate` blames the injected rank and phase (compute>MPI_Allreduce) in >= 95 %
#    of the runs, and the controls blame nobody;
#  - every hit's excess is at least 75 % of the injected delay (and at most 160 %: a late
#    wake-up or a preempted spin makes a delay cost more than asked on a loaded host);
#  - `culprit attribute` on a delayed run names that rank and phase, excess within 25 % of the
#    10 ms injected and of what the delay cost by the raw events (an oracle in SQL);
# The ranks yield while they wait (OMPI_MCA_mpi_yield_when_idle=1): on a host shared with other
# work, busy-polling ranks stall each other for tens of ms and the noise hides the delays.
#  - `culprit explain` names it as the first divergence of the median step change.
# Usage: lammps_validate.sh BIN_DIR DATA_DIR WORK_DIR
source "$(dirname "$0")/common.sh"
LMP=$(command -v lmp) || fail "lmp not found (apt-get install lammps)"
MELT=$(cd "$DATA/../.." && pwd)/examples/pmpi/in.melt  # the example input culprit installs
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
command = ["$LMP", "-in", "$MELT", "-var", "steps", "120", "-var", "n", "6", "-log", "none",
           "-screen", "none"]
env = { OMP_NUM_THREADS = "1", OMPI_MCA_mpi_yield_when_idle = "1" }
instrument = "pmpi"
step_rule = { call = "MPI_Allreduce", every = 1 }

[[vary]]
factor = "delay"
levels = [
  { rank = 1, phase = "compute>MPI_Allreduce", steps = [40, 99], ms = 10 },
  { rank = 0, phase = "compute>MPI_Allreduce", steps = [40, 99], ms = 10 },
  { rank = 1, phase = "compute>MPI_Allreduce", steps = [40, 99], ms = 20, mode = "spin" },
  { rank = 0, phase = "compute>MPI_Allreduce", steps = [40, 99], ms = 5 },
]
TOML
"$BIN/culprit" validate manifest.toml --db v.db --json >validate.json 2>validate.log ||
  { cat validate.log; fail "culprit validate"; }
"$BIN/culprit" validate manifest.toml --db v.db >validate.txt 2>/dev/null || true
cat validate.txt
"$BIN/culprit" explain --db v.db --json >explain.json
RUN=$(q v.db "SELECT r.id FROM runs r JOIN configurations c ON c.id = r.config_id
              WHERE c.label LIKE 'delay=rank1:compute>MPI_Allreduce:%:10ms' LIMIT 1")
[[ -n $RUN ]] || fail "no run of the 10 ms delay on rank 1: $(q v.db "SELECT label FROM configurations")"
"$BIN/culprit" attribute --db v.db "$RUN" --json >attribute.json
"$BIN/culprit" attribute --db v.db "$RUN" >attribute.txt
grep -q "culprit (first unexplained divergence): rank 1 compute>MPI_Allreduce" attribute.txt ||
  { cat attribute.txt; fail "attribute text"; }
# Independent oracle from the raw events (SQL, not the analysis): per steady step, the delayed
# phase on the injected rank minus the same phase on the peer. Preemption only adds time to an
# event, to the injected rank's (the difference grows) or to the peer's (it shrinks: 6.98 ms for
# a 10 ms delay in one step of a CI run): the 10th percentile over the 60 steps is the delay
# actually injected, the median what it cost.
q v.db "SELECT a.step, (a.end_ns - a.begin_ns - b.end_ns + b.begin_ns) / 1e6 FROM run_events a
        JOIN run_events b ON b.run_id = a.run_id AND b.step = a.step AND b.name = a.name
        AND b.layer = a.layer AND b.rank = 0 WHERE a.run_id = $RUN AND a.rank = 1
        AND a.name = 'compute>MPI_Allreduce' AND a.layer = 0 AND a.step BETWEEN 40 AND 99" \
  | tr '|' ' ' >growth.txt
python3 - <<'PY'
import json, sqlite3
db = sqlite3.connect("v.db")

def measured_cost(run, rank):
    """What the delay cost by the raw events: the median over the delayed steps of the phase on
    the injected rank minus the same phase on its peer (not the analysis)."""
    rows = sorted(d for (d,) in db.execute(
        "SELECT (a.end_ns - a.begin_ns - b.end_ns + b.begin_ns) / 1e6 FROM run_events a "
        "JOIN run_events b ON b.run_id = a.run_id AND b.step = a.step AND b.name = a.name "
        "AND b.layer = a.layer AND b.rank = ? WHERE a.run_id = ? AND a.rank = ? "
        "AND a.name = 'compute>MPI_Allreduce' AND a.layer = 0 AND a.step BETWEEN 40 AND 99",
        (1 - rank, run, rank)))
    return rows[len(rows) // 2]

v = json.load(open("validate.json"))
print("validate: accuracy", v["accuracy"], "cases", len(v["cases"]), "controls", v["controls"],
      "false positives", v["false_positives"])
assert len(v["cases"]) == 8, v
# A run in which a rank measurably waited for a CPU (another process on its core; the blame's
# `environment` says how long) is blamed on the environment, as attribute is built to: validate
# counts it neither a hit nor a miss. Beside a busy core the 20 ms spin on rank 1 shares the
# other core with rank 0 spinning in its all-reduce and waits about half its phase for a CPU
# (labelled in 2 of 24 such cases, twice in one sweep once). Every case names the injected rank
# and phase; one that is not a hit is labelled the environment, and the label must be backed by
# the wait its rank recorded (the raw provenance, not the analysis).
def recorded_wait_ms(run, rank):
    """The median over the delayed steps of the rank's recorded CPU wait per step (ms)."""
    (text,) = db.execute("SELECT value FROM provenance WHERE run_id = ? AND rank = ? "
                         "AND key = 'sched.step_wait_ns'", (run, rank)).fetchone()
    waits = sorted(int(ns) / 1e6 for step, ns in (p.split(":") for p in text.split(","))
                   if 40 <= int(step) <= 99)
    return waits[len(waits) // 2]

environment = [c for c in v["cases"] if not c["hit"]]
for c in v["cases"]:
    assert c["blamed"] and (c["blamed"]["rank"], c["blamed"]["phase"]) == \
        (c["injected"]["rank"], c["injected"]["phase"]), c
for c in environment:
    waited = recorded_wait_ms(c["run"], c["injected"]["rank"])
    print(f"environment: run {c['run']} ({c['config']}): rank {c['injected']['rank']} recorded "
          f"{waited:.2f} ms of CPU wait per step, blamed {c['blamed']['ms']:.2f} ms")
    assert c["blamed"]["environment"], c
    # The analysis labels a wait beyond its peers' of at least half the cost; its own recorded
    # wait is at least that (the peers' counted wait and the what-if cost differ a little).
    assert waited >= 0.4 * c["blamed"]["ms"], (c, waited)
assert v["hits"] + len(environment) == 8, v
assert v["controls"] == 2 and v["false_positives"] == 0, v
for c in v["cases"]:
    # Never less than 75 % of the delay. On a loaded host a sleep can wake up late and a spin be
    # preempted, so what a delay costs can exceed what was asked (seen: +50 % for 5 ms, and
    # 5 -> 15.9 ms on a rank sharing its core with a CPU hog): above 1.6 x the delay, the blame
    # must match what the delay cost by the raw events.
    if c["hit"]:
        ms, asked = c["blamed"]["ms"], c["injected"]["ms"]
        cost = measured_cost(c["run"], c["injected"]["rank"])
        assert 0.75 * asked <= ms <= max(1.6 * asked, 1.25 * cost), (c, cost)

growth = sorted(float(l.split()[1]) for l in open("growth.txt"))
assert len(growth) == 60, len(growth)
injected, cost = growth[len(growth) // 10], growth[len(growth) // 2]
a = json.load(open("attribute.json"))
culprit = a["summary"]["culprit"]
print(f"attribute: {culprit}; from the events: delay injected {injected:.2f} ms "
      f"(10th percentile; shortest {growth[0]:.2f}), median cost {cost:.2f} ms")
assert culprit["rank"] == 1 and culprit["phase"] == "compute>MPI_Allreduce", culprit
assert abs(injected - 10) <= 2.5, injected  # the interposer spent the delay asked for
# Blame measures what the delay cost (on a quiet host that is the 10 ms asked; where the rank
# wakes late from its sleep behind another process it costs more, and blame says so).
assert abs(culprit["excess_ms"] - cost) <= 0.25 * cost, (culprit, cost)
e = json.load(open("explain.json"))
assert len(e["explanations"]) == 4, e
for x in e["explanations"]:
    first = [c for c in x["components"] if c.get("first_divergence")]
    print("explain:", x["candidate"], "->", x["culprit"]["rank"], x["culprit"]["phase"],
          round(x["culprit"]["excess_ms"], 2), "ms")
    assert x["culprit"]["phase"] == "compute>MPI_Allreduce", x["culprit"]
    assert x["culprit"]["rank"] == (1 if "rank1" in x["candidate"] else 0), x["culprit"]
    assert len(first) == 1 and first[0]["rank"] == x["culprit"]["rank"], x
print("ok")
PY
# The reduction of a run measured under the interposer (methodology.md, "Reduction"): its
# schedule keeps the measured names ("compute>MPI_Allreduce"), which the simulator replays with
# no MPI program to interpose. It was refused by the planner (a PMPI phase without instrument
# "pmpi") with keys of a manifest the user never wrote.
BASE=$(q v.db "SELECT r.id FROM runs r JOIN configurations c ON c.id = r.config_id
               WHERE c.label = 'baseline' LIMIT 1")
"$BIN/culprit" reduce --db v.db "$BASE" "$RUN" -o reduced.toml --repetitions 6 --json \
  >reduce.json 2>reduce.log || { cat reduce.log; fail "culprit reduce of a PMPI run"; }
"$BIN/culprit" run reduced.toml --db reduced.db 2>reduced-run.log ||
  { tail -5 reduced-run.log; fail "the reduced manifest of a PMPI run did not run"; }
"$BIN/culprit" explain --db reduced.db --json >reduced-explain.json
python3 - <<'PY'
import json
r = json.load(open("reduce.json"))
# The delay is a cause; a hiccup of a few steps may be another (LAMMPS's atom exchange): one in
# a phase the model left out (MPI_Sendrecv, in some steps only) is said, not injected.
delay = [c for c in r["causes"] if (c["rank"], c["phase"]) == (1, "compute>MPI_Allreduce")]
assert len(delay) == 1, r
for miss in r["not_reproduced"]:
    print("reduce: not reproduced:", miss)
x = {e["candidate"]: e for e in json.load(open("reduced-explain.json"))["explanations"]}
cause = x["version=" + delay[0]["label"]]
assert (cause["culprit"]["rank"], cause["culprit"]["phase"]) == (1, "compute>MPI_Allreduce"), cause
# The reduced cause reproduces the change it was reduced from (a 10 ms delay, simulated).
assert abs(cause["delta_ms"] - r["delta_ms"]) <= 0.25 * r["delta_ms"], (cause["delta_ms"], r)
print(f"reduce: {r['delta_ms']:.2f} ms of the PMPI pair, {cause['delta_ms']:.2f} ms by "
      f"{delay[0]['label']}")
PY
echo PASS
