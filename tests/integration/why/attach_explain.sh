#!/usr/bin/env bash
# The why chain on a stored run: a 4-rank simulated experiment (one run a configuration, rank 3
# gemm.bwd.wgrad delayed in steps 3..6; its GEMM shape that of the shared files), the real Nsight
# Compute exports of shared/counters attached to the blamed rank (gemm_vectorized.csv to the
# baseline run, gemm_naive.csv to the candidate run), then `culprit explain` carries the why block
# (compute_underuse decided from the configuration's shape) and the next capture; attaching
# changes no step time; bad input exits 2 and stores nothing; attached telemetry, placed on the
# run's clock, decides clock_throttling from the slow steps only, and the sampled-activity line
# shows its real fleet and per-rank averages.
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
# First without --phase: the kernels match no phase by name, so the configuration's shape is not
# theirs and compute_underuse has no FLOP count; then attached to the blamed phase.
"$bin/culprit" import "$ncu/gemm_vectorized.csv" --format ncu --db w.db --attach "$base:3" \
  > /dev/null
"$bin/culprit" import "$ncu/gemm_naive.csv" --format ncu --db w.db --attach "$cand" > /dev/null
"$bin/culprit" explain --db w.db --json | python3 -c '
import json, sys
w = json.load(sys.stdin)["explanations"][0]["why"]
e = next(e for e in w["explanations"] if e["name"] == "compute_underuse")
assert e["status"] == "undecided", e
f = next(f for f in w["candidate"]["figures"] if f["metric"] == "flop_rate")
assert f["value"] is None and f["note"] == ("n/a: no FLOP count (the kernel is not attached to "
    "phase gemm.bwd.wgrad: import it with --phase gemm.bwd.wgrad to take the phase shape from "
    "the configuration)".replace("phase shape", "phase\x27s shape")), f'
"$bin/culprit" import "$ncu/gemm_vectorized.csv" --format ncu --db w.db --attach "$base:3" \
  --phase gemm.bwd.wgrad --json > attach-base.json
"$bin/culprit" import "$ncu/gemm_naive.csv" --format ncu --db w.db --attach "$cand" \
  --phase gemm.bwd.wgrad --json > attach-cand.json
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
assert x["why_not_applicable"] is None, x  # a simulated GPU job: the counters apply
# compute_underuse decided without an ncu FLOP count: the configuration's shape, 2 x 2048^3 FLOPs
# (timing.csv's flops of these kernels), over ncu's durations.
assert status["compute_underuse"] == "supported", status
rate = {f["metric"]: f for f in w["candidate"]["figures"]}["flop_rate"]
assert rate["numerator"] == 2 * 2048 ** 3 and abs(rate["denominator"] - 9589248e-9) < 1e-15, rate
assert rate["source"].startswith("the configuration's shape: 2 x tokens 2048 x hidden 2048"), rate
assert abs(rate["value"] - 2 * 2048 ** 3 / 9589248e-9) < 1, rate
ideal = {f["metric"]: f for f in w["candidate"]["figures"]}["dram_bytes_over_ideal"]
assert ideal["denominator"] == 50331648, ideal  # timing.csv's theoretical_bytes
print("ok: counters attached to the blamed rank, why block in explain")
PY
# The capture of a run that opened an NVTX range per phase instance (run meta phase_ranges, as
# culprit-step writes it; hand-set here on a copy, since a simulated run opens no range, and
# step.nvtx_ranges checks the ranges a real culprit-step opens): the blamed instance by its range,
# nothing counted. The oracle names the instance from the store's events.
cp w.db nvtx.db
sqlite3 nvtx.db "INSERT INTO run_meta (run_id, key, value) VALUES ($cand, 'phase_ranges', 'nvtx')"
"$bin/culprit" explain --db nvtx.db --json > nvtx.json
python3 - "$cand" <<'PY'
import json, sqlite3, sys
x = json.load(open("nvtx.json"))["explanations"][0]
c = x["culprit"]
ids = sqlite3.connect("nvtx.db").execute(
    "SELECT step, microbatch, layer, seq FROM run_events WHERE run_id = ? AND rank = ? AND name = ?"
    " AND step = ? AND layer = ? AND microbatch = ? ORDER BY begin_ns LIMIT 1",
    (int(sys.argv[1]), c["rank"], c["phase"], c["step"], c["layer"], c["microbatch"])).fetchone()
