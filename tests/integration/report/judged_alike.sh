#!/usr/bin/env bash
# Issue 33: compare, explain and report judge one stored experiment at the same level with the
# same verdict per candidate (report divided alpha by the planned looks, compare by the looks the
# runs show: 0.025 against 0.05 for 6 runs of a cap of 12). The fixture's experiment, as stored.
# Usage: judged_alike.sh BIN_DIR WORK_DIR
set -euo pipefail
bin=$1 work=$2
"$bin/culprit" compare --db "$work/ref.db" --json > "$work/judged_compare.json"
"$bin/culprit" explain --db "$work/ref.db" --json > "$work/judged_explain.json"
"$bin/culprit" report --db "$work/ref.db" -o "$work/judged.html" > /dev/null
python3 - "$work" <<'PY'
import html, json, re, sys
work = sys.argv[1]
compare = json.load(open(f"{work}/judged_compare.json"))
explain = json.load(open(f"{work}/judged_explain.json"))
page = open(f"{work}/judged.html", encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="culprit-data">(.*?)</script>', page, re.S)
if not m:
    sys.exit("FAIL: no culprit-data block in the report")
report = json.loads(m.group(1))

def levels(comparisons):
    return {c["candidate"]["label"]: (round(c["alpha"], 12), c["verdict"]) for c in comparisons}

from_compare = levels(compare["comparisons"])
from_report = levels(report["compare"]["comparisons"])
from_explain = {e["candidate"]: (round(e["judgement"]["alpha"], 12), e["judgement"]["verdict"])
                for e in explain["explanations"]}
print("compare:", from_compare)
print("report: ", from_report, "settings", report["settings"])
print("explain:", from_explain)
if not from_compare:
    sys.exit("FAIL: compare judged no candidate")
if from_compare != from_report or from_compare != from_explain:
    sys.exit("FAIL: the commands judge the experiment differently")
if abs(report["settings"]["alpha_per_comparison"] - 0.05) > 1e-12:
    sys.exit("FAIL: 6 runs a configuration are one look: alpha per comparison 0.05, not "
             f"{report['settings']['alpha_per_comparison']}")
if from_compare["version=v1.5"][1] != "regressed":
    sys.exit(f"FAIL: v1.5 (+77.5 ms on rank 15) judged {from_compare['version=v1.5'][1]}")
print("PASS: compare, explain and report judge alike")
PY
