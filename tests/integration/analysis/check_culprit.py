#!/usr/bin/env python3
"""Asserts the run culprit in `culprit attribute --json` output read from stdin.

Usage: check_culprit.py RANK PHASE LAYER MS TOLERANCE
Checks rank, phase and layer exactly, excess_ms within MS * (1 +- TOLERANCE), and that every
step's decomposition reconciles with its step time.
"""
import json
import sys


def main() -> int:
    rank, phase, layer = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    ms, tolerance = float(sys.argv[4]), float(sys.argv[5])
    doc = json.load(sys.stdin)
    culprit = doc["summary"]["culprit"]
    errors = []
    if culprit is None:
        errors.append("no culprit blamed")
    else:
        got = (culprit["rank"], culprit["phase"], culprit["layer"])
        if got != (rank, phase, layer):
            errors.append(f"blamed {got}, expected {(rank, phase, layer)}")
        if abs(culprit["excess_ms"] - ms) > tolerance * ms:
            errors.append(f"excess {culprit['excess_ms']:.2f} ms, expected {ms} +- {tolerance:.0%}")
    for step in doc["steps"]:
        total = step["unclassified_ms"] + sum(c["ms"] for c in step["components"])
        if abs(total - step["time_ms"]) > 1e-6:
            errors.append(f"step {step['step']}: components sum to {total}, time {step['time_ms']}")
    costs = doc["summary"]["delay_costs"]
    if abs(costs["conservation_error_ms"]) > 1e-6 * max(1.0, costs["total_wait_ms"]):
        errors.append(f"delay costs not conserved: {costs}")
    for e in errors:
        print("FAIL:", e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
