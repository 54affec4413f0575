#!/usr/bin/env bash
# An unmodified MPI program of our own (steps_program.c: no culprit header, no culprit call) run
# by `culprit run` with instrument = "pmpi": the run file's collectives match across ranks (the
# same (step, seq, name) on every rank, a duplicated communicator named apart from the world),
# the waits and compute phases are there, steps past the count are kept but get no step event,
# and culprit's step times equal the program's own (MPI_Wtime at each MPI_Pcontrol(1) marker,
# latest over the ranks, printed on stdout) within 1 % (all but the steps beside two preempted
# boundaries; the total within 0.5 %), with rank 1's raw clock skewed by
# 500 ms and 100 ppm (the clock models from the ping-pong at MPI_Init/MPI_Finalize undo it).
# Usage: own_program.sh BIN_DIR DATA_DIR WORK_DIR PROGRAM
source "$(dirname "$0")/common.sh"
PROGRAM=$4
cat >manifest.toml <<TOML
[experiment]
name = "pmpi-own"
repetitions = 1
warmup_steps = 2
steps = 20
timeout_s = 120

[baseline]
version = "app"
ranks = 2

[versions.app]
command = ["$PROGRAM", "26", "20"]
instrument = "pmpi"
step_rule = "pcontrol"
# Rank 1's raw clock is 500 ms ahead and runs 100 ppm fast: the clock models must undo it.
inject = { clock_skews = [{ rank = 1, offset_ms = 500, drift_ppm = 100 }] }
TOML
"$BIN/culprit" run manifest.toml --db s.db >run.log 2>&1 || { cat run.log; fail "culprit run"; }
[[ $(q s.db "SELECT status FROM runs") == ok ]] || fail "run not ok: $(q s.db "SELECT error FROM runs")"
RUN=$(q s.db "SELECT id FROM runs")
ev() { q s.db "SELECT $1 FROM run_events WHERE run_id=$RUN AND $2"; }

# Provenance: the application's own command line and a hash of its binary.
q s.db "SELECT value FROM provenance WHERE run_id=$RUN AND rank=-1 AND key='command_line'" |
  grep -q "steps_program 26 20" || fail "command line not in provenance"
q s.db "SELECT value FROM provenance WHERE run_id=$RUN AND rank=-1 AND key='binary_hash'" |
  grep -q '^fnv1a64:' || fail "binary hash not in provenance"
[[ $(q s.db "SELECT value FROM run_meta WHERE run_id=$RUN AND key='source'") == pmpi ]] ||
  fail "meta.source"

# Clock models from the ping-pong at MPI_Init and MPI_Finalize: one per rank; the skew of rank
# 1 is undone within the stated uncertainty (checked through the step times below).
[[ $(q s.db "SELECT count(*) FROM clock_models WHERE run_id=$RUN") == 2 ]] || fail "clock models"
echo "clock model rank 1: $(q s.db "SELECT offset_ns, drift_ppm, start_rtt_ns, end_rtt_ns
                                    FROM clock_models WHERE run_id=$RUN AND rank=1")"
[[ $(q s.db "SELECT abs(offset_ns + 5e8) < 1e7 FROM clock_models WHERE run_id=$RUN AND rank=1") == 1 ]] ||
  fail "rank 1's 500 ms offset not recovered"

# Collectives: per step 1 MPI_Allreduce on the world and 1 MPI_Bcast on the duplicate, each on
# both ranks with the same (step, seq); seq counts per communicator within the step.
unmatched=$(q s.db "SELECT count(*) FROM (SELECT step, seq, name FROM run_events
  WHERE run_id=$RUN AND kind='collective' GROUP BY step, seq, name HAVING count(DISTINCT rank) != 2)")
[[ $unmatched == 0 ]] || fail "$unmatched collective instances not on both ranks"
[[ $(ev "count(*)" "kind='collective' AND name='MPI_Allreduce' AND step BETWEEN 0 AND 25") == 52 ]] ||
  fail "MPI_Allreduce count"
[[ $(ev "count(*)" "kind='collective' AND name='MPI_Bcast@c1.r0' AND seq=0 AND step BETWEEN 0 AND 25") == 52 ]] ||
  fail "MPI_Bcast on the duplicated communicator: $(ev "group_concat(DISTINCT name)" "kind='collective'")"
[[ $(ev "count(*)" "kind='collective' AND name='MPI_Allreduce' AND seq != 0 AND step >= 0") == 0 ]] ||
  fail "MPI_Allreduce seq is not 0 within each step"
[[ $(ev "count(*)" "kind='collective' AND name='MPI_Barrier' AND step = -1") == 2 ]] ||
  fail "the barrier before the first marker is step -1"
