// Manifest -> Plan: expand the configurations, order the runs, warn, estimate the cost.

#include "culprit/manifest/planner.hpp"

#include <map>
#include <stdexcept>
#include <thread>

#include "compose.hpp"
#include "culprit/errors.hpp"
#include "culprit/manifest/model_keys.hpp"
#include "diagnostics.hpp"
#include "estimate.hpp"
#include "order.hpp"

namespace culprit::manifest {
namespace {

using detail::Selection;

constexpr std::size_t kMaxConfigurations = 10000;

// The selection that applies one level of one [[vary]] block.
Selection level_selection(const VarySpec& vary, const VaryLevel& level) {
  Selection s;
  s.factor = vary.factor;
  s.origin = level.path;
  if (vary.factor == "version") {
    s.version = level.version;
    s.level = level.version;
    s.label = "version=" + level.version;
  } else if (vary.factor == "ranks") {
    s.ranks = Located<int>{level.ranks, level.path, level.where};
    s.level = level.ranks;
    s.label = "ranks=" + std::to_string(level.ranks);
  } else if (vary.factor == "delay") {
    s.delays.push_back({level.delay, level.path, level.where});
    s.level = Json::parse(stepmodel::to_json(level.delay));
    s.label = "delay=" + detail::delay_text(level.delay);
  } else {
    s.model.push_back({vary.model_key, level.model_value, level.path, level.where});
    s.level = detail::to_json(level.model_value);
    s.label = vary.factor + "=" + detail::to_text(level.model_value);
  }
  return s;
}

// Several factors at once (a factorial cell): labels and levels joined in block order.
Selection combine(const std::vector<Selection>& parts) {
  if (parts.size() == 1) return parts.front();
  Selection s;
  Json::Object levels;
  std::vector<std::string> labels, factors, origins;
  for (const auto& part : parts) {
    labels.push_back(part.label);
    factors.push_back(part.factor);
    origins.push_back(part.origin);
    levels[part.factor] = part.level;
    if (part.version) s.version = part.version;
    if (part.ranks) s.ranks = part.ranks;
    s.model.insert(s.model.end(), part.model.begin(), part.model.end());
    s.delays.insert(s.delays.end(), part.delays.begin(), part.delays.end());
  }
  s.label = detail::join(labels, ",");
  s.factor = detail::join(factors, ",");
  s.origin = detail::join(origins, ", ");
  s.level = Json(std::move(levels));
  return s;
}

// Refuses a design past kMaxConfigurations at the [[vary]] block that crossed the limit.
[[noreturn]] void refuse_configuration_count(const VarySpec& vary, const char* key,
                                             const char* what, const char* fix) {
  throw UsageError(detail::format_problem(
      vary.where, key, "at most " + std::to_string(kMaxConfigurations) + " " + what, "more", fix));
}

std::vector<Selection> factorial_cells(const Manifest& manifest) {
  std::size_t count = 1;
  for (const auto& vary : manifest.vary) {
    count *= vary.levels.size() + 1;
    if (count > kMaxConfigurations) {
      refuse_configuration_count(vary, "experiment.design", "factorial configurations",
                                 "use fewer levels, or the default one-factor-at-a-time design");
    }
  }
  // Odometer over the blocks; digit 0 is the baseline level of that factor.
  std::vector<Selection> cells;
  std::vector<std::size_t> digit(manifest.vary.size(), 0);
  for (std::size_t cell = 1; cell < count; ++cell) {
    for (std::size_t i = 0; i < digit.size(); ++i) {
      if (++digit[i] <= manifest.vary[i].levels.size()) break;
      digit[i] = 0;
    }
    std::vector<Selection> parts;
    for (std::size_t i = 0; i < digit.size(); ++i) {
      if (digit[i] > 0) {
        parts.push_back(level_selection(manifest.vary[i], manifest.vary[i].levels[digit[i] - 1]));
      }
    }
    cells.push_back(combine(parts));
  }
  return cells;
}

std::vector<Selection> one_factor_cells(const Manifest& manifest) {
  std::size_t count = 1;
  for (const auto& vary : manifest.vary) {
    count += vary.levels.size();
    if (count > kMaxConfigurations) {
      refuse_configuration_count(
          vary, "vary.levels", "configurations in all",
          "split the sweep into several manifests (experiments) or use fewer levels");
    }
  }
  std::vector<Selection> cells;
  for (const auto& vary : manifest.vary) {
    for (const auto& level : vary.levels) cells.push_back(level_selection(vary, level));
  }
  return cells;
}

void warn_oversubscribed(Plan& plan, const Configuration& c, unsigned host_cores) {
  if (c.run.backend == "sim") return;
  const long long demand = static_cast<long long>(c.run.ranks) * c.run.model.threads;
  if (demand <= static_cast<long long>(host_cores)) return;
  plan.warnings.push_back(
      "configuration '" + c.label + "': " + std::to_string(c.run.ranks) + " ranks x " +
      std::to_string(c.run.model.threads) + " thread(s) on " + std::to_string(host_cores) +
      " cores of this host (" + format_number(static_cast<double>(demand) / host_cores) +
      " per core): ranks share cores, so step times include contention; compare it only with "
      "configurations of the same ranks per core, or run on more cores");
}

void add_warnings(Plan& plan) {
  const auto& s = plan.settings;
  if (s.repetitions < 6 && (s.sampling != "adaptive" || s.max_repetitions < 6)) {
    plan.warnings.push_back(
        "experiment.repetitions = " + std::to_string(s.repetitions) +
        ": fewer than 6 runs per configuration give no confidence interval for the median "
        "(`run` makes exactly these; only bisect and verdict add runs, up to stats.max_repetitions "
        "= " +
        std::to_string(s.max_repetitions) + "); use repetitions >= 6");
  }
  if (s.steps < 5) {
    plan.warnings.push_back("experiment.steps = " + std::to_string(s.steps) +
                            ": a run's median over fewer than 5 measured steps is noisy; use "
                            "steps >= 10");
  }
  if (s.warmup_steps == 0) {
    plan.warnings.push_back(
        "experiment.warmup_steps = 0: the first measured step includes one-time setup "
        "(allocation, first touch, connection setup); use warmup_steps >= 1");
  }
}

}  // namespace

Plan make_plan(const Manifest& manifest) {
  return make_plan(manifest, std::max(1u, std::thread::hardware_concurrency()));
}

Plan make_plan(const Manifest& manifest, unsigned host_cores) {
  host_cores = std::max(1u, host_cores);
  Plan plan;
  plan.settings = manifest.settings;
  detail::Diagnostics diagnostics;

  std::vector<Configuration> composed;
  composed.push_back(detail::compose(manifest, Selection{}, diagnostics));
  const bool factorial = manifest.settings.design == "factorial";
  std::map<std::string, std::string> label_of_hash = {{composed.front().config_hash, "baseline"}};
  for (const Selection& cell : factorial ? factorial_cells(manifest) : one_factor_cells(manifest)) {
    Configuration candidate = detail::compose(manifest, cell, diagnostics);
    const auto [it, fresh] = label_of_hash.emplace(candidate.config_hash, candidate.label);
    if (!fresh) {
      // Levels equal to the baseline (or to another level) are the same configuration: merged.
      if (!factorial || it->second != "baseline") {
        plan.warnings.push_back(cell.origin + " ('" + candidate.label +
                                "') is the same configuration as '" + it->second +
                                "'; its runs are that configuration's runs");
      }
      continue;
    }
    composed.push_back(std::move(candidate));
  }
  diagnostics.raise_if_any();

  add_warnings(plan);
  for (auto& c : composed) {
    warn_oversubscribed(plan, c, host_cores);
    // A program of its own (torch, LAMMPS) does what culprit's step model cannot know.
    const bool custom = !c.command.empty();
    c.predicted_step_ms =
        custom ? std::nan("") : detail::predicted_step_seconds(c.run, host_cores) * 1e3;
    c.estimated_run_s = custom ? std::nan("") : detail::estimated_run_seconds(c.run, host_cores);
    plan.configs.push_back(std::move(c));
  }
  append_blocks(plan, manifest.settings.repetitions);
  return plan;
}

void append_blocks(Plan& plan, int blocks, const std::vector<int>& configs) {
  std::vector<int> chosen = configs;
  if (chosen.empty()) {
    for (int i = 0; i < static_cast<int>(plan.configs.size()); ++i) chosen.push_back(i);
  }
  for (int index : chosen) {
    if (index < 0 || index >= static_cast<int>(plan.configs.size())) {
      throw std::out_of_range("append_blocks: no configuration " + std::to_string(index));
    }
  }
  std::vector<int> done(plan.configs.size(), 0);
  for (const auto& run : plan.runs)
    done[run.config_index] = std::max(done[run.config_index], run.repetition + 1);
  const auto add = [&](int index) {
    PlannedRun run;
    run.config_index = index;
    run.repetition = done[index]++;
    run.position = static_cast<int>(plan.runs.size());
    run.seed =
        detail::run_seed(plan.settings.seed, plan.configs[index].config_hash, run.repetition);
    plan.runs.push_back(run);
    if (std::isnan(plan.configs[index].estimated_run_s)) {
      ++plan.unestimated_runs;
    } else {
      plan.estimated_seconds += plan.configs[index].estimated_run_s;
    }
  };
  if (plan.settings.order == "sequential") {
    for (int index : chosen) {
      for (int b = 0; b < blocks; ++b) add(index);
    }
    return;
  }
  for (int b = 0; b < blocks; ++b) {
    std::vector<int> block = chosen;
    // The stream is the block's first position, so appended blocks never repeat a shuffle.
    detail::seeded_shuffle(block, plan.settings.seed, plan.runs.size());
    for (int index : block) add(index);
  }
}

std::string run_config_json(const Plan& plan, const PlannedRun& run) {
  stepmodel::RunConfig resolved = plan.configs.at(run.config_index).run;
  resolved.repetition = run.repetition;
  resolved.seed = run.seed;
  return stepmodel::to_json(resolved);
}

}  // namespace culprit::manifest
