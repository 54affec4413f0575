#!/usr/bin/env bash
# Issue 33: compare, explain, report and validate judge one stored experiment at the same level
# with the same verdict per candidate (report divided alpha by the planned looks, compare by the
# looks the runs show: 0.025 against 0.05 for 6 runs of a cap of 12; validate called a change
# regressed from its blame alone). The fixture's experiment, as stored, in a copy of its store
# (validate registers the experiment again: the other tests of the fixture only read it).
# Usage: judged_alike.sh BIN_DIR WORK_DIR MANIFEST
set -euo pipefail
bin=$1 work=$2 manifest=$3
db="$work/judged.db"
rm -f "$db" "$db-wal" "$db-shm"
sqlite3 "$work/ref.db" ".backup '$db'"
"$bin/culprit" compare --db "$db" --json > "$work/judged_compare.json"
"$bin/culprit" explain --db "$db" --json > "$work/judged_explain.json"
"$bin/culprit" report --db "$db" -o "$work/judged.html" > /dev/null
# Every run of the manifest is in the store: validate runs nothing (it says so) and judges.
"$bin/culprit" validate --db "$db" "$manifest" --json > "$work/judged_validate.json" \
  2> "$work/judged_validate.log"
grep -q "0 run now, 12 reused" "$work/judged_validate.log"
python3 - "$work" <<'PY'
import html, json, re, sys
work = sys.argv[1]
compare = json.load(open(f"{work}/judged_compare.json"))
explain = json.load(open(f"{work}/judged_explain.json"))
validate = json.load(open(f"{work}/judged_validate.json"))
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
from_validate = {c["candidate"]: (round(c["alpha"], 12), c["verdict"])
                 for c in validate["judgement"]["comparisons"]}
print("explain:", from_explain)
print("validate:", from_validate, "settings", {k: v for k, v in validate["judgement"].items()
                                               if k != "comparisons"})
if not from_compare:
    sys.exit("FAIL: compare judged no candidate")
if from_compare != from_report or from_compare != from_explain or from_compare != from_validate:
    sys.exit("FAIL: the commands judge the experiment differently")
if validate["judgement"]["alpha_per_comparison"] != report["settings"]["alpha_per_comparison"]:
    sys.exit("FAIL: validate and report state different levels")
if abs(report["settings"]["alpha_per_comparison"] - 0.05) > 1e-12:
    sys.exit("FAIL: 6 runs a configuration are one look: alpha per comparison 0.05, not "
             f"{report['settings']['alpha_per_comparison']}")
if from_compare["version=v1.5"][1] != "regressed":
    sys.exit(f"FAIL: v1.5 (+77.5 ms on rank 15) judged {from_compare['version=v1.5'][1]}")
print("PASS: compare, explain, report and validate judge alike")
PY
