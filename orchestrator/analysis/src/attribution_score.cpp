#include "culprit/analysis/attribution_score.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "culprit/analysis/stored_runs.hpp"
#include "culprit/errors.hpp"
#include "culprit/storage/run_data.hpp"
#include "robust.hpp"

namespace culprit::analysis {

InjectionTruth injection_truth(const stepmodel::Injections& inject) {
  InjectionTruth truth;
  for (const stepmodel::DelayInjection& d : inject.delays) {
    if (d.ms > 0 && (!truth.delay || d.ms > truth.delay->ms)) {
      truth.delay = InjectedDelay{d.rank, d.phase, d.layer, d.microbatch, d.ms};
    }
  }
  truth.other_injection = !inject.slowdowns.empty();
  return truth;
}

InjectionTruth stored_injection_truth(storage::Db& store, std::int64_t run_id) {
  const std::string echo = storage::load_run_config_echo(store, run_id);
  if (echo.empty()) return {};
  try {
    // A program with its own command names its own phases: any name is a phase here.
    const stepmodel::RunConfig config =
        stepmodel::parse_run_config(echo, stepmodel::PhaseNames::kAny);
    if (config.import) return {};  // an imported trace: nothing was injected
    return injection_truth(config.inject);
  } catch (const std::invalid_argument&) {
    return {};  // no resolved configuration at all (a hand-made run file's echo): no truth
  }
}

RunRole run_role(bool is_baseline, const std::string& factor, const InjectionTruth& truth) {
  if (truth.delay) return RunRole::kCase;
  if (truth.other_injection) return RunRole::kUnscored;
  return is_baseline || factor == "delay" ? RunRole::kControl : RunRole::kUninjected;
}

Scorecard score_experiment(storage::Db& store, const std::string& name,
                           const AttributionOptions& options,
                           const std::map<std::int64_t, RunAttribution>* attributed) {
  const StoredExperimentRuns experiment = load_experiment_runs(store, name);
  Scorecard card;
  card.experiment = experiment.name;
  for (const StoredConfig& config : experiment.configs) {
    for (const StoredRun& stored : config.ok_runs) {
      const RunAttribution* known = nullptr;
      if (attributed) {
        const auto it = attributed->find(stored.id);
        if (it != attributed->end()) known = &it->second;
      }
      const storage::RunData run = storage::load_run(
          store, stored.id,
          known ? storage::EventSelection::kStepsOnly : storage::EventSelection::kAll);
      // Blind: attributed before looking at the truth.
      const RunAttribution blind = known ? *known : attribute_run(run, options);
      const InjectionTruth truth = stored_injection_truth(store, stored.id);
      const RunRole role = run_role(config.is_baseline, config.factor, truth);
      if (role == RunRole::kCase) {
        ValidationCase c;
        c.run_id = stored.id;
        c.config = config.label;
        c.injected = *truth.delay;
        c.blamed = blind.culprit;
        c.median_step_ms = blind.median_step_ms;
        // A divergence the machine explains (another process on the rank's core) is not a
        // finding about the code: neither a hit nor, on a control, a false positive.
        c.hit = blind.culprit.is_code() && blind.culprit.rank == c.injected.rank &&
                blind.culprit.phase == c.injected.phase;
        card.cases.push_back(std::move(c));
      } else if (role == RunRole::kUnscored) {
        ++card.unscored;
      } else {
        (role == RunRole::kControl ? card.controls : card.uninjected)
            .push_back({stored.id, config.label, blind.culprit, blind.median_step_ms});
      }
    }
  }
  std::vector<double> control_ms;
  for (const ValidationControl& c : card.controls) {
    control_ms.push_back(c.median_step_ms);
    card.false_positives += c.blamed.is_code() ? 1 : 0;
    card.environment_controls += c.blamed.found && !c.blamed.is_code() ? 1 : 0;
  }
  card.control_median_ms = control_ms.empty() ? std::nan("") : median_inplace(control_ms);
  for (const ValidationCase& c : card.cases) {
    card.hits += c.hit ? 1 : 0;
    if (!std::isnan(card.control_median_ms) && c.injected.ms >= 0.02 * card.control_median_ms) {
      ++card.large_cases;
      card.large_hits += c.hit ? 1 : 0;
    }
  }
  // The smallest delay whose every run was blamed correctly.
  for (const ValidationCase& c : card.cases) {
    const bool all_hit = std::all_of(card.cases.begin(), card.cases.end(), [&](const auto& o) {
      return o.injected.ms != c.injected.ms || o.hit;
    });
    if (all_hit && (!card.smallest_hit_ms || c.injected.ms < *card.smallest_hit_ms))
      card.smallest_hit_ms = c.injected.ms;
  }
  if (!card.cases.empty()) card.accuracy = static_cast<double>(card.hits) / card.cases.size();
  if (!card.controls.empty())
    card.false_positive_rate = static_cast<double>(card.false_positives) / card.controls.size();
  return card;
}

}  // namespace culprit::analysis
