#!/usr/bin/env bash
# `culprit report` of the store integration.why.attach_explain leaves (counters attached to both
# representative runs, telemetry with rank 3 throttled outside its slow steps attached to the
# candidate), rendered in headless Chromium: the why section shows the verdicts the explain JSON
# gives, and the telemetry map beside the heat maps has rank 3's slow-clock cells in steps 1-2.
# Usage: report_chromium.sh BIN_DIR STORE_DIR WORK_DIR CHROMIUM
set -euo pipefail
bin=$1 store=$2 work=$3 chromium=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
sqlite3 "$store/w.db" ".backup '$work/ref.db'"
"$here/../report/report_chromium.sh" "$bin" "$work" "$chromium" --culprit 3 \
  --charts chart-configs,chart-waterfall,chart-lateness,chart-excess,chart-why,chart-telemetry,chart-timeline
cd "$work"
"$bin/culprit" explain --db ref.db --json > explain.json
python3 - <<'PY'
import html, json, re
dom = open("dom.html", encoding="utf-8").read()
x = json.load(open("explain.json"))["explanations"][0]
# Every verdict of the why block, as explain gives it, is a row of the page's table.
for e in x["why"]["explanations"]:
    row = "<td class=\"l\">%s</td><td style=\"color: [^\"]*; font-weight: 600;\">%s</td>" % (
        e["name"], e["status"])
    assert re.search(row, dom), (e["name"], e["status"])
assert "next capture: ncu --clock-control none" in dom
# The telemetry map: rank 3's cells of steps 1 and 2 are its 1386 MHz (the dark end), the rest
# 1980 MHz, as are ranks 1 and 2's (rank 0 also holds the dmon.txt samples); the titles say so.
for step in (1, 2):
    assert "rank 3, step %d: 1386.0 MHz" % step in dom, step
for step in (3, 4, 5, 6):
    assert "rank 3, step %d: 1980.0 MHz" % step in dom, step
    assert "rank 1, step %d: 1980.0 MHz" % step in dom and "rank 2, step %d: 1980.0 MHz" % step in dom
# The real samples beside the modelled dashboard, the fleet figure as explain gives it.
util = next(f for f in x["telemetry"]["candidate"]["fields"] if f["field"] == "GPU_UTIL")
assert "(candidate, GPU_UTIL over the steady steps): fleet %.1f %%" % util["fleet_mean"] in dom
print("ok: the why section, the telemetry map and the measured activity drawn from the store")
PY
