#!/usr/bin/env bash
# The report of a bisection: `culprit bisect` on 8 simulated releases (r05 is bad), then the
# report rendered in headless Chromium with the bisection path drawn. The experiment's baseline
# has no runs, so explain and the scorecard must say why they are absent instead.
# Usage: bisect_chromium.sh BIN_DIR MANIFEST WORK_DIR CHROMIUM
set -euo pipefail
bin=$1 manifest=$2 work=$3 chromium=$4
here=$(cd "$(dirname "$0")" && pwd)
"$here/run_bisect.sh" "$bin" "$manifest" "$work"
"$here/report_chromium.sh" "$bin" "$work" "$chromium" \
  --charts chart-configs,chart-bisect,chart-posterior,chart-lateness,chart-excess,chart-timeline,chart-efficiency \
  --absent-ok chart-waterfall,chart-activity,chart-scorecard
grep -q '"first_bad":"r05"' "$work/report.html"
# The posterior is drawn: the first bad version holds the largest bar and is named with its share.
python3 - "$work/dom.html" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
bars = re.findall(r'<rect class="posterior-bar"[^>]*fill="(#[0-9a-f]+)"', dom)
assert bars and "#b2182b" in bars, f"no posterior bar for the first bad version: {bars}"
m = re.search(r"Posterior over where the step lies[^<]*?r05 ([0-9.]+) %", dom)
assert m and float(m.group(1)) >= 50, "the posterior text does not give r05 the most mass"
print(f"posterior: r05 holds {m.group(1)} % ({len(bars)} bars)")
PY
