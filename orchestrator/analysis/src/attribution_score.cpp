#include "culprit/analysis/attribution_score.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cmath>

#include "culprit/analysis/stored_runs.hpp"
#include "culprit/errors.hpp"
#include "robust.hpp"

namespace culprit::analysis {
namespace {

std::int64_t int_or(simdjson::dom::element object, const char* key, std::int64_t fallback) {
  std::int64_t value = 0;
  return object[key].get_int64().get(value) ? fallback : value;
}

double number_or(simdjson::dom::element object, const char* key, double fallback) {
  double value = 0;
  if (!object[key].get_double().get(value)) return value;
  std::int64_t integer = 0;
  if (!object[key].get_int64().get(integer)) return static_cast<double>(integer);
  return fallback;
}

}  // namespace

InjectionTruth injection_truth(const std::string& config_json) {
  InjectionTruth truth;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (config_json.empty() || parser.parse(config_json).get(doc)) return truth;
  simdjson::dom::element inject;
  if (doc["inject"].get(inject)) return truth;
  simdjson::dom::array delays;
  if (!inject["delays"].get_array().get(delays)) {
    for (simdjson::dom::element d : delays) {
      InjectedDelay x;
      x.rank = static_cast<int>(int_or(d, "rank", -1));
      std::string_view phase;
      if (!d["phase"].get_string().get(phase)) x.phase = std::string(phase);
      x.layer = static_cast<int>(int_or(d, "layer", -1));
      x.microbatch = static_cast<int>(int_or(d, "microbatch", -1));
      x.ms = number_or(d, "ms", 0.0);
      if (x.ms > 0 && (!truth.delay || x.ms > truth.delay->ms)) truth.delay = x;
    }
  }
  simdjson::dom::array slowdowns;
  if (!inject["slowdowns"].get_array().get(slowdowns) && slowdowns.size() > 0) {
    truth.other_injection = true;
  }
  return truth;
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
      const InjectionTruth truth = injection_truth(run.config_json);
      if (truth.delay) {
        ValidationCase c;
        c.run_id = stored.id;
        c.config = config.label;
        c.injected = *truth.delay;
        c.blamed = blind.culprit;
        c.median_step_ms = blind.median_step_ms;
        c.hit = blind.culprit.found && blind.culprit.rank == c.injected.rank &&
                blind.culprit.phase == c.injected.phase;
        card.cases.push_back(std::move(c));
      } else if (truth.other_injection) {
        ++card.unscored;
      } else {
        card.controls.push_back({stored.id, config.label, blind.culprit, blind.median_step_ms});
      }
    }
  }
  std::vector<double> control_ms;
  for (const ValidationControl& c : card.controls) {
    control_ms.push_back(c.median_step_ms);
    card.false_positives += c.blamed.found ? 1 : 0;
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
