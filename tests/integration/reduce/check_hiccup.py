"""Checks a reduced experiment of an imported pair whose causes are hiccups (a few steps).

  check_hiccup.py NAME REDUCE_JSON COMPARE_JSON EXPLAIN_TXT native|scaled

Issue 18's figures, for a straggler that hits a few steps only (a hiccup moves no median, so
the shift to reproduce is the step excess in the steps it hits): the reduced baseline's median
within 3 % of the imported baseline's (native rank count only), the configuration with every
cause reproducing the original step excess within 10 %, and the control `equivalent`.
"""
import json
import re
import sys

name, reduce_path, compare_path, explain_path, scale = sys.argv[1:]
reduced = json.load(open(reduce_path))
comparisons = json.load(open(compare_path))["comparisons"]
explain = open(explain_path).read()
failures = []

labels = [c["candidate"]["label"] for c in comparisons]
causes = "version=all-causes" if "version=all-causes" in labels else "version=cause-1"
control = [c for c in comparisons if c["candidate"]["label"] == "version=control"][0]
base_ms = comparisons[0]["baseline"]["median_ms"]
measured_ms = reduced["baseline_median_ms"]

m = re.search(r"^reproduction of the original hiccup: step\(s\) ([0-9, ]+) ([+-][0-9.]+) ms",
              explain, re.M)
if not m:
    raise SystemExit(f"{name}: no hiccup reproduction in explain:\n{explain}")
original = float(m.group(2))
m = re.search(r"^  " + re.escape(causes) + r": ([+-][0-9.]+) ms", explain[m.end():], re.M)
reproduced = float(m.group(1))
print(f"{name}: baseline {base_ms:.2f} ms (imported {measured_ms:.2f}, "
      f"{100 * (base_ms / measured_ms - 1):+.1f} %), {causes} step excess {reproduced:+.2f} ms "
      f"(imported {original:+.2f}, {100 * (reproduced / original - 1):+.1f} %), "
      f"control {control['verdict']} ({control['shift_ms']:+.2f} ms)")
if scale == "native" and abs(base_ms - measured_ms) > 0.03 * measured_ms:
    failures.append(f"baseline median {base_ms:.2f} ms not within 3 % of {measured_ms:.2f}")
if abs(reproduced - original) > 0.10 * abs(original):
    failures.append(f"step excess {reproduced:+.2f} ms not within 10 % of {original:+.2f}")
if control["verdict"] != "equivalent":
    failures.append(f"control verdict {control['verdict']}, expected equivalent")
if failures:
    print("\n".join(f"FAIL {name}: {f}" for f in failures))
    sys.exit(1)
