# Shared helpers for the culprit-step integration tests (sourced by each test script).
# Usage of a test: <test>.sh BIN_DIR MPIRUN WORK_DIR
source "$(dirname "${BASH_SOURCE[0]}")/../common.sh"

BIN_DIR=$1
MPIRUN=$2
WORK=$3
STEP="$BIN_DIR/culprit-step"
fresh_dir "$WORK"

# mpirun with the flags this machine needs: root needs --allow-run-as-root, more ranks than
# cores needs --oversubscribe. Ranks are not pinned: on a shared CI machine a pinned rank waits
# for its core while another core is idle, which only adds noise to the timings checked here.
mpi() {
  local np=$1
  shift
  local flags=(--bind-to none)
  [[ $(id -u) -eq 0 ]] && flags+=(--allow-run-as-root)
  ((np > $(nproc))) && flags+=(--oversubscribe)
  "$MPIRUN" "${flags[@]}" -np "$np" "$@"
}

# Median of the numbers on stdin (one per line).
median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) {print "nan"; exit} m=int((NR+1)/2); if (NR%2) print v[m]; else print (v[m]+v[m+1])/2}'; }

# check_between NAME VALUE LO HI
check_between() {
  awk -v v="$2" -v lo="$3" -v hi="$4" 'BEGIN {exit !(v >= lo && v <= hi)}' ||
    fail "$1 = $2, expected within [$3, $4]"
  echo "ok: $1 = $2 (within [$3, $4])"
}

# SQL for the aligned begin/end of event e joined with its clock model c (docs/schema.md).
ALIGNED_BEGIN="(e.begin_ns + c.offset_ns + c.drift_ppm * 1e-6 * (e.begin_ns - c.ref_ns))"
ALIGNED_END="(e.end_ns + c.offset_ns + c.drift_ppm * 1e-6 * (e.end_ns - c.ref_ns))"
