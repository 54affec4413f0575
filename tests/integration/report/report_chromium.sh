#!/usr/bin/env bash
# `culprit report` of the small reference scenario, rendered in headless Chromium: no console
# error, every section's chart drawn, nothing requested over the network; the screenshot stays
# in WORK_DIR (report.png) as the test's artifact.
# Usage: report_chromium.sh BIN_DIR WORK_DIR CHROMIUM [check_report.py options]
# (default options: the reference scenario's, rank 15 the culprit)
set -euo pipefail
bin=$1 work=$2 chromium=$3
shift 3
checks=("$@")
[[ ${#checks[@]} -gt 0 ]] || checks=(--culprit 15)
here=$(cd "$(dirname "$0")" && pwd)
cd "$work"
"$bin/culprit" report --db ref.db -o report.html > written.txt 2> written.log
# One line says what was written, where and how large, on stdout only (not again in the log).
[[ "$(cat written.txt)" == "report of experiment '"?*"' written to $work/report.html ("[0-9]*.[0-9]" MB)" ]] ||
  { echo "FAIL: report's result line: $(cat written.txt)"; exit 1; }
! grep -q "written to" written.log || { echo "FAIL: the log repeats the result: $(cat written.log)"; exit 1; }
echo "report: $(stat -c %s report.html) bytes"
# Headless Chromium, no network: a proxy that does not exist catches any request the static
# checks missed (the page then records it as a loaded resource or an error).
flags=(--headless --disable-gpu --no-sandbox --no-first-run --disable-extensions
  --proxy-server=127.0.0.1:9 --user-data-dir="$work/chromium-profile"
  --enable-logging=stderr --v=0 --virtual-time-budget=15000)
url="file://$work/report.html"
"$chromium" "${flags[@]}" --dump-dom "$url" > dom.html 2> chromium-dom.log
"$chromium" "${flags[@]}" --hide-scrollbars --window-size=1400,4200 --screenshot="$work/report.png" \
  "$url" > /dev/null 2> chromium-shot.log
cat chromium-dom.log chromium-shot.log > chromium.log
python3 "$here/check_report.py" report.html dom.html chromium.log report.png "${checks[@]}"
echo "screenshot kept: $work/report.png"
