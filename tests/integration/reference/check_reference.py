"""Checks `culprit compare --json` and `culprit explain --json` of the reference scenario.

Usage: check_reference.py COMPARE_JSON EXPLAIN_JSON. Exits non-zero naming the first failure.
"""
import json
import sys


def check(condition, what, value):
    if not condition:
        sys.exit(f"reference scenario: {what}: got {value!r}")


def main():
    compare = json.load(open(sys.argv[1]))
    explain = json.load(open(sys.argv[2]))

    check(len(compare["comparisons"]) == 1, "one comparison", compare["comparisons"])
    c = compare["comparisons"][0]
    check(c["verdict"] == "regressed", "compare verdict", c["verdict"])
    base_ms, cand_ms = c["baseline"]["median_ms"], c["candidate"]["median_ms"]
    check(400 <= base_ms <= 420, "baseline median within 400-420 ms", base_ms)
    check(475 <= cand_ms <= 495, "candidate median within 475-495 ms", cand_ms)

    check(len(explain["explanations"]) == 1 and explain["skipped"] == [],
          "one explanation, in the same shape as several", list(explain))
    e = explain["explanations"][0]
    culprit = e["culprit"]
    check(culprit is not None, "a culprit", culprit)
    check((culprit["rank"], culprit["phase"], culprit["layer"]) == (63, "gemm.bwd.wgrad", 0),
          "culprit rank 63 gemm.bwd.wgrad layer 0", culprit)
    check(abs(culprit["excess_ms"] - 77.5) <= 0.15 * 77.5, "culprit excess 77.5 ms +-15 %",
          culprit["excess_ms"])
    first = [x for x in e["components"] if x["first_divergence"]]
    check(len(first) == 1 and first[0]["rank"] == 63, "one first-divergence component", first)
    check(abs(first[0]["ms"] - 77.5) <= 0.15 * 77.5, "its component 77.5 ms +-15 %", first[0])
    total = sum(x["ms"] for x in e["components"]) + e["unclassified_ms"]
    check(abs(total - e["delta_ms"]) <= 0.011, "components + unclassified == delta",
          (total, e["delta_ms"]))
    check(abs(e["delta_ms"] - (e["candidate_median_ms"] - e["baseline_median_ms"])) <= 0.011,
          "delta == candidate - baseline", e)
    check(e["symptom"]["waiting_ranks"] == 63, "63 waiting ranks", e["symptom"])

    activity = e["sampled_activity"]["candidate"]
    busy = activity["busy_share"] if activity["samples"] == 0 else activity["sampled_share"]
    check(0.6 <= activity["busy_share"] <= 0.95, "candidate exact busy share in [0.6, 0.95]",
          activity)
    check(0.6 <= busy <= 0.95, "candidate dashboard share in [0.6, 0.95]", activity)
    print(f"ok: regressed {base_ms:.1f} -> {cand_ms:.1f} ms; rank 63 gemm.bwd.wgrad layer 0 "
          f"+{culprit['excess_ms']:.2f} ms; dashboard {100 * busy:.0f} % busy")


if __name__ == "__main__":
    main()
