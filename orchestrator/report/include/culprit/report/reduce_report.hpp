#pragma once
// `culprit reduce` output: the reduced experiment as an ordinary, commented manifest, and the
// summary printed beside it; `culprit explain` of a reduced experiment: the reproduction lines.

#include <string>
#include <vector>

#include "culprit/analysis/reduction.hpp"
#include "culprit/analysis/step_excess.hpp"

namespace culprit::report {

struct ReducedManifestOptions {
  std::string name;       // experiment name
  std::string source_db;  // where the pair came from (a comment and [reduced_from].db)
  std::string backend = "sim";
  // Enough runs for the control to come out equivalent at a 1 % run-to-run CV; one look, so
  // the whole alpha goes to it.
  int repetitions = 10;
  std::uint64_t seed = 1;
  // The Hodges-Lehmann shift between the two runs' configurations, when both have several ok
  // runs: the change to reproduce, free of the pair's own run-to-run noise. 0 runs: unknown.
  double configuration_shift_ms = 0;
  int baseline_config_runs = 0;
  int candidate_config_runs = 0;
};

std::string reduced_manifest(const analysis::Reduction& reduction,
                             const ReducedManifestOptions& options);
// What was written: the causes and the notes (text), or {output, causes[], notes[]} (JSON).
std::string reduce_summary_text(const analysis::Reduction& reduction, const std::string& output);
std::string reduce_summary_json(const analysis::Reduction& reduction, const std::string& output);

// "cause-1: +71.90 ms reproduces 99 % of the original +72.46 ms (not reproduced: +0.56 ms)"
std::string reproduction_text(const std::vector<analysis::Reproduced>& rows,
                              double original_delta_ms);

// The hiccup figure of a reduced experiment: each configuration's step excess in the hit steps
// against the original's (`original_ms`, [reduced_from].step_excess_ms).
std::string step_excess_text(const std::vector<analysis::StepExcess>& rows,
                             const std::vector<int>& steps, double original_ms);

}  // namespace culprit::report
