#!/usr/bin/env bash
# culprit-step opens an NVTX push/pop range around each phase instance, named by
# runfile::phase_range_name from the instance's event identifiers, and says so in run meta
# phase_ranges; `culprit explain` names the blamed instance by that range in its ncu command
# (why.attach_explain). A hand-written NVTX tool (nvtx_log.c, loaded the way ncu and nsys are:
# NVTX_INJECTION64_PATH) logs the ranges of 2 sleep-mode ranks with overlapped all-reduces; the
# oracle builds each event's name from the run file with SQL, and the two lists must be equal.
# Usage: nvtx_ranges.sh BIN_DIR MPIRUN WORK_DIR NVTX_TOOL
source "$(dirname "$0")/common.sh"
TOOL=$4

cat >"$WORK/config.json" <<'JSON'
{"experiment": "step-nvtx", "config_label": "nvtx", "seed": 5,
 "backend": "cpu", "ranks": 2, "warmup_steps": 1, "steps": 3,
 "model": {"layers": 2, "microbatches": 2, "tokens": 64, "hidden": 64, "buckets": 2,
           "overlap": true, "dtype": "fp32", "compute": "sleep", "flops_per_s": 2e10}}
JSON
DB="$WORK/run.db"
mkdir "$WORK/nvtx"
NVTX_INJECTION64_PATH=$TOOL CULPRIT_NVTX_LOG=$WORK/nvtx \
  mpi 2 -x NVTX_INJECTION64_PATH -x CULPRIT_NVTX_LOG "$STEP" --config "$WORK/config.json" --out "$DB"
expect_eq "meta.phase_ranges" "$(q "$DB" "SELECT value FROM meta WHERE key='phase_ranges'")" nvtx

for rank in 0 1; do
  mapfile -t logs < <(compgen -G "$WORK/nvtx/rank$rank-*.log" || true)
  [[ ${#logs[@]} == 1 ]] || fail "rank $rank: expected one NVTX log, got: $(ls "$WORK/nvtx")"
  # Every range is closed before the next opens: a phase instance is never inside another.
  awk '/^push /{if (depth++) exit 1} /^pop$/{if (!depth--) exit 1} END{exit depth != 0}' \
    "${logs[0]}" || fail "rank $rank: NVTX ranges nest or stay open: $(head -5 "${logs[0]}")"
  sed -n 's/^push //p' "${logs[0]}" | sort > "$WORK/ranges.$rank"
  q "$DB" "SELECT name || ' step ' || step
             || CASE WHEN microbatch >= 0 THEN ' microbatch ' || microbatch ELSE '' END
             || CASE WHEN layer >= 0 THEN ' layer ' || layer ELSE '' END
             || CASE WHEN seq >= 0 THEN ' seq ' || seq ELSE '' END
           FROM events WHERE rank = $rank AND kind != 'step'" | sort > "$WORK/events.$rank"
  # 4 steps x (2 microbatches x 2 layers x 3 GEMMs + 2 all-reduces + optimizer)
  expect_eq "rank $rank ranges" "$(wc -l < "$WORK/ranges.$rank")" 60
  diff "$WORK/events.$rank" "$WORK/ranges.$rank" > "$WORK/diff.$rank" ||
    fail "rank $rank: NVTX ranges differ from the events: $(head -6 "$WORK/diff.$rank")"
  echo "ok: rank $rank: 60 NVTX ranges, one per event, named by its identifiers"
done
