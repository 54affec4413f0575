# Shared by the Slurm integration scripts. Usage: source common.sh BIN_DIR DATA_DIR SCRATCH SRC
set -euo pipefail
BIN=$1
DATA=$2
WORK=$3
SRC=$4
CULPRIT="$BIN/culprit"
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"
eval "$("$SRC/scripts/slurm-local" env)"
export SLURM_CONF
unset SLURM_JOB_ID SLURM_NTASKS CULPRIT_LAUNCHER

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
q() { sqlite3 -batch -noheader "$1" "$2"; }
expect_eq() {  # expect_eq WHAT ACTUAL EXPECTED
  [[ "$2" == "$3" ]] || fail "$1: got '$2', expected '$3'"
}
json() {  # json FILE PYTHON_EXPR (the document is `d`)
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

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
