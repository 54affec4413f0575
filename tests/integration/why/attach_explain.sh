#!/usr/bin/env bash
# The why chain on a stored run: a 4-rank simulated experiment (one run a configuration, rank 3
# gemm.bwd.wgrad delayed), the real Nsight Compute exports of shared/counters attached to the
# blamed rank (gemm_vectorized.csv to the baseline run, gemm_naive.csv to the candidate run),
# then `culprit explain` carries the why block and the next capture; attaching changes no step
# time; bad input exits 2 and stores nothing; attached telemetry decides clock_throttling.
# Usage: attach_explain.sh BIN_DIR DATA_DIR WORK_DIR COUNTERS_DIR
set -euo pipefail
bin=$1 data=$2 work=$3 counters=$4
ncu=$counters/roofline-profiler/ncu
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$bin/culprit" run "$data/analysis/why-sim-4.toml" --db w.db > /dev/null
"$bin/culprit" runs --db w.db --json > runs.json
read -r base cand < <(python3 -c '
import json; r = json.load(open("runs.json"))
print(next(x["id"] for x in r if x["config"] == "baseline"),
      next(x["id"] for x in r if x["config"] != "baseline"))')
sqlite3 w.db "SELECT run_id, step, time_ms FROM steps ORDER BY 1, 2" > steps.before
"$bin/culprit" import "$ncu/gemm_vectorized.csv" --format ncu --db w.db --attach "$base:3" \
  --json > attach-base.json
"$bin/culprit" import "$ncu/gemm_naive.csv" --format ncu --db w.db --attach "$cand" --json \
  > attach-cand.json
sqlite3 w.db "SELECT run_id, step, time_ms FROM steps ORDER BY 1, 2" > steps.after
cmp steps.before steps.after  # counters are evidence, never step times
# Bad input: exit 2, nothing more stored.
rows=$(sqlite3 w.db "SELECT count(*) FROM run_kernel_counters")
printf '==PROF== nothing\n' > empty.csv
set +e
"$bin/culprit" import empty.csv --format ncu --db w.db --attach "$cand" 2> empty.err; rc=$?
"$bin/culprit" import x.ncu-rep --format ncu --db w.db --attach "$cand" 2> rep.err; rc2=$?
set -e
[ "$rc" = 2 ] && [ "$rc2" = 2 ]
grep -q "empty.csv:1: no ncu CSV header" empty.err
grep -q "ncu --import x.ncu-rep --csv --page details" rep.err
[ "$(sqlite3 w.db "SELECT count(*) FROM run_kernel_counters")" = "$rows" ]
"$bin/culprit" explain --db w.db --json > explain.json
"$bin/culprit" explain --db w.db > explain.txt
python3 - "$base" "$cand" <<'PY'
import json, sys
base, cand = int(sys.argv[1]), int(sys.argv[2])
a = json.load(open("attach-cand.json"))
assert a["run_id"] == cand and a["rank"] == 3, a  # the blamed rank by default
assert a["launches"] == 1 and a["metrics"] == 12 and len(a["kernels"]) == 1, a
x = json.load(open("explain.json"))["explanations"][0]
assert x["culprit"]["rank"] == 3 and x["culprit"]["phase"] == "gemm.bwd.wgrad", x["culprit"]
w = x["why"]
assert set(w) == {"kernel", "baseline", "candidate", "explanations", "reconciliation"}, w.keys()
assert "gemm_naive_kernel" in w["kernel"] and "gemm_vectorized" in w["baseline"]["kernel"], w
status = {e["name"]: e["status"] for e in w["explanations"]}
assert status["hbm_traffic"] == "refuted", status
assert status["different_kernel"] == "supported", status
for e in w["explanations"]:
    for ev in e["evidence"]:
        assert set(ev) == {"metric", "baseline", "candidate", "numerator", "denominator", "unit"}
r = w["reconciliation"]
assert abs(r["change_ms"] - 7.486144) < 1e-9, r
assert abs(r["blamed_excess_ms"] - x["culprit"]["excess_ms"]) < 1e-9, r
assert x["why_against"] == "baseline run %d rank 3" % base, x["why_against"]
n = x["next_capture"]
assert n.startswith("ncu --clock-control none --kernel-name regex:'gemm_naive_kernel' "), n
assert "--launch-skip" in n and "--csv --page details" in n, n
assert x["telemetry_capture"].startswith("nsys profile --gpu-metrics-devices="), x
print("ok: counters attached to the blamed rank, why block in explain")
PY
# The text: the why block after the cause line.
python3 - <<'PY'
t = open("explain.txt").read().splitlines()
cause = next(i for i, l in enumerate(t) if l.startswith("cause: "))
assert t[cause + 2].startswith("why: "), t[cause:cause + 3]
assert any(l.startswith("next capture: ncu --clock-control none") for l in t), t
PY
# Telemetry (hand-written nvidia-smi csv, GPU index = rank): equal clocks refute
# clock_throttling; rank 3 at 1386 MHz, 70 % of its peers' 1980, supports it and names the rank.
smi() {  # DIR RANK3_MHZ
  mkdir -p "$1"
  {
    echo "timestamp, index, clocks.sm [MHz], power.draw [W]"
    for t in 0 1; do for g in 0 1 2 3; do
      mhz=1980; [ "$g" = 3 ] && mhz=$2
      echo "2026/07/22 21:41:4$t.000, $g, $mhz MHz, 400.00 W"
    done; done
  } > "$1/smi.csv"
}
why_clock() {
  "$bin/culprit" explain --db w.db --json | python3 -c '
import json, sys
w = json.load(sys.stdin)["explanations"][0]["why"]
e = next(e for e in w["explanations"] if e["name"] == "clock_throttling")
print(e["status"], e["reason"])'
}
smi equal 1980 && smi slow 1386
"$bin/culprit" import equal/smi.csv --format nvidia-smi --db w.db --attach "$cand" --json > tel.json
python3 -c 'import json; d = json.load(open("tel.json")); assert d["samples"] == 16, d'
why_clock | grep -q "^refuted rank 3's SM clock 1980 MHz is 100.0 %"
"$bin/culprit" import slow/smi.csv --format nvidia-smi --db w.db --attach "$cand" > /dev/null
why_clock | grep -q "^supported rank 3's SM clock 1386 MHz is 70.0 % of its peers' 1980 MHz"
printf '#Entity SMCLK\nID MHZ\nGPU 0 1980\n' > dmon.txt
set +e
"$bin/culprit" import dmon.txt --format dcgm --db w.db --attach "$cand" 2> dmon.err; rc=$?
set -e
[ "$rc" = 2 ] && grep -q "dmon.txt has no timestamps: pass --start" dmon.err
"$bin/culprit" import dmon.txt --format dcgm --db w.db --attach "$cand" \
  --start 2026-07-22T21:41:40Z --period-ms 100 > /dev/null
cmp steps.before <(sqlite3 w.db "SELECT run_id, step, time_ms FROM steps ORDER BY 1, 2")
echo "ok: why chain on a stored run"