name = "%s step %d" % (c["phase"], ids[0]) + "".join(
    " %s %d" % (k, v) for k, v in zip(("microbatch", "layer", "seq"), ids[1:]) if v >= 0)
assert name == "gemm.bwd.wgrad step 3 microbatch 0 layer 1", name
n = x["next_capture"]
assert n.startswith("ncu --clock-control none --nvtx --nvtx-include '%s/' --metrics " % name), n
assert n.endswith("> rank3-%s.csv" % name.replace(" ", "_")) and "--launch-skip" not in n, n
print("ok: the blamed instance's NVTX range in the next capture")
PY
# The text: the why block after the cause line.
python3 - <<'PY'
t = open("explain.txt").read().splitlines()
cause = next(i for i, l in enumerate(t) if l.startswith("cause: "))
assert t[cause + 2].startswith("why: "), t[cause:cause + 3]
assert any(l.startswith("next capture: ncu --clock-control none") for l in t), t
PY
# Telemetry (hand-written nvidia-smi logs, telemetry_oracle.py): rank 3 at 1386 MHz (70 % of its
# peers' 1980) inside its slow steps supports clock_throttling and names the rank; the same rank
# throttled only outside them refutes it, although its median over the whole run says the
# opposite in each case (the file has more samples in the normal steps).
oracle="$(dirname "$0")/telemetry_oracle.py"
why_clock() {
  "$bin/culprit" explain --db w.db --json | python3 -c '
import json, sys
x = json.load(sys.stdin)["explanations"][0]
assert x["slow_steps"] == [3, 4, 5, 6], x["slow_steps"]
e = next(e for e in x["why"]["explanations"] if e["name"] == "clock_throttling")
t = x["clock_throttling"]  # from telemetry alone (the verdict adds the locked ncu clock)
assert (e["status"], e["reason"], e["evidence"][-1]) == (t["status"], t["reason"], t["evidence"][0])
print(e["status"], e["reason"])'
}
mkdir -p slow outside
python3 "$oracle" write w.db "$cand" throttled-in-slow slow/smi.csv
python3 "$oracle" write w.db "$cand" throttled-outside outside/smi.csv
"$bin/culprit" import slow/smi.csv --format nvidia-smi --db w.db --attach "$cand" --json > tel.json
python3 - "$cand" <<'PY'
import json, sys
d = json.load(open("tel.json"))
# 4 GPUs x (1 per slow step x 4 + 3 per normal step x 2) x 2 fields inside; 4 x 2 before the run.
assert d["samples"] == 80 and d["outside"] == 8 and d["unmapped"] == 0, d
assert d["gpu_rule"].startswith("provenance: "), d
assert d["gpu_ranks"][3] == ("rank 3: host sim GPU 3 (local rank 3 (its place among host sim's "
                             "ranks), one GPU per local rank)"), d["gpu_ranks"]
assert "8 sample(s) outside run %s's steps left out" % sys.argv[1] in d["warnings"], d
PY
why_clock | tee clock.txt | grep -qx "supported rank 3's SM clock 1386 MHz is 70.0 % of its peers' 1980 MHz in its 4 slow steps of run $cand"
"$bin/culprit" explain --db w.db > explain.txt
grep -q "^  clock_throttling  supported  rank 3's SM clock 1386 MHz" explain.txt
# The dashboard line: the real samples' fleet and per-rank averages (an independent average over
# the file's samples inside the steady steps) beside the exact busy share, and why they do not
# locate the cause.
python3 "$oracle" averages w.db "$cand" slow/smi.csv > averages.json
"$bin/culprit" explain --db w.db --json > explain.json
python3 - <<'PY'
import json
a = json.load(open("averages.json"))
x = json.load(open("explain.json"))["explanations"][0]
busy = x["sampled_activity"]
util = next(f for f in x["telemetry"]["candidate"]["fields"] if f["field"] == "GPU_UTIL")
assert abs(util["fleet_mean"] - a["fleet"]) < 1e-9, (util, a)
assert {r["rank"]: r["mean"] for r in util["ranks"]} == {int(k): v for k, v in a["ranks"].items()}
line = ("sampled activity (GPU telemetry, GPU_UTIL over the steady steps): baseline no utilisation "
        "telemetry (exact busy share %.1f %%); candidate fleet %.1f %% (per rank 96.0-99.0 %%, rank "
        "3 99.0 %%), exact busy share %.1f %% - it does not locate the cause: a GPU waiting inside a "
        "collective kernel counts as active, so the ranks that wait read as busy as the one they "
        "wait for; the decomposition above does" % (
            100 * busy["baseline"]["busy_share"], a["fleet"], 100 * busy["candidate"]["busy_share"]))
