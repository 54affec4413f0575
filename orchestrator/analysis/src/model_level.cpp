#include "culprit/analysis/model_level.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "robust.hpp"
#include "sim/simulator.hpp"

namespace culprit::analysis {

ModelLevel simulated_level(stepmodel::RunConfig model, int draws) {
  model.inject = {};
  std::vector<double> medians;
  for (int d = 0; d < draws; ++d) {
    model.seed = static_cast<std::uint64_t>(d + 1);
    model.repetition = d;
    const sim::SimulatedRun run = sim::simulate(model);
    std::vector<double> steps;
    for (std::size_t s = static_cast<std::size_t>(model.warmup_steps); s < run.step_end_ns.size();
         ++s) {
      const std::int64_t begin = s == 0 ? 0 : run.step_end_ns[s - 1];
      steps.push_back(static_cast<double>(run.step_end_ns[s] - begin) / 1e6);
    }
    if (!steps.empty()) medians.push_back(median_of(steps));
  }
  ModelLevel level;
  if (medians.empty()) return level;
  level.median_ms = median_of(medians);
  if (medians.size() >= 4 && level.median_ms > 0) {
    for (double& m : medians) m -= level.median_ms;
    level.run_cv = robust_sigma_about_zero(medians) / level.median_ms;
  }
  return level;
}

int repetitions_for(double run_cv, double margin) {
  if (!(margin > 0)) return 8;
  const double n = std::ceil(std::pow(3.1 * run_cv / (margin / 2), 2));
  return static_cast<int>(std::clamp(n, 8.0, 60.0));
}

void set_model_level(Reduction& r, double model_ms) {
  const double target = r.baseline.median_step_ms * r.level_scale;
  if (!(model_ms > 0) || !(target > 0)) return;
  r.model_median_ms = model_ms;
  r.model_scale = target / model_ms;
  const auto round_ms = [](double ms) { return std::round(ms * 1000.0) / 1000.0; };
  for (CalibratedPhase& p : r.baseline.phases) {
    p.phase.ms = round_ms(p.phase.ms * r.model_scale);
    p.phase.gap_ms = round_ms(p.phase.gap_ms * r.model_scale);
  }
}

}  // namespace culprit::analysis
