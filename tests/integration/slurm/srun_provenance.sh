#!/usr/bin/env bash
# `culprit run` inside an sbatch script launches with srun (launcher auto) and records the Slurm
# provenance; a 2-rank culprit-step run under srun ingests like the same run under mpirun;
# `culprit bisect` inside an allocation runs its measurements with srun too.
source "$(dirname "$0")/common.sh"
sed 's/^repetitions = 3/repetitions = 1/; s/^name = "launch-small"/name = "slurm-small"/' \
  "$DATA/launch/small.toml" > small.toml

cat > job.sh <<EOF2
#!/bin/bash
set -eu
'$CULPRIT' run '$WORK/small.toml' --db '$WORK/srun.db'
'$CULPRIT' run '$WORK/small.toml' --db '$WORK/forced.db' --launcher mpirun
EOF2
chmod +x job.sh
JOB=$(sbatch --parsable --ntasks=2 --output="$WORK/job.out" job.sh)
wait_job "$JOB"
grep -q "2 ok, 0 not ok" job.out || fail "culprit run inside sbatch: $(cat job.out)"
expect_eq "launcher inside the allocation" "$(q srun.db 'SELECT DISTINCT launcher FROM runs')" srun
expect_eq "--launcher mpirun inside it" "$(q forced.db 'SELECT DISTINCT launcher FROM runs')" mpirun
prov() { q srun.db "SELECT DISTINCT value FROM provenance WHERE rank = -1 AND key = '$1'"; }
expect_eq "slurm.job_id" "$(prov slurm.job_id)" "$JOB"
expect_eq "slurm.nodes" "$(prov slurm.nodes)" "$(hostname -s)"
expect_eq "slurm.num_nodes" "$(prov slurm.num_nodes)" 1
expect_eq "launch.mpi_type" "$(prov launch.mpi_type)" pmix
[[ "$(prov launch.command_line)" == '["srun","--ntasks=2",'* ]] || fail "command line: $(prov launch.command_line)"
expect_eq "mpirun provenance" \
  "$(q forced.db "SELECT DISTINCT value FROM provenance WHERE key = 'launch.mpi_type'")" mpirun

# The same runs under mpirun outside Slurm: the same shape lands in the store.
"$CULPRIT" run small.toml --db mpirun.db 2> mpirun.log || fail "mpirun: $(cat mpirun.log)"
shape() {
  q "$1" "SELECT c.label, r.status, r.steps_measured,
            (SELECT count(*) FROM run_events e WHERE e.run_id = r.id),
            (SELECT count(DISTINCT rank) FROM clock_models m WHERE m.run_id = r.id),
            (SELECT count(*) FROM steps s WHERE s.run_id = r.id),
            (SELECT count(DISTINCT value) FROM provenance p WHERE p.run_id = r.id AND p.key = 'host')
          FROM runs r JOIN configurations c ON c.id = r.config_id ORDER BY c.label, r.repetition"
}
expect_eq "srun run vs mpirun run" "$(shape srun.db)" "$(shape mpirun.db)"
[[ "$(shape srun.db)" == *"ok|"* ]] || fail "no ok run: $(shape srun.db)"
"$CULPRIT" attribute --db srun.db --json 1 > /dev/null 2> attribute.log ||
  fail "attribute on the srun runs: $(cat attribute.log)"

# culprit bisect from inside an allocation: its runs go through srun.
cat > bisect.toml <<EOF2
[experiment]
name = "slurm-bisect"
repetitions = 4
warmup_steps = 1
steps = 3
seed = 5
timeout_s = 60

[stats]
margin = 0.05
max_repetitions = 8

[baseline]
ranks = 2
backend = "cpu"

$(sleep_model_toml 64 64)

[versions.good]
model = { compute_scale = 1.0 }

[versions.bad]
inject = { delays = [{ rank = 1, phase = "gemm.fwd", layer = 0, ms = 150, mode = "sleep" }] }

[bisect]
versions = ["good", "bad"]
EOF2
"$CULPRIT" plan bisect.toml > /dev/null 2> plan.log || fail "bisect manifest: $(cat plan.log)"
cat > bisect.sh <<EOF2
#!/bin/bash
exec '$CULPRIT' bisect '$WORK/bisect.toml' --db '$WORK/bisect.db' --json
EOF2
chmod +x bisect.sh
JOB=$(sbatch --parsable --ntasks=2 --output="$WORK/bisect.out" bisect.sh)
wait_job "$JOB"
expect_eq "bisect launcher" "$(q bisect.db 'SELECT DISTINCT launcher FROM runs')" srun
expect_eq "bisect job" "$(q bisect.db "SELECT DISTINCT value FROM provenance WHERE key = 'slurm.job_id'")" "$JOB"
grep -q '"first_bad":"bad"' bisect.out || fail "bisect result: $(cat bisect.out)"
echo "ok: srun inside sbatch, provenance of job $JOB, same shape as mpirun"
