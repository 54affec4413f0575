#include "culprit/bisect/store_measurer.hpp"

#include <spdlog/spdlog.h>

#include "culprit/manifest/planner.hpp"
#include "culprit/storage/queries.hpp"

namespace culprit::bisect {

StoreMeasurer::StoreMeasurer(storage::Db& store, const manifest::Manifest& manifest,
                             VersionSource& versions, launch::ExecuteOptions options,
                             launch::ProgressSink* progress)
    : store_(store),
      manifest_(manifest),
      versions_(versions),
      options_(std::move(options)),
      progress_(progress) {
  manifest::Manifest baseline_only = manifest;
  baseline_only.vary.clear();
  plan_ = manifest::make_plan(baseline_only);
  plan_.runs.clear();  // runs are appended per version as bisection asks for them
  plan_.estimated_seconds = 0;
}

int StoreMeasurer::config_index(int index) {
  if (auto it = config_of_.find(index); it != config_of_.end()) return it->second;
  if (auto it = untestable_.find(index); it != untestable_.end()) throw Untestable(it->second);
  manifest::Configuration config;
  try {
    config = version_configuration(manifest_, versions_.spec(index));
  } catch (const Untestable& e) {
    untestable_[index] = e.what();
    throw;
  }
  int found = -1;
  for (std::size_t i = 0; i < plan_.configs.size(); ++i) {
    if (plan_.configs[i].config_hash == config.config_hash) found = static_cast<int>(i);
  }
  if (found < 0) {
    plan_.configs.push_back(std::move(config));
    found = static_cast<int>(plan_.configs.size()) - 1;
  }
  config_of_[index] = found;
  return found;
}

std::string StoreMeasurer::label(int index) const {
  auto it = config_of_.find(index);
  return it == config_of_.end() ? "" : plan_.configs[static_cast<std::size_t>(it->second)].label;
}

void StoreMeasurer::prefetch(const std::vector<int>& indexes, int min_n) {
  std::vector<int> configs;
  for (int index : indexes) {
    try {
      configs.push_back(config_index(index));
    } catch (const Untestable&) {
      // samples() reports it.
    }
  }
  if (configs.size() < 2) return;
  const auto result = launch::ensure_ok_runs(store_, plan_, configs, min_n, options_, progress_);
  new_runs_ += static_cast<int>(result.runs.size());
}

std::vector<double> StoreMeasurer::samples(int index, int min_n) {
  const int config = config_index(index);
  const auto result = launch::ensure_ok_runs(store_, plan_, {config}, min_n, options_, progress_);
  new_runs_ += static_cast<int>(result.runs.size());
  const auto& c = plan_.configs[static_cast<std::size_t>(config)];
  std::vector<double> medians =
      storage::ok_medians_by_hash(store_, result.experiment_id, c.config_hash);
  if (static_cast<int>(medians.size()) > min_n) medians.resize(static_cast<std::size_t>(min_n));
  if (static_cast<int>(medians.size()) < min_n) {
    std::string why = "its runs keep failing";
    for (auto it = result.runs.rbegin(); it != result.runs.rend(); ++it) {
      if (it->status != storage::RunStatus::kOk) {
        why += " (last: " + std::string(storage::to_text(it->status)) +
               (it->error.empty() ? "" : ", " + it->error) + ")";
        break;
      }
    }
    untestable_[index] = why;
    config_of_.erase(index);
    throw Untestable(why);
  }
  return medians;
}

}  // namespace culprit::bisect
