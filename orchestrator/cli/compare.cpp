// `culprit compare`: the baseline against every other configuration of an experiment (or one
// named pair): medians with CIs, Hodges–Lehmann shift with CI, p-value, verdict.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "culprit/errors.hpp"
#include "culprit/manifest/manifest.hpp"
#include "culprit/stats/sampling.hpp"
#include "culprit/stats/stored.hpp"
#include "culprit/storage/store.hpp"

namespace culprit::cli {
namespace {

struct CompareArgs {
  CommonOptions common;
  std::string manifest;
  std::string experiment;
  std::string baseline;
  std::string candidate;
  std::optional<double> alpha;
  std::optional<double> margin;
};

// Overall alpha, margin and the planned looks of adaptive sampling, as the experiment ran.
struct StatsSettings {
  double alpha = 0.05;
  double margin = 0.02;
  int looks = 1;
  std::string source = "defaults";
};

StatsSettings settings_from(const manifest::ExperimentSettings& s, const std::string& source) {
  stats::SamplingPlan plan;
  plan.repetitions = s.repetitions;
  plan.max_repetitions = s.max_repetitions;
  plan.alpha = s.alpha;
  return {s.alpha, s.margin, stats::planned_looks(plan), source};
}

// ---- JSON output (one document on stdout) ----

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<int>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string json_pair(bool present, double lo, double hi) {
  return present ? fmt::format("[{},{}]", lo, hi) : "null";
}

std::string json_side(const std::string& label, const stats::Summary& s,
                      const std::vector<double>& samples) {
  return fmt::format(
      "{{\"label\":{},\"n\":{},\"median_ms\":{},\"ci_ms\":{},\"ci_level\":{},\"iqr_ms\":{},"
      "\"robust_cv\":{},\"samples_ms\":[{}]}}",
      json_string(label), s.n, s.median, json_pair(s.has_ci, s.ci_lo, s.ci_hi),
      s.has_ci ? fmt::format("{}", s.ci_level) : "null", s.iqr, s.robust_cv,
      fmt::join(samples, ","));
}

std::string json_comparison(const stats::StoredComparison& sc) {
  const stats::Comparison& c = sc.comparison;
  return fmt::format(
      "{{\"baseline\":{},\"candidate\":{},\"factor\":{},\"shift_ms\":{},\"shift_ci_ms\":{},"
      "\"relative\":{},\"relative_ci\":{},\"p_value\":{},\"verdict\":{},\"mde_relative\":{},"
      "\"alpha\":{},\"margin\":{},\"method\":{},\"ties\":{}}}",
      json_side(sc.baseline_label, sc.baseline, sc.baseline_ms),
      json_side(sc.candidate_label, sc.candidate, sc.candidate_ms), json_string(sc.factor), c.shift,
      json_pair(c.has_ci, c.shift_lo, c.shift_hi), c.relative,
      json_pair(c.has_ci, c.relative_lo, c.relative_hi), c.p_value,
      json_string(stats::verdict_name(c.verdict)), c.mde_relative, c.alpha, c.margin,
      json_string(stats::method_name(c.method)), c.ties ? "true" : "false");
}

void print_json(const stats::StoredComparisons& result, bool single_pair) {
  if (single_pair) {
    std::string object = json_comparison(result.comparisons.front());
    object.insert(1, "\"experiment\":" + json_string(result.experiment) + ",");
    std::cout << object << "\n";
    return;
  }
  std::vector<std::string> items;
  for (const auto& sc : result.comparisons) items.push_back(json_comparison(sc));
  std::vector<std::string> skipped;
  for (const auto& s : result.skipped) {
    skipped.push_back(
        fmt::format("{{\"label\":{},\"reason\":{}}}", json_string(s.label), json_string(s.reason)));
  }
  std::cout << fmt::format("{{\"experiment\":{},\"comparisons\":[{}],\"skipped\":[{}]}}\n",
                           json_string(result.experiment), fmt::join(items, ","),
                           fmt::join(skipped, ","));
}

// ---- human output ----

std::string ci_text(const stats::Summary& s) {
  return s.has_ci ? fmt::format("[{:.2f}, {:.2f}]", s.ci_lo, s.ci_hi) : "n < 6: no CI";
}

void print_table(const stats::StoredComparisons& result, const StatsSettings& settings,
                 double alpha) {
  std::cout << fmt::format("experiment '{}': alpha {:.4g} per comparison", result.experiment,
                           alpha);
  if (settings.looks > 1) {
    std::cout << fmt::format(" ({:.4g} split over {} planned looks)", settings.alpha,
                             settings.looks);
  }
  std::cout << fmt::format(", margin {:.4g} %  [{}]\n\n", settings.margin * 100, settings.source);

  std::cout << fmt::format("{:<32} {:>4} {:>11}  {:<22} {:>9}\n", "configuration", "n", "median ms",
                           "95 % CI of median, ms", "robust CV");
  std::vector<std::string> shown;
  const auto print_side = [&](const std::string& label, const stats::Summary& s) {
    for (const auto& l : shown) {
      if (l == label) return;
    }
    shown.push_back(label);
    std::cout << fmt::format("{:<32} {:>4} {:>11.2f}  {:<22} {:>8.2f}%\n", label, s.n, s.median,
                             ci_text(s), s.robust_cv * 100);
  };
  for (const auto& sc : result.comparisons) {
    print_side(sc.baseline_label, sc.baseline);
    print_side(sc.candidate_label, sc.candidate);
  }

  std::cout << fmt::format("\n{:<32} {:<28} {:<26} {:>9}  {:<12} {:>7}\n", "candidate vs baseline",
                           "shift ms [CI]", "relative [CI]", "p", "verdict", "MDE");
  std::vector<std::string> notes;
  for (const auto& sc : result.comparisons) {
    const stats::Comparison& c = sc.comparison;
    const std::string shift =
        c.has_ci ? fmt::format("{:+.2f} [{:+.2f}, {:+.2f}]", c.shift, c.shift_lo, c.shift_hi)
                 : fmt::format("{:+.2f} [no CI]", c.shift);
    const std::string relative = c.has_ci
                                     ? fmt::format("{:+.2f}% [{:+.2f}, {:+.2f}]", c.relative * 100,
                                                   c.relative_lo * 100, c.relative_hi * 100)
                                     : fmt::format("{:+.2f}% [no CI]", c.relative * 100);
    std::cout << fmt::format("{:<32} {:<28} {:<26} {:>9.3g}  {:<12} {:>6.2f}%\n",
                             sc.candidate_label, shift, relative, c.p_value,
                             stats::verdict_name(c.verdict), c.mde_relative * 100);
    if (!c.has_ci) {
      notes.push_back(fmt::format("{}: {} vs {} runs are too few for a shift CI at alpha {:.4g}",
                                  sc.candidate_label, c.n_baseline, c.n_candidate, c.alpha));
    }
  }
  for (const auto& s : result.skipped) {
    notes.push_back(fmt::format("{}: not compared ({})", s.label, s.reason));
  }
  if (!notes.empty()) {
    std::cout << "\n";
    for (const auto& note : notes) std::cout << "note: " << note << "\n";
  }
  std::cout << "\nshift = Hodges-Lehmann (candidate - baseline); relative = shift / baseline "
               "median; MDE = relative shift detectable with 80 % power at this n\n";
}

int run_compare(const CompareArgs& args) {
  std::optional<manifest::Manifest> loaded;
  if (!args.manifest.empty()) loaded = manifest::load_manifest(args.manifest);

  std::string db = args.common.db;
  if (db.empty() && loaded && !loaded->settings.db.empty()) db = loaded->settings.db;
  if (db.empty()) db = "culprit.db";
  auto store = storage::open_existing_store(db);

  const std::string experiment_name =
      !args.experiment.empty() ? args.experiment : (loaded ? loaded->settings.name : "");
  const stats::StoredExperiment experiment = stats::load_stored_experiment(*store, experiment_name);

  StatsSettings settings;
  if (loaded) {
    settings = settings_from(loaded->settings, "from " + args.manifest);
  } else if (!experiment.manifest_text.empty()) {
    try {
      settings = settings_from(
          manifest::parse_manifest(experiment.manifest_text, experiment.manifest_path).settings,
          "from the stored manifest");
    } catch (const std::exception& e) {
      spdlog::warn(
          "the stored manifest of '{}' does not parse ({}); using alpha 0.05, margin "
          "0.02",
          experiment.name, e.what());
    }
  }
  if (args.alpha) settings.alpha = *args.alpha;
  if (args.margin) settings.margin = *args.margin;

  stats::ComparisonRequest request;
  request.baseline_label = args.baseline;
  request.candidate_label = args.candidate;
  request.options.alpha = settings.alpha / settings.looks;
  request.options.margin = settings.margin;
  const stats::StoredComparisons result = stats::compare_stored(experiment, request);

  if (args.common.json) {
    print_json(result, !args.candidate.empty());
  } else {
    print_table(result, settings, request.options.alpha);
  }
  return exit_code::kOk;
}

}  // namespace

void register_compare(CLI::App& app, Outcome& outcome) {
  auto* command = app.add_subcommand(
      "compare", "Compare median step time of configurations: shift, CI, p-value, verdict");
  auto args = std::make_shared<CompareArgs>();
  add_json_flag(*command, args->common);
  add_db_option(*command, args->common);
  command->add_option("manifest", args->manifest,
                      "Manifest of the experiment (its name, experiment.db and [stats])");
  command->add_option("--experiment", args->experiment,
                      "Experiment name in the store (default: the manifest's, else the latest)");
  command->add_option("--baseline", args->baseline,
                      "Configuration label to compare against (default: the baseline)");
  command->add_option("--candidate", args->candidate,
                      "Compare only this configuration (default: every other one)");
  command
      ->add_option("--alpha", args->alpha,
                   "Overall two-sided alpha (default: the manifest's stats.alpha, 0.05)")
      ->check(CLI::Range(1e-9, 0.5));
  command
      ->add_option("--margin", args->margin,
                   "Practical margin on the relative shift (default: stats.margin, 0.02)")
      ->check(CLI::Range(0.0, 10.0));
  command->callback([&outcome, args] { outcome.exit_code = run_compare(*args); });
}

}  // namespace culprit::cli
