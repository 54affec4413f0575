# Shared by the Slurm integration scripts. Usage: source common.sh BIN_DIR DATA_DIR SCRATCH SRC
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
take_bin_data_work "$@"
SRC=$4
eval "$("$SRC/scripts/slurm-local" env)"
export SLURM_CONF
unset SLURM_JOB_ID SLURM_NTASKS CULPRIT_LAUNCHER

# wait_job ID [SECONDS]: until squeue no longer lists the job (or its array tasks).
wait_job() {
  local id=$1 limit=${2:-120}
  for _ in $(seq 1 $((limit * 4))); do
    [[ -z "$(squeue --noheader --array --jobs="$id" 2>/dev/null)" ]] && return 0
    sleep 0.25
  done
  fail "job $id still queued after ${limit}s: $(squeue --array --jobs="$id")"
}

# Keys and verdicts scripts compare: sorted (config, repetition) of the ok runs.
run_keys() {
  "$CULPRIT" runs --db "$1" --json |
    python3 -c 'import json,sys; r=json.load(sys.stdin); print(sorted((x["config"], x["repetition"], x["status"]) for x in r))'
}
verdicts() {
  "$CULPRIT" compare --db "$1" --json "$2" |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(sorted((c["candidate"]["label"], c["verdict"]) for c in d["comparisons"]))'
}
