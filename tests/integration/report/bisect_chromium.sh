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
  --charts chart-configs,chart-bisect,chart-lateness,chart-excess,chart-timeline,chart-efficiency \
  --absent-ok chart-waterfall,chart-activity,chart-scorecard
grep -q '"first_bad":"r05"' "$work/report.html"
