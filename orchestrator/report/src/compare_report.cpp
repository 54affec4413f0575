#include "culprit/report/compare_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "culprit/report/json_writer.hpp"
#include "culprit/report/terminal_text.hpp"

namespace culprit::report {
namespace {

void write_side(JsonWriter& json, const std::string& label, const stats::Summary& s,
                const std::vector<double>& samples) {
  json.begin_object().field("label", label).field("n", s.n).field("median_ms", s.median);
  json.key("ci_ms").interval_or_null(s.has_ci, s.ci_lo, s.ci_hi);
  json.key("ci_level");
  if (s.has_ci) {
    json.value(s.ci_level);
  } else {
    json.null();
  }
  json.field("iqr_ms", s.iqr).field_or_null("robust_cv", s.robust_cv);
  json.field("samples_ms", samples).end_object();
}

// The comparison's fields, inside an object the caller opened.
void write_comparison_fields(JsonWriter& json, const stats::StoredComparison& sc) {
  const stats::Comparison& c = sc.comparison;
  json.key("baseline");
  write_side(json, sc.baseline_label, sc.baseline, sc.baseline_ms);
  json.key("candidate");
  write_side(json, sc.candidate_label, sc.candidate, sc.candidate_ms);
  json.field("factor", sc.factor).field("shift_ms", c.shift);
  json.key("shift_ci_ms").interval_or_null(c.has_ci, c.shift_lo, c.shift_hi);
  json.field("relative", c.relative);
  json.key("relative_ci").interval_or_null(c.has_ci, c.relative_lo, c.relative_hi);
  json.field("p_value", c.p_value)
      .field("verdict", stats::verdict_name(c.verdict))
      .field_or_null("mde_relative", c.mde_relative)
      .field("alpha", c.alpha)
      .field("margin", c.margin)
      .field("method", stats::method_name(c.method))
      .field("ties", c.ties);
}

// "1.53%", or "n/a" for a figure one run cannot give (a spread, a detectable effect).
std::string percent_or_na(const std::optional<double>& v) {
  return v ? fmt::format("{:.2f}%", *v * 100) : "n/a";
}

std::string median_ci_text(const stats::Summary& s) {
  return s.has_ci ? fmt::format("[{:.2f}, {:.2f}]", s.ci_lo, s.ci_hi) : "n < 6: no CI";
}

std::string heading_text(const std::string& experiment, const CompareSettings& settings) {
  std::string out = fmt::format("experiment '{}': alpha {:.4g} per comparison", experiment,
                                settings.alpha_per_comparison);
  if (settings.looks > 1) {
    out += fmt::format(" ({:.4g} split over {} {}looks)", settings.alpha, settings.looks,
                       settings.looks_planned ? "planned " : "");
  }
  return out + fmt::format(", margin {:.4g} %  [{}]\n\n", settings.margin * 100, settings.source);
}

// The label column: a manifest's delay level ("delay=rank1:compute>MPI_Allreduce:10ms") is
// longer than a version's.
std::size_t label_width(const stats::StoredComparisons& result) {
  const auto longer = [](const stats::StoredComparison& sc) {
    return std::max(sc.baseline_label, sc.candidate_label,
                    [](const auto& a, const auto& b) { return a.size() < b.size(); });
  };
  return column_width(32, result.comparisons, longer);
}

// One row per configuration, each shown once although the baseline is in every comparison.
std::string configurations_text(const stats::StoredComparisons& result, std::size_t width) {
  std::string out = fmt::format("{:<{}} {:>4} {:>11}  {:<22} {:>9}\n", "configuration", width, "n",
                                "median ms", "95 % CI of median, ms", "robust CV");
  std::vector<std::string> shown;
  const auto add_row = [&](const std::string& label, const stats::Summary& s) {
    for (const auto& l : shown) {
      if (l == label) return;
    }
    shown.push_back(label);
    out += fmt::format("{:<{}} {:>4} {:>11.2f}  {:<22} {:>9}\n", label, width, s.n, s.median,
                       median_ci_text(s), percent_or_na(s.robust_cv));
  };
  for (const auto& sc : result.comparisons) {
    add_row(sc.baseline_label, sc.baseline);
    add_row(sc.candidate_label, sc.candidate);
  }
  return out;
}

std::string comparison_row(const stats::StoredComparison& sc, std::size_t width) {
  const stats::Comparison& c = sc.comparison;
  const std::string shift =
      c.has_ci ? fmt::format("{:+.2f} [{:+.2f}, {:+.2f}]", c.shift, c.shift_lo, c.shift_hi)
               : fmt::format("{:+.2f} [no CI]", c.shift);
  const std::string relative = c.has_ci
                                   ? fmt::format("{:+.2f}% [{:+.2f}, {:+.2f}]", c.relative * 100,
                                                 c.relative_lo * 100, c.relative_hi * 100)
                                   : fmt::format("{:+.2f}% [no CI]", c.relative * 100);
  return fmt::format("{:<{}} {:<28} {:<26} {:>9.3g}  {:<12} {:>7}\n", sc.candidate_label, width,
                     shift, relative, c.p_value, stats::verdict_name(c.verdict),
                     percent_or_na(c.mde_relative));
}

}  // namespace

std::string compare_json(const stats::StoredComparisons& result) {
  JsonWriter json;
  json.begin_object().field("experiment", result.experiment);
  json.key("comparisons").begin_array();
  for (const auto& sc : result.comparisons) {
    json.begin_object();
    write_comparison_fields(json, sc);
    json.end_object();
  }
  json.end_array();
  json.key("skipped").begin_array();
  for (const auto& s : result.skipped) {
    json.begin_object().field("label", s.label).field("reason", s.reason).end_object();
  }
  json.end_array().end_object();
  return json.str();
}

std::string compare_pair_json(const std::string& experiment, const stats::StoredComparison& pair) {
  JsonWriter json;
  json.begin_object().field("experiment", experiment);
  write_comparison_fields(json, pair);
  json.end_object();
  return json.str();
}

std::string compare_text(const stats::StoredComparisons& result, const CompareSettings& settings) {
  std::string out = heading_text(result.experiment, settings);
  const std::size_t width = label_width(result);
  out += configurations_text(result, width);
  out += fmt::format("\n{:<{}} {:<28} {:<26} {:>9}  {:<12} {:>7}\n", "candidate vs baseline", width,
                     "shift ms [CI]", "relative [CI]", "p", "verdict", "MDE");
  std::vector<std::string> notes;
  for (const auto& sc : result.comparisons) {
    out += comparison_row(sc, width);
    const stats::Comparison& c = sc.comparison;
    if (!c.has_ci) {
      notes.push_back(fmt::format("{}: {} vs {} runs are too few for a shift CI at alpha {:.4g}",
                                  sc.candidate_label, c.n_baseline, c.n_candidate, c.alpha));
    }
  }
  for (const auto& s : result.skipped) {
    notes.push_back(fmt::format("{}: not compared ({})", s.label, s.reason));
  }
  if (!notes.empty()) {
    out += "\n";
    for (const auto& note : notes) out += "note: " + note + "\n";
  }
  out +=
      "\nshift = Hodges-Lehmann (candidate - baseline); relative = shift / baseline median; MDE = "
      "relative shift detectable with 80 % power at this n\n";
  return out;
}

std::string compare_document(const stats::Judgement& judged, bool one_pair, Format format) {
  if (format == Format::kText)
    return text_document(compare_text(judged.comparisons, judged.settings));
  if (one_pair) {
    return json_document(
        compare_pair_json(judged.comparisons.experiment, judged.comparisons.comparisons.front()));
  }
  return json_document(compare_json(judged.comparisons));
}

}  // namespace culprit::report
