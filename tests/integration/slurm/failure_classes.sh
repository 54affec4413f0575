#!/usr/bin/env bash
# A workload that hangs past experiment.timeout_s and one that exits 1 are classified the same
# under srun (inside an sbatch allocation) as under mpirun: timeout and failed; the real run ok.
source "$(dirname "$0")/common.sh"
# timeout.toml with more room: starting 2 ranks on a loaded 2-core machine can take 3 s.
sed 's/^timeout_s = 3/timeout_s = 8/' "$DATA/launch/timeout.toml" > timeout.toml
MANIFEST="$WORK/timeout.toml"
set +e
"$CULPRIT" run "$MANIFEST" --db mpirun.db 2> mpirun.log
MPIRUN_RC=$?
set -e
cat > job.sh <<EOF2
#!/bin/bash
exec '$CULPRIT' run '$MANIFEST' --db '$WORK/srun.db'
EOF2
chmod +x job.sh
JOB=$(sbatch --parsable --ntasks=2 --output="$WORK/job.out" job.sh)
wait_job "$JOB"
classes() { q "$1" "SELECT c.label || '=' || r.status FROM runs r JOIN configurations c ON c.id = r.config_id ORDER BY c.label"; }
expect_eq "launcher" "$(q srun.db 'SELECT DISTINCT launcher FROM runs')" srun
expect_eq "classes under srun vs mpirun" "$(classes srun.db)" "$(classes mpirun.db)"
expect_eq "classes" "$(classes srun.db | tr '\n' ' ')" "baseline=ok version=broken=failed version=hang=timeout "
expect_eq "mpirun exit code" "$MPIRUN_RC" 5
JOB_STATE=$(scontrol show job "$JOB" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
expect_eq "the sbatch job failed with the sweep's exit code" \
  "$JOB_STATE $(scontrol show job "$JOB" | sed -n 's/.* ExitCode=\([0-9:]*\).*/\1/p')" "FAILED 5:0"
echo "ok: failed/timeout classified alike under srun and mpirun"