text = open("explain.txt").read().splitlines()
assert line in text, [l for l in text if l.startswith("sampled")]
PY
"$bin/culprit" import outside/smi.csv --format nvidia-smi --db w.db --attach "$cand" > /dev/null
why_clock | grep -qx "refuted rank 3's SM clock 1980 MHz is 100.0 % of its peers' 1980 MHz in its 4 slow steps of run $cand"
# Bad telemetry: exit 2 with the file and what to do, nothing stored.
rows=$(sqlite3 w.db "SELECT count(*) FROM run_telemetry")
printf '#Entity SMCLK\nID MHZ\nGPU 0 1980\n' > dmon.txt
printf 'timestamp, index, clocks.sm [MHz]\n2026/07/22 21:41:40.000, 0, 1980 MHz\n' > late.csv
cp w.db noanchor.db
sqlite3 noanchor.db "DELETE FROM run_meta WHERE key = 'unix_offset_ns'"
set +e
"$bin/culprit" import dmon.txt --format dcgm --db w.db --attach "$cand" 2> dmon.err; rc=$?
"$bin/culprit" import late.csv --format nvidia-smi --db w.db --attach "$cand" 2> late.err; rc2=$?
"$bin/culprit" import slow/smi.csv --format nvidia-smi --db noanchor.db --attach "$cand" \
  2> noanchor.err; rc3=$?
# The real NVML log of shared/counters is read whole and placed: it is from 2026, the simulated
# run from 2000, so none of it falls inside the run.
"$bin/culprit" import "$counters/roofline-profiler/nvml.csv" --format nvml-csv --db w.db \
  --attach "$cand" 2> nvml.err; rc4=$?
set -e
[ "$rc" = 2 ] && [ "$rc2" = 2 ] && [ "$rc3" = 2 ] && [ "$rc4" = 2 ]
grep -q "nvml.csv: no sample falls inside run $cand: the samples span 2026-07-22T21:41:45.304Z .. 2026-07-22T21:42:17.0" nvml.err
grep -q "dmon.txt has no timestamps: pass --start" dmon.err
set +e
"$bin/culprit" import dmon.txt --format dcgm --db w.db --attach "$cand" \
  --start 2000-01-01T00:00:00.015Z --period-ms nan 2> nan.err; rc=$?
set -e
[ "$rc" = 2 ] && grep -q "and --period-ms (a positive finite number of milliseconds)" nan.err
grep -q "late.csv: no sample falls inside run $cand: the samples span 2026-07-22T21:41:40.000Z .. 2026-07-22T21:41:40.000Z, the run's steps 2000-01-01T00:00:00" late.err
grep -q "run $cand records no Unix time of its clock (run meta unix_offset_ns" noanchor.err
[ "$(sqlite3 w.db "SELECT count(*) FROM run_telemetry")" = "$rows" ]
# A log without timestamps placed by --start and --period-ms: GPU 0's three samples 10 ms apart
# from 15 ms after the simulated run's start, inside its steps.
printf '#Entity SMCLK\nID MHZ\nGPU 0 1980\nGPU 0 1970\nGPU 0 1960\n' > dmon.txt
"$bin/culprit" import dmon.txt --format dcgm --db w.db --attach "$cand" \
  --start 2000-01-01T00:00:00.015Z --period-ms 10 --json > dmon.json
