#include "culprit/reduce/reduced_manifest.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace culprit::reduce {
namespace {

// Steps per reduced run when the source had fewer than kFewSteps: a run's median over few
// steps is noisy (8 steps of a profiler window), and more steps cost the simulator little;
// hiccups keep their positions.
constexpr int kFewSteps = 32;
constexpr int kMinSteps = 64;

// The value a manifest written with 6 decimals reads back.
double written(double value) {
  return std::strtod(fmt::format("{:.6f}", value).c_str(), nullptr);
}

std::string signed_ms(double ms) {
  return fmt::format("{:+.2f} ms", ms);
}

std::int64_t first_or_zero(const std::vector<std::int64_t>& runs) {
  return runs.empty() ? 0 : runs.front();
}

std::vector<std::string> header_lines(const Reduction& r, const ReducedManifestOptions& o) {
  const Calibration& c = r.baseline;
  const analysis::Explanation& e = r.original;
  std::vector<std::string> lines = {
      fmt::format("Reduced by `culprit reduce` from runs {} (baseline) and {} (candidate) of {}.",
                  first_or_zero(e.baseline_runs), first_or_zero(e.candidate_runs), o.source_db),
      "A controlled experiment: a model of the same job, calibrated on the baseline run, with",
      "each cause that blind attribution found injected on purpose. If the causes are right,",
      "each one alone reproduces its share of the original change, and the control, which",
      "injects nothing, is equivalent to the baseline.",
      "  culprit run THIS.toml --db reduced.db && culprit explain --db reduced.db",
      "",
      fmt::format("Original: median step {:.2f} ms -> {:.2f} ms ({}) in this pair of runs.",
                  e.baseline_median_ms, e.candidate_median_ms, signed_ms(e.delta_ms))};
  const auto add = [&lines](std::initializer_list<std::string> more) {
    lines.insert(lines.end(), more);
  };
  if (o.baseline_config_runs >= 2 && o.candidate_config_runs >= 2) {
    add({fmt::format("Their configurations ({} vs {} ok runs) differ by a Hodges-Lehmann shift "
                     "of {}: the",
                     o.baseline_config_runs, o.candidate_config_runs,
                     signed_ms(o.configuration_shift_ms)),
         "change to reproduce (the pair's own difference carries its run-to-run noise)."});
  }
  add({fmt::format("Calibration: run {}, {} ranks x {} steady steps; the step below holds the "
                   "phases present",
                   c.run_id, c.ranks, c.steady_steps),
       "in most (rank, steady step) instances, in one instance's issue order, each at the median",
       "over the instances; time a rank spent waiting for a collective is left to the model's",
       fmt::format("own waiting. The schedule adds up to {:.2f} ms on one rank; the measured "
                   "median step is",
                   c.schedule_ms),
       fmt::format("{:.2f} ms (the rest is waiting for the slowest rank at each collective).",
                   c.median_step_ms)});
  return lines;
}

// How the durations were scaled, what was scaled down, and what the reduction could not take.
void add_scaling_lines(const Reduction& r, const ReducedManifestOptions& o,
                       std::vector<std::string>& lines) {
  const Calibration& c = r.baseline;
  if (r.level_scale != 1) {
    lines.push_back(fmt::format(
        "Run {} is one draw of its configuration's run-to-run drift: every duration below is",
        c.run_id));
    lines.push_back(fmt::format(
        "scaled by {:.4f} = the median of its configuration's {} run medians / its own median.",
        r.level_scale, r.run_cv_runs));
  }
  if (r.model_median_ms > 0) {
    lines.push_back(fmt::format(
        "Level: the model, simulated at {} ranks ({} seeds), has a median step of {:.2f} ms;",
        c.ranks, o.level_draws, r.model_median_ms));
    lines.push_back(fmt::format(
        "every duration, gap and transfer below is scaled by {:.4f} to put it on the baseline's",
        r.model_scale));
    lines.push_back(
        fmt::format("{:.2f} ms (the simulator scales exactly; the injected delays are not scaled).",
                    c.median_step_ms * r.level_scale));
  }
  if (r.ranks != c.ranks) {
    lines.push_back(fmt::format(
        "Scaled down from {} to {} ranks: every rank keeps its per-rank work. A delay on one rank",
        c.ranks, r.ranks));
    lines.emplace_back(
        "makes every data-parallel peer wait whatever the rank count, so stragglers scale down;");
    lines.emplace_back(
        "ring transfer time does not (a ring's time goes with 2(n-1)/n), and is kept as measured.");
  }
  for (const auto& note : r.notes) lines.push_back("Note: " + note);
  for (const auto& note : c.notes) lines.push_back("Calibration note: " + note);
  for (const auto& miss : r.not_reproduced) {
    lines.push_back("Not reproduced (left to unclassified): " + miss);
  }
}

manifest::ReducedFrom reduced_from(const Reduction& r, const ReducedManifestOptions& o,
                                   manifest::ManifestLayout& layout) {
  const analysis::Explanation& e = r.original;
  manifest::ReducedFrom from;
  from.baseline_run = first_or_zero(e.baseline_runs);
  from.candidate_run = first_or_zero(e.candidate_runs);
  from.baseline_median_ms = written(e.baseline_median_ms);
  from.candidate_median_ms = written(e.candidate_median_ms);
  from.delta_ms = written(e.delta_ms);
  from.db = o.source_db;
  if (!r.excess_steps.empty()) {
    from.excess_steps = r.excess_steps;
    from.step_excess_ms = written(r.step_excess_ms);
    layout.before["reduced_from.excess_steps"] = {
        "The hiccup steps (positions) and the candidate's mean step excess there over its own",
        "median step: what the causes' runs must reproduce in those steps."};
  }
  if (o.baseline_config_runs >= 2 && o.candidate_config_runs >= 2) {
    from.shift_ms = written(std::round(o.configuration_shift_ms * 100) / 100);
    from.shift_runs = {o.baseline_config_runs, o.candidate_config_runs};
  }
  return from;
}

manifest::ModelSetting model_setting(const std::string& key, manifest::ModelValue value) {
  return {key, std::move(value), "baseline.model." + key, {}};
}

manifest::BaselineSpec baseline(const Reduction& r, const ReducedManifestOptions& o,
                                manifest::ManifestLayout& layout) {
  const Calibration& c = r.baseline;
  manifest::BaselineSpec b;
  b.version = "model";
  b.ranks = r.ranks;
  b.backend = o.backend;
  b.model = {model_setting("compute", std::string("sleep")),
             model_setting("noise_cv", written(c.noise_cv)),
             model_setting("run_cv", r.run_cv_runs >= 2 ? written(r.run_cv) : 0.0)};
  layout.after["baseline.model.noise_cv"] = fmt::format(
      "robust CV of the compute phases' durations in run {}, their median weighted by time",
      c.run_id);
  layout.after["baseline.model.run_cv"] =
      r.run_cv_runs >= 2 ? fmt::format(
                               "robust CV of the run medians of run {}'s configuration "
                               "({} runs)",
                               c.run_id, r.run_cv_runs)
                         : "one baseline run: its run-to-run noise is unknown";
  layout.before["baseline.model.schedule[0]"] = {
      "ms: compute duration, or a collective's transfer time after the last arrival;",
      "gap_ms: host time before the phase; bytes: the collective's payload."};
  for (std::size_t i = 0; i < c.phases.size(); ++i) {
    stepmodel::SchedulePhase p = c.phases[i].phase;
    p.ms = written(p.ms);
    p.gap_ms = written(p.gap_ms);
    b.schedule.push_back(p);
    if (p.collective && c.phases[i].wait_ms > 0) {
      layout.after["baseline.model.schedule[" + std::to_string(i) + "]"] =
          fmt::format("median wait at the call {:.3f} ms", c.phases[i].wait_ms);
    }
  }
  return b;
}

manifest::VersionSpec version(const std::string& name, const std::string& description,
                              const std::vector<stepmodel::DelayInjection>& delays) {
  manifest::VersionSpec v;
  v.name = name;
  v.description = description;
  for (std::size_t i = 0; i < delays.size(); ++i) {
    stepmodel::DelayInjection d = delays[i];
    d.ms = written(d.ms);
    v.inject.delays.push_back(
        {d, "versions." + name + ".inject.delays[" + std::to_string(i) + "]", {}});
  }
  return v;
}

// The model, a version per cause, all causes together (when several), the control; and the
// [[vary]] block that runs them against the model.
void add_versions(const Reduction& r, manifest::Manifest& m, manifest::ManifestLayout& layout) {
  manifest::VarySpec vary;
  vary.factor = "version";
  const auto add = [&](manifest::VersionSpec v, bool varied) {
    layout.version_order.push_back(v.name);
    if (varied) {
      manifest::VaryLevel level;
      level.version = v.name;
      level.path = "vary[0].levels[" + std::to_string(vary.levels.size()) + "]";
      vary.levels.push_back(std::move(level));
    }
    m.versions[v.name] = std::move(v);
  };
  add(version("model", "the calibrated model, nothing injected", {}), false);
  std::vector<stepmodel::DelayInjection> all;
  for (std::size_t i = 0; i < r.causes.size(); ++i) {
    const Cause& cause = r.causes[i];
    const std::string label = "cause-" + std::to_string(i + 1);
    add(version(label,
                cause_title(cause) + " (" + signed_ms(cause.component_ms) +
                    " in explain of the original pair)",
                cause.delays),
        true);
    layout.before["versions." + label + ".inject"] = {cause.where_from};
    all.insert(all.end(), cause.delays.begin(), cause.delays.end());
  }
  if (r.causes.size() > 1) {
    add(version("all-causes", "every cause above together", all), true);
  }
  add(version("control", "the model again, nothing injected: must be equivalent to the baseline",
              {}),
      true);
  m.vary.push_back(std::move(vary));
}

}  // namespace

std::string cause_title(const Cause& c) {
  std::string where = c.phase + (c.layer >= 0 ? " layer " + std::to_string(c.layer) : "");
  if (c.kind == "straggler")
    return "straggler: rank " + std::to_string(c.original_rank) + " " + where;
  return "typical shift: every rank's " + where;
}

ReducedManifest reduced_manifest(const Reduction& r, const ReducedManifestOptions& o) {
  ReducedManifest out;
  manifest::Manifest& m = out.manifest;
  out.layout.header = header_lines(r, o);
  add_scaling_lines(r, o, out.layout.header);
  manifest::ExperimentSettings& s = m.settings;
  s.name = o.name;
  s.manifest_path = o.path;
  s.repetitions = o.repetitions;
  s.max_repetitions = o.repetitions;
  s.warmup_steps = r.baseline.warmup_steps;
  s.steps = r.baseline.steady_steps < kFewSteps ? kMinSteps : r.baseline.steady_steps;
  s.seed = o.seed;
  s.order = "interleaved";
  s.margin = o.margin;
  m.reduced_from = reduced_from(r, o, out.layout);
  m.baseline = baseline(r, o, out.layout);
  add_versions(r, m, out.layout);
  return out;
}

}  // namespace culprit::reduce
