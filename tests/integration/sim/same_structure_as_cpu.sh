#!/usr/bin/env bash
# One resolved configuration run by culprit-sim (backend sim) and by culprit-step under mpirun
# (backend cpu, sleep compute, 4 ranks) gives run files with the same event names,
# identifiers and step structure. Exits 77 (skipped) while culprit-step is not built.
# Usage: same_structure_as_cpu.sh BIN_DIR DATA_DIR WORK_DIR MPIRUN
source "$(dirname "$0")/common.sh"
bin=$1 data=$2 work=$3 mpirun=$4
if [ ! -x "$bin/culprit-step" ]; then
  echo "SKIP: $bin/culprit-step is not built" >&2
  exit 77
fi
fresh_dir "$work"
cp "$data/structure-4.json" "$work/sim.json"
sed 's/"backend": "sim"/"backend": "cpu"/' "$data/structure-4.json" > "$work/cpu.json"
grep -q '"backend": "cpu"' "$work/cpu.json" || fail "could not switch the backend to cpu"
grep -q '"compute": "sleep"' "$work/cpu.json" || fail "the shared configuration must use sleep"

"$bin/culprit-sim" --config "$work/sim.json" --out "$work/sim.db"
"$mpirun" --allow-run-as-root --oversubscribe -np 4 \
  "$bin/culprit-step" --config "$work/cpu.json" --out "$work/cpu.db"

structure_of "$work/sim.db" > "$work/sim.structure"
structure_of "$work/cpu.db" > "$work/cpu.structure"
[ -s "$work/sim.structure" ] || fail "the simulated run file has no events"
diff "$work/sim.structure" "$work/cpu.structure" > "$work/structure.diff" || {
  head -20 "$work/structure.diff" >&2
  fail "culprit-sim and culprit-step disagree on the step structure"
}
for key in ranks warmup_steps steps model_flops_per_step parameter_bytes; do
  q="SELECT value FROM meta WHERE key='$key'"
  [ "$(sqlite3 "$work/sim.db" "$q")" = "$(sqlite3 "$work/cpu.db" "$q")" ] ||
    fail "meta.$key differs between culprit-sim and culprit-step"
done
echo "PASS: $(wc -l < "$work/sim.structure") identical event identities"
