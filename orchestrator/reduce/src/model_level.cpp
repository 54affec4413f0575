#include "culprit/reduce/model_level.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "culprit/analysis/robust.hpp"
#include "culprit/common/median.hpp"
#include "sim/simulator.hpp"

namespace culprit::reduce {

using analysis::robust_sigma_about_zero;

ModelLevel simulated_level(stepmodel::RunConfig model, int draws) {
  model.inject = {};
  std::vector<double> medians, deviations;
  for (int d = 0; d < draws; ++d) {
    model.seed = static_cast<std::uint64_t>(d) + 1;
    model.repetition = d;
    const sim::SimulatedRun run = sim::simulate(model);
    std::vector<double> steps;
    for (std::size_t s = static_cast<std::size_t>(model.warmup_steps); s < run.step_end_ns.size();
         ++s) {
      const std::int64_t begin = s == 0 ? 0 : run.step_end_ns[s - 1];
      steps.push_back(static_cast<double>(run.step_end_ns[s] - begin) / 1e6);
    }
    if (steps.empty()) continue;
    medians.push_back(median_of(steps));
    for (double s : steps) deviations.push_back(s - medians.back());
  }
  ModelLevel level;
  if (medians.empty()) return level;
  level.median_ms = median_of(medians);
  level.step_sigma_ms = robust_sigma_about_zero(deviations);
  if (medians.size() >= 4 && level.median_ms > 0) {
    for (double& m : medians) m -= level.median_ms;
    level.run_cv = robust_sigma_about_zero(medians) / level.median_ms;
  }
  return level;
}

namespace {

// Per step position: the median over the draws of (step time - the run's median step).
std::map<int, double> simulated_growth(stepmodel::RunConfig model, int draws) {
  std::map<int, std::vector<double>> values;
  for (int d = 0; d < draws; ++d) {
    model.seed = static_cast<std::uint64_t>(d) + 1;
    model.repetition = d;
    const sim::SimulatedRun run = sim::simulate(model);
    std::vector<double> steps;
    for (std::size_t s = 0; s < run.step_end_ns.size(); ++s) {
      const std::int64_t begin = s == 0 ? 0 : run.step_end_ns[s - 1];
      steps.push_back(static_cast<double>(run.step_end_ns[s] - begin) / 1e6);
    }
    const double median = median_of(std::vector<double>(
        steps.begin() +
            std::min<std::ptrdiff_t>(model.warmup_steps, static_cast<std::ptrdiff_t>(steps.size())),
        steps.end()));
    for (std::size_t s = 0; s < steps.size(); ++s) {
      values[static_cast<int>(s)].push_back(steps[s] - median);
    }
  }
  std::map<int, double> out;
  for (auto& [step, v] : values) out[step] = median_of(v);
  return out;
}

}  // namespace

void fit_capped_hiccups(Reduction& r, stepmodel::RunConfig model, int draws) {
  std::map<int, double> target;  // step -> the job's growth there
  for (const Cause& c : r.causes) {
    for (const auto& [step, ms] : c.capped_growth_ms) target[step] = ms;
  }
  if (target.empty()) return;
  const auto round_ms = [](double ms) { return std::round(ms * 1000.0) / 1000.0; };
  for (int round = 0; round < 2; ++round) {
    model.inject = {};
    for (const Cause& c : r.causes) {
      for (const auto& d : c.delays) {
        if (d.step_first >= 0) model.inject.delays.push_back(d);
      }
    }
    const std::map<int, double> growth = simulated_growth(model, draws);
    for (const auto& [step, want] : target) {
      auto g = growth.find(step);
      if (g == growth.end()) continue;
      double total = 0;  // the capped delays at this step, over every cause
      for (const Cause& c : r.causes) {
        if (!c.capped_growth_ms.contains(step)) continue;
        for (const auto& d : c.delays) total += d.step_first == step ? d.ms : 0;
      }
      if (!(total > 0)) continue;
      const double factor = std::max(0.0, total + (want - g->second)) / total;
      for (Cause& c : r.causes) {
        if (!c.capped_growth_ms.contains(step)) continue;
        for (auto& d : c.delays) {
          if (d.step_first == step) d.ms = round_ms(d.ms * factor);
        }
      }
    }
  }
}

int repetitions_for(double run_cv, double margin) {
  if (!(margin > 0)) return 8;
  const double n = std::ceil(std::pow(4.0 * run_cv / (margin / 2), 2));
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

int repetitions_for_excess(double step_sigma_ms, int hit_steps, double excess_ms) {
  if (hit_steps <= 0 || !(std::abs(excess_ms) > 0)) return 8;
  const double n =
      std::ceil(std::pow(2.5 * step_sigma_ms / (0.04 * std::abs(excess_ms)), 2) / hit_steps);
  return static_cast<int>(std::clamp(n, 8.0, 60.0));
}

}  // namespace culprit::reduce
