#include "culprit/report/plan_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "culprit/common/json.hpp"

namespace culprit::report {
namespace {

// A model estimate, or "unknown" (NaN: a custom command's).
std::string estimate(double value, const char* unit) {
  return std::isnan(value) ? std::string("unknown") : fmt::format("{:.1f} {}", value, unit);
}

Json estimate_json(double value) {
  return std::isnan(value) ? Json() : Json(value);
}

std::string duration(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 7200) return fmt::format("{:.1f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

}  // namespace

std::string plan_text(const manifest::Plan& plan) {
  const auto& s = plan.settings;
  std::string out = fmt::format("experiment {} ({})\n", s.name, s.manifest_path);
  out += fmt::format(
      "  design {}, order {}, seed {}, {} repetitions ({} add up to {}), {} warm-up + {} steps, "
      "alpha {}, margin {}\n\n",
      s.design, s.order, s.seed, s.repetitions,
      s.sampling == "adaptive" ? "run, while inconclusive, and bisect/verdict" : "bisect/verdict",
      s.max_repetitions, s.warmup_steps, s.steps, s.alpha, s.margin);

  std::size_t label_width = 13, factor_width = 6;
  for (const auto& c : plan.configs) {
    label_width = std::max(label_width, c.label.size());
    factor_width = std::max(factor_width, c.factor.size());
  }
  out += fmt::format("configurations ({})\n", plan.configs.size());
  out += fmt::format("  {:>3}  {:<{}}  {:<{}}  {:>5}  {:<7}  {:<10}  {:>10}  {:>9}  {}\n", "#",
                     "label", label_width, "factor", factor_width, "ranks", "backend", "version",
                     "step (est)", "run (est)", "hash");
  for (std::size_t i = 0; i < plan.configs.size(); ++i) {
    const auto& c = plan.configs[i];
    out += fmt::format("  {:>3}  {:<{}}  {:<{}}  {:>5}  {:<7}  {:<10}  {:>10}  {:>9}  {}\n", i,
                       c.label, label_width, c.is_baseline ? "-" : c.factor, factor_width, c.ranks,
                       c.backend, c.version.empty() ? "(built-in)" : c.version,
                       estimate(c.predicted_step_ms, "ms"), estimate(c.estimated_run_s, "s"),
                       c.config_hash.substr(0, 12));
  }

  out += fmt::format("\nruns ({}, in execution order)\n", plan.runs.size());
  out += fmt::format("  {:>8}  {:<{}}  {:>10}  {}\n", "position", "configuration", label_width,
                     "repetition", "seed");
  for (const auto& run : plan.runs) {
    out += fmt::format("  {:>8}  {:<{}}  {:>10}  {}\n", run.position,
                       plan.configs[run.config_index].label, label_width, run.repetition, run.seed);
  }

  out += fmt::format("\nwarnings ({})\n", plan.warnings.size());
  for (const auto& warning : plan.warnings) out += "  - " + warning + "\n";
  if (plan.warnings.empty()) out += "  none\n";

  if (plan.unestimated_runs == static_cast<int>(plan.runs.size())) {
    out += fmt::format(
        "\nestimated cost: {} runs, unknown (custom commands: culprit's step model does not know "
        "their step time; a first `culprit run` measures it)\n",
        plan.runs.size());
  } else {
    out += fmt::format(
        "\nestimated cost: {} runs, about {}{} (rough: model-predicted step times "
        "plus launch overhead)\n",
        plan.runs.size(), duration(plan.estimated_seconds),
        plan.unestimated_runs > 0
            ? fmt::format(" plus {} runs of custom commands (unknown)", plan.unestimated_runs)
            : std::string());
  }
  return out;
}

std::string plan_json(const manifest::Plan& plan) {
  const auto& s = plan.settings;
  Json::Array configs;
  for (std::size_t i = 0; i < plan.configs.size(); ++i) {
    const auto& c = plan.configs[i];
    configs.push_back(Json::Object{{"index", static_cast<int>(i)},
                                   {"label", c.label},
                                   {"factor", c.factor},
                                   {"level", Json::parse(c.level_json)},
                                   {"baseline", c.is_baseline},
                                   {"version", c.version},
                                   {"backend", c.backend},
                                   {"ranks", c.ranks},
                                   {"config_hash", c.config_hash},
                                   {"predicted_step_ms", estimate_json(c.predicted_step_ms)},
                                   {"estimated_run_s", estimate_json(c.estimated_run_s)}});
  }
  Json::Array runs;
  for (const auto& run : plan.runs) {
    runs.push_back(Json::Object{{"config", plan.configs[run.config_index].label},
                                {"config_index", run.config_index},
                                {"repetition", run.repetition},
                                {"position", run.position},
                                {"seed", run.seed}});
  }
  Json::Array warnings(plan.warnings.begin(), plan.warnings.end());
  Json::Object settings{{"name", s.name},
                        {"manifest", s.manifest_path},
                        {"manifest_hash", s.manifest_hash},
                        {"db", s.db},
                        {"repetitions", s.repetitions},
                        {"max_repetitions", s.max_repetitions},
                        {"sampling", s.sampling},
                        {"warmup_steps", s.warmup_steps},
                        {"steps", s.steps},
                        {"seed", static_cast<std::uint64_t>(s.seed)},
                        {"timeout_s", s.timeout_s},
                        {"order", s.order},
                        {"design", s.design},
                        {"alpha", s.alpha},
                        {"margin", s.margin},
                        {"python", s.python}};
  return Json(Json::Object{{"experiment", settings},
                           {"configs", configs},
                           {"runs", runs},
                           {"warnings", warnings},
                           {"estimated_s", plan.estimated_seconds},
                           {"unestimated_runs", plan.unestimated_runs}})
      .dump();
}

std::string plan_document(const manifest::Plan& plan, Format format) {
  return format == Format::kJson ? json_document(plan_json(plan)) : text_document(plan_text(plan));
}

}  // namespace culprit::report