python3 -c 'import json; d = json.load(open("dmon.json")); assert d["samples"] == 3, d'
# On the run's clock: rank 0's raw clock reads 1e12 ns at the simulated start (to the microsecond:
# Unix seconds in a double carry about 0.1 us).
[ "$(sqlite3 w.db "SELECT group_concat(CAST(round(time_ns / 1e3) AS INTEGER) || ':' || value, ' ')
  FROM (SELECT * FROM run_telemetry WHERE source = 'dmon.txt' ORDER BY time_ns)")" = \
  "1000015000:1980000000.0 1000025000:1970000000.0 1000035000:1960000000.0" ]
# GPU -> rank on two hosts (a copy whose provenance puts ranks 2 and 3 on node2): a log without
# host names is refused without --host; with --host node2 its GPUs 0 and 1 are ranks 2 and 3
# (their places among node2's ranks) and GPUs 2 and 3 served no rank.
cp w.db hosts.db
sqlite3 hosts.db "UPDATE provenance SET value = 'node2' WHERE key = 'host' AND rank >= 2"
set +e
"$bin/culprit" import slow/smi.csv --format nvidia-smi --db hosts.db --attach "$cand" \
  2> hosts.err; rc=$?
set -e
[ "$rc" = 2 ]
grep -q "slow/smi.csv:2: the file names no host and run $cand ran on 2 hosts (node2, sim): pass --host NAME" hosts.err
"$bin/culprit" import slow/smi.csv --format nvidia-smi --db hosts.db --attach "$cand" \
  --host node2.cluster --json > hosts.json
python3 - "$cand" <<'PY'
import json, sys
d = json.load(open("hosts.json"))
assert d["samples"] == 40 and d["unmapped"] == 44 and d["outside"] == 4, d
assert [l.split(" (")[0] for l in d["gpu_ranks"]] == ["rank 2: host node2 GPU 0",
                                                      "rank 3: host node2 GPU 1"], d
assert "44 sample(s) of GPUs that served no rank of run %s left out" % sys.argv[1] in d["warnings"]
PY
cmp steps.before <(sqlite3 w.db "SELECT run_id, step, time_ms FROM steps ORDER BY 1, 2")
# culprit why's numbers: "nan", "inf" and negatives are numbers to CLI11, never to the verdict.
for bad in "--flops nan" "--flops -5" "--ideal-bytes 0" "--launches-per-step inf" \
           "--excess-ms nan"; do
  set +e
  # shellcheck disable=SC2086
  "$bin/culprit" why "$ncu/gemm_naive.csv" $bad 2> bad.err; rc=$?
  set -e
  [ "$rc" = 2 ] || { echo "why $bad: exit $rc"; exit 1; }
  grep -q "culprit: error: ${bad%% *} must be a" bad.err || { cat bad.err; exit 1; }
done
# A folder where a file belongs (an export, a peaks or telemetry file): exit 2 naming it and what
# it should have been (it was an internal error, exit 1), nothing stored.
mkdir -p afolder
rows=$(sqlite3 w.db "SELECT (SELECT count(*) FROM run_kernel_counters) + (SELECT count(*) FROM run_telemetry)")
check_folder() {  # check_folder WHAT-IT-SHOULD-BE ARGS...
  local what=$1
  shift
  set +e
  "$bin/culprit" "$@" 2> folder.err; rc=$?
  set -e
  [ "$rc" = 2 ] || { echo "culprit $*: exit $rc"; cat folder.err; exit 1; }
  grep -qx "culprit: error: afolder: is a folder, not $what; name the file itself" folder.err ||
    { cat folder.err; exit 1; }
}
check_folder "an ncu CSV export" import afolder --format ncu --db w.db --attach "$cand"
check_folder "a GPU telemetry file" import afolder --format nvidia-smi --db w.db --attach "$cand"
check_folder "an ncu CSV export" why afolder
check_folder "an ncu CSV export" why "$ncu/gemm_naive.csv" afolder
check_folder "a peaks file" why "$ncu/gemm_naive.csv" --peaks afolder
check_folder "a GPU telemetry file" why "$ncu/gemm_naive.csv" --telemetry afolder --rank 3
[ "$(sqlite3 w.db "SELECT (SELECT count(*) FROM run_kernel_counters) + (SELECT count(*) FROM run_telemetry)")" = "$rows" ]
echo "ok: why chain on a stored run"
