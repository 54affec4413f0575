"""Checks a reduced reference scenario against the original experiment.

  check_reduce.py ORIGINAL_COMPARE REDUCED64_COMPARE REDUCED8_COMPARE REDUCE8_JSON

The original compare holds the baseline configuration's median and the Hodges-Lehmann shift of
the candidate: the figures the reduced experiment must reproduce (issue 18: baseline within 3 %,
shift within 10 %, the control equivalent to the baseline).
"""
import json
import sys

original_path, c64_path, c8_path, r8_path = sys.argv[1:]
original = json.load(open(original_path))["comparisons"][0]
original_base = original["baseline"]["median_ms"]
original_shift = original["shift_ms"]
failures = []


def by_label(compare, label):
    for c in compare["comparisons"]:
        if c["candidate"]["label"].endswith(label):
            return c
    raise SystemExit(f"no comparison for {label}: "
                     f"{[c['candidate']['label'] for c in compare['comparisons']]}")


def check(name, compare, check_baseline):
    cause = by_label(compare, "cause-1")
    control = by_label(compare, "control")
    base_ms = cause["baseline"]["median_ms"]
    shift = cause["shift_ms"]
    print(f"{name}: baseline {base_ms:.2f} ms (original {original_base:.2f}, "
          f"{100 * (base_ms / original_base - 1):+.1f} %), cause-1 shift {shift:+.2f} ms "
          f"(original {original_shift:+.2f}, {100 * (shift / original_shift - 1):+.1f} %), "
          f"control {control['verdict']} ({control['shift_ms']:+.2f} ms)")
    if check_baseline and abs(base_ms - original_base) > 0.03 * original_base:
        failures.append(f"{name}: baseline median {base_ms:.2f} ms not within 3 % of "
                        f"{original_base:.2f}")
    if abs(shift - original_shift) > 0.10 * abs(original_shift):
        failures.append(f"{name}: shift {shift:+.2f} ms not within 10 % of {original_shift:+.2f}")
    if cause["verdict"] != "regressed":
        failures.append(f"{name}: cause-1 verdict {cause['verdict']}, expected regressed")
    if control["verdict"] != "equivalent":
        failures.append(f"{name}: control verdict {control['verdict']}, expected equivalent")


check("64 ranks", json.load(open(c64_path)), True)
check("8 ranks", json.load(open(c8_path)), False)
r8 = json.load(open(r8_path))
if r8["ranks"] != 8:
    failures.append(f"--ranks 8 wrote {r8['ranks']} ranks")
delays = r8["causes"][0]["delays"]
if not delays or delays[0]["rank"] != 7 or delays[0]["phase"] != "gemm.bwd.wgrad":
    failures.append(f"8 ranks: the straggler on rank 63 should move to rank 7: {delays}")
if failures:
    print("\n".join("FAIL " + f for f in failures))
    sys.exit(1)
print("ok")
