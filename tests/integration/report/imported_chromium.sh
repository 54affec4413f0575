#!/usr/bin/env bash
# `culprit report` of imported real PyTorch profiler traces (shared/traces/torch-ddp: the 2-rank
# control as baseline, rank 1 sleeping 30 ms in layer2 as candidate), rendered in headless
# Chromium with the same checks as the reference scenario's (report_chromium.sh): no console
# error, the charts drawn, nothing requested over the network; the heat map and the timeline of
# an imported run drawn. The one-step hiccup is no run-level culprit, so no cause is asserted.
# Usage: imported_chromium.sh BIN_DIR TRACES_DIR WORK_DIR CHROMIUM
set -euo pipefail
bin=$1 traces=$2/torch-ddp work=$3 chromium=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$bin/culprit" import "$traces/ddp2-control/kineto" --db ref.db --experiment torch-ddp --label baseline >/dev/null
"$bin/culprit" import "$traces/ddp2-sleep-layer2/kineto" --db ref.db --experiment torch-ddp --label candidate >/dev/null
"$here/report_chromium.sh" "$bin" "$work" "$chromium" \
  --charts chart-configs,chart-waterfall,chart-lateness,chart-excess,chart-timeline \
  --absent-ok chart-bisect,chart-scorecard,chart-efficiency,chart-activity
grep -q "layer2" report.html || { echo "FAIL: the report of the imported runs does not name layer2"; exit 1; }
echo ok