[[ $(ev "min(bytes)" "name='MPI_Allreduce'") == 8 ]] || fail "MPI_Allreduce bytes"
# Waits and compute phases named after the call that ends them.
[[ $(ev "count(*)" "kind='host' AND name='MPI_Wait' AND step BETWEEN 0 AND 25") == 52 ]] || fail "MPI_Wait"
for phase in 'compute>MPI_Wait' 'compute>MPI_Allreduce' 'compute>MPI_Pcontrol'; do
  [[ $(ev "count(*)" "kind='compute' AND name='$phase' AND step = 5") == 2 ]] || fail "$phase"
done
# Steps: warm-up + steps = 22 kept with a step event; steps 22..25 recorded but unused.
[[ $(ev "count(DISTINCT step)" "kind='step'") == 22 ]] || fail "step events: $(ev "count(DISTINCT step)" "kind='step'")"
[[ $(ev "count(*)" "kind='collective' AND step >= 22") -gt 0 ]] || fail "steps past the count not kept"
# Each rank's CPU wait per kept step (schedstat), for the environment check: steps 0..21.
for rank in 0 1; do
  waits=$(q s.db "SELECT value FROM provenance WHERE run_id=$RUN AND rank=$rank AND key='sched.step_wait_ns'")
  [[ $(tr ',' '\n' <<<"$waits" | cut -d: -f1 | paste -sd' ') == "$(seq -s' ' 0 21)" ]] ||
    fail "rank $rank: sched.step_wait_ns is not steps 0..21: '$waits'"
done

# Step times against the program's own timing (rank 0, stdout).
q s.db "SELECT stdout_tail FROM runs WHERE id=$RUN" | awk '$1 == "step" {print $2, $3}' >own.txt
q s.db "SELECT step, time_ms FROM steps WHERE run_id=$RUN AND warmup=0" | tr '|' ' ' >culprit.txt
[[ $(wc -l <culprit.txt) == 20 ]] || fail "20 steady steps expected"
python3 - <<'PY'
# Both clocks read the same host clock a few microseconds apart (culprit inside MPI_Pcontrol, the
# program at MPI_Wtime just after it), so a rank preempted between the two reads moves one step
# boundary: the step before it grows and the step after it shrinks by the same amount. A wrong
# step rule or clock model moves every step; one preemption moves two. Hence: the totals agree
# within 0.5 %, the median step within 1 %, and all but the steps beside two boundaries (16 of 20)
# within 1 %.
own = dict(l.split() for l in open("own.txt"))
ours = [(s, float(t)) for s, t in (l.split() for l in open("culprit.txt"))]
errors = sorted(abs(t - float(own[s])) / float(own[s]) for s, t in ours)
med = lambda v: sorted(v)[len(v) // 2]
own_total = sum(float(own[s]) for s, _ in ours)
our_total = sum(t for _, t in ours)
own_median = med([float(own[s]) for s, _ in ours])
our_median = med([t for _, t in ours])
within = sum(e <= 0.01 for e in errors)
print(f"step times: culprit median {our_median:.3f} ms, program {own_median:.3f} ms; totals "
      f"{our_total:.3f} / {own_total:.3f} ms; per-step relative error median "
      f"{errors[len(errors) // 2]:.5f}, max {errors[-1]:.5f}; {within} of {len(errors)} within 1 %")
assert abs(our_total - own_total) / own_total <= 0.005, "the steps' total differs by > 0.5 %"
assert abs(our_median - own_median) / own_median <= 0.01, "median step time differs by > 1 %"
assert within >= len(errors) - 4, "more steps differ by > 1 % than two preempted boundaries explain"
PY

# A buffer too small for the run: events past it are dropped and counted, the run file is
# still written (the same program under mpirun directly, the settings in the environment).
flags=(--bind-to none)
[[ $(id -u) -eq 0 ]] && flags+=(--allow-run-as-root)
mpirun "${flags[@]}" -np 2 -x LD_PRELOAD="$BIN/../lib/libculprit_pmpi.so" -x CULPRIT_PMPI_EVENTS=50 \
  -x CULPRIT_RUN_FILE="$WORK/small.db" "$PROGRAM" 8 2 >small.out 2>small.err
grep -q "events dropped" small.err || fail "no word of dropped events: $(cat small.err)"
[[ $(q small.db "SELECT count(*) FROM events WHERE rank=0") == 50 ]] || fail "buffer capacity"
[[ $(q small.db "SELECT value > 0 FROM provenance WHERE rank=0 AND key='events_dropped'") == 1 ]] ||
  fail "events_dropped not in provenance"
echo PASS
