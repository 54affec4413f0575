#!/usr/bin/env python3
"""Checks `culprit report`'s page: offline by construction, and drawn without errors.

Usage: check_report.py REPORT.html DOM.html CHROMIUM_LOG SCREENSHOT.png [--culprit RANK]
                       [--charts ID,...] [--absent-ok ID,...]
REPORT.html: nothing is loaded from anywhere (no src/href to a resource, no URL but the XML
namespace names d3 carries, which are identifiers, not fetches). DOM.html: the DOM after headless
Chromium ran the page: its own error log empty, no resource loaded, every section's chart
element present and drawn (an SVG with marks), the culprit named. CHROMIUM_LOG: no console
error or uncaught exception. SCREENSHOT.png: a PNG that is not blank.
"""
import json
import re
import sys
from html.parser import HTMLParser

NAMESPACES = {"http://www.w3.org/1999/xhtml", "http://www.w3.org/1999/xlink",
              "http://www.w3.org/2000/svg", "http://www.w3.org/2000/xmlns/",
              "http://www.w3.org/XML/1998/namespace"}
CHARTS = ["chart-configs", "chart-waterfall", "chart-activity", "chart-lateness", "chart-excess",
          "chart-scorecard", "chart-timeline", "chart-efficiency"]
MAY_BE_ABSENT = {"chart-bisect", "chart-posterior"}  # default: the reference scenario has no bisection


def fail(message):
    print("check_report: FAIL: " + message)
    sys.exit(1)


class Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def static_checks(html):
    parser = Tags()
    parser.feed(html)
    for tag, attrs in parser.tags:
        if tag == "script" and "src" in attrs:
            fail(f"<script src={attrs['src']!r}> loads a script")
        if tag == "link":
            fail(f"<link {attrs}> loads a resource")
        for key in ("src", "href", "xlink:href", "srcset", "poster", "data"):
            value = attrs.get(key)
            if value is not None and not value.startswith("#"):
                fail(f"<{tag} {key}={value!r}> refers outside the page")
    for url in re.findall(r"https?://[^\s\"'<>)]*", html):
        if url not in NAMESPACES:
            fail(f"the page contains the URL {url!r}")
    for pattern in (r"@import", r"url\(\s*['\"]?(?!#)", r"\bfetch\(", r"new\s+WebSocket", r"navigator\.sendBeacon"):
        for m in re.finditer(pattern, html):
            context = html[max(0, m.start() - 60):m.end() + 60]
            # d3 defines (never calls at load) its xhr helpers; our own code must not fetch.
            if "d3_xhr" in context or "XMLHttpRequest" in context:
                continue
            fail(f"the page may fetch: {pattern!r} near {context!r}")
    own = html.split("id=\"culprit-data\"", 1)[-1]
    if "XMLHttpRequest" in own or "d3.xhr" in own or "d3.json(" in own:
        fail("the report's own script requests data")


def dom_checks(dom, culprit_rank, charts, may_be_absent):
    m = re.search(r'<pre id="culprit-status"[^>]*data-done="1"[^>]*>(.*?)</pre>', dom, re.S)
    if not m:
        fail("the page did not finish drawing (no culprit-status with data-done)")
    status = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))
    if status["errors"]:
        fail(f"errors while drawing: {status['errors']}")
    if status["resources"]:
        fail(f"the page loaded resources: {status['resources']}")
    for chart in charts + sorted(may_be_absent):
        start = dom.find(f'id="{chart}"')
        if start < 0:
            fail(f"no #{chart} element")
        end = dom.find('<div class="chart"', start + 10)
        section_end = dom.find("</section>", start)
        body = dom[start:min(x for x in (end, section_end) if x > 0)]
        if chart in may_be_absent and 'data-absent="1"' in body:
            continue
        marks = len(re.findall(r"<(rect|circle|line|path)\b", body))
        if "<svg" not in body or marks < 3:
            fail(f"#{chart} has no drawn chart ({marks} marks)")
        print(f"check_report: #{chart}: {marks} marks")
    if culprit_rank is not None:
        if f"Cause: rank {culprit_rank} " not in dom and f"Cause: </span><span>rank {culprit_rank} " not in dom:
            fail(f"the page does not name rank {culprit_rank} as the cause")
        if "Symptom" not in dom or "does not locate the cause" not in dom:
            fail("the page does not label the symptom and the sampled figure")
        if f"first divergence: rank {culprit_rank} " not in dom:
            fail("the timeline does not mark the first divergence")


def log_checks(log):
    for line in log.splitlines():
        if re.search(r"CONSOLE\(|Uncaught|console\.error", line):
            fail(f"chromium logged: {line}")


def png_checks(path):
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(b"\x89PNG\r\n\x1a\n") or len(data) < 20000:
        fail(f"{path} is not a PNG of a drawn page ({len(data)} bytes)")
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    print(f"check_report: screenshot {path}: {width}x{height}, {len(data)} bytes")


def main():
    html = open(sys.argv[1], encoding="utf-8").read()
    dom = open(sys.argv[2], encoding="utf-8").read()
    log = open(sys.argv[3], encoding="utf-8", errors="replace").read()
    culprit, charts, may_be_absent = None, CHARTS, MAY_BE_ABSENT
    rest = sys.argv[5:]
    for flag, value in zip(rest[::2], rest[1::2]):
        if flag == "--culprit":
            culprit = int(value)
        elif flag == "--charts":
            charts = value.split(",")
        elif flag == "--absent-ok":
            may_be_absent = set(value.split(","))
        else:
            fail(f"unknown option {flag}")
    static_checks(html)
    dom_checks(dom, culprit, charts, may_be_absent)
    log_checks(log)
    png_checks(sys.argv[4])
    print(f"check_report: ok: {len(html)} bytes, offline, every chart drawn, no console error")


if __name__ == "__main__":
    main()
