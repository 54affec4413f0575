#!/usr/bin/env bash
# `culprit run` with [stats] sampling = "adaptive" (issue 37): runs are added to inconclusive
# candidates in interleaved blocks up to max_repetitions, and what run reports as decided is
# what `compare` says of the stored runs (one judgement, alpha over the planned looks).
# The same manifest with fixed sampling stops at the planned 3 runs each, inconclusive.
# Usage: adaptive_run.sh BIN_DIR DATA_DIR WORK_DIR  (DATA_DIR: tests/data)
source "$(dirname "$0")/common.sh"
take_bin_data_work "$@"
manifest="$DATA/launch/adaptive-sim.toml"

"$CULPRIT" run "$manifest" --db a.db --json > run.json 2> run.err ||
  fail "adaptive run failed: $(cat run.err)"
"$CULPRIT" compare --db a.db --json > compare.json || fail "compare failed"

# The oracle: ok runs per configuration, counted in the store by SQL.
runs_of() {
  q a.db "SELECT count(*) FROM runs r JOIN configurations c ON c.id = r.config_id
          WHERE c.label = '$1' AND r.status = 'ok'"
}
expect_eq "v1 runs (more than planned)" "$([ "$(runs_of baseline)" -gt 3 ] && echo yes)" yes
expect_eq "v2 runs (more than planned)" "$([ "$(runs_of version=v2)" -gt 3 ] && echo yes)" yes
added=$(json run.json 'd["sampling"]["added"]')
expect_eq "added runs = stored runs - planned" "$added" \
  "$(( $(q a.db "SELECT count(*) FROM runs WHERE status = 'ok'") - 9 ))"

# Every candidate: run's decision = compare's verdict, runs and level.
python3 - run.json compare.json <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["sampling"]
compare = {c["candidate"]["label"]: c for c in json.load(open(sys.argv[2]))["comparisons"]}
assert run["looks"] == 4, run  # 1 + ceil((12 - 3) / 3)
assert abs(run["alpha_per_comparison"] - 0.05 / 4) < 1e-12, run
for d in run["decisions"]:
    c = compare[d["config"]]
    assert d["verdict"] == c["verdict"], (d, c["verdict"])
    assert d["candidate_runs"] == c["candidate"]["n"], (d, c["candidate"]["n"])
    assert d["baseline_runs"] == c["baseline"]["n"], (d, c["baseline"]["n"])
    assert abs(c["alpha"] - run["alpha_per_comparison"]) < 1e-12, (c["alpha"], run)
    if d["verdict"] == "inconclusive":
        assert d["candidate_runs"] == 12 and d["reason"].startswith("at max_repetitions"), d
    else:
        assert d["reason"] == "verdict reached", d
v2 = next(d for d in run["decisions"] if d["config"] == "version=v2")
assert v2["verdict"] == "regressed" and v2["candidate_runs"] > 3, v2
print("decisions:", [(d["config"], d["verdict"], d["candidate_runs"]) for d in run["decisions"]])
PY
"$CULPRIT" run "$manifest" --db a.db > text.out 2> text.err || fail "rerun failed"
expect_log "text names the level" "judged at alpha 0.0125 \(0.05 over 4 planned looks\)" text.out
expect_log "text gives v2's decision" "version=v2 +regressed" text.out
"$CULPRIT" compare --db a.db > compare.txt
expect_log "compare's heading names the planned looks" "0.05 split over 4 planned looks" compare.txt

# Fixed sampling: exactly the planned runs, and the first look cannot decide.
sed 's/^sampling = "adaptive"/sampling = "fixed"/' "$manifest" > fixed.toml
"$CULPRIT" run fixed.toml --db f.db --json > fixed.json 2> fixed.err || fail "fixed run failed"
expect_eq "fixed: sampling null" "$(json fixed.json 'd["sampling"]')" None
expect_eq "fixed: 9 runs" "$(q f.db "SELECT count(*) FROM runs WHERE status = 'ok'")" 9
expect_eq "fixed: v2 inconclusive at 3 runs" \
  "$("$CULPRIT" compare --db f.db --json | python3 -c 'import json,sys; print([c["verdict"] for c in json.load(sys.stdin)["comparisons"]])')" \
  "['inconclusive', 'inconclusive']"
echo "PASS: adaptive sampling in culprit run"
