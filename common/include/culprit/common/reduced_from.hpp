#pragma once
// [reduced_from]: the pair of runs a reduced experiment (`culprit reduce`) was made from, so
// `culprit explain` can say how much of the original change each cause reproduces. One type for
// the manifest section (manifest::ReducedFrom, written by reduce) and the stored settings
// (storage::ReducedFromRecord): the store keeps what the manifest said, field for field.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace culprit {

struct ReducedFrom {
  std::int64_t baseline_run = 0;
  std::int64_t candidate_run = 0;
  double baseline_median_ms = 0;
  double candidate_median_ms = 0;
  double delta_ms = 0;
  // The Hodges-Lehmann shift between the runs' configurations, when both had several runs.
  std::optional<double> shift_ms;
  std::vector<int> shift_runs;  // the two configurations' ok run counts behind shift_ms
  std::string db;               // the store the runs came from, as given to reduce
  // Causes that hit a few steps only (a hiccup moves no median): those steps (positions, from
  // 0, empty when none) and the candidate's mean step excess there over its own median step.
  std::vector<int> excess_steps;
  std::optional<double> step_excess_ms;
  // What the reduced experiment must reproduce: shift_ms when known, else delta_ms.
  double target_ms() const { return shift_ms.value_or(delta_ms); }

  bool operator==(const ReducedFrom&) const = default;
};

}  // namespace culprit
