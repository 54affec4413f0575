#include "culprit/report/reduce_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <string>
#include <vector>

#include "culprit/reduce/reduced_manifest.hpp"
#include "culprit/report/json_writer.hpp"

namespace culprit::report {
namespace {

std::string signed_ms(double ms) {
  return fmt::format("{:+.2f} ms", ms);
}

// "rank 1 layer2 +30.47 ms in step 3": one injected delay as the manifest places it.
std::string delay_text(const stepmodel::DelayInjection& d) {
  std::string where =
      d.rank == stepmodel::kEveryRank ? "every rank" : fmt::format("rank {}", d.rank);
  where += " " + d.phase + (d.layer >= 0 ? " layer " + std::to_string(d.layer) : "");
  if (d.step_first >= 0 && d.step_first == d.step_last) {
    return fmt::format("{} {} in step {}", where, signed_ms(d.ms), d.step_first);
  }
  if (d.step_first >= 0 || d.step_last >= 0) {
    return fmt::format("{} {} in steps {} to {}", where, signed_ms(d.ms),
                       d.step_first >= 0 ? std::to_string(d.step_first) : "the first",
                       d.step_last >= 0 ? std::to_string(d.step_last) : "the last");
  }
  return fmt::format("{} {} in every step", where, signed_ms(d.ms));
}

std::string reduce_summary_text(const reduce::Reduction& r, const std::string& output) {
  std::string out = fmt::format(
      "wrote {}: {} ranks, {} phases per step, {} cause(s) for a median step change of {} "
      "(run {} -> run {})\n",
      output, r.ranks, r.baseline.phases.size(), r.causes.size(), signed_ms(r.original.delta_ms),
      r.original.baseline_runs.front(), r.original.candidate_runs.front());
  if (!r.excess_steps.empty()) {
    // A hiccup moves few steps and hardly the median: what the causes must reproduce is here.
    out += fmt::format(
        "  hiccup step(s) {}: {} over the candidate's median step, for the causes' runs to "
        "reproduce in the same steps\n",
        fmt::join(r.excess_steps, ", "), signed_ms(r.step_excess_ms));
  }
  for (std::size_t i = 0; i < r.causes.size(); ++i) {
    const reduce::Cause& c = r.causes[i];
    std::vector<std::string> delays;
    for (const auto& d : c.delays) delays.push_back(delay_text(d));
    out += fmt::format("  cause-{}: {} ({} in explain's median), {} delay(s): {}\n", i + 1,
                       reduce::cause_title(c), signed_ms(c.component_ms), c.delays.size(),
                       fmt::join(delays, "; "));
  }
  for (const auto& miss : r.not_reproduced) out += "  not reproduced: " + miss + "\n";
  for (const auto& note : r.notes) out += "  note: " + note + "\n";
  return out;
}

std::string reduce_summary_json(const reduce::Reduction& r, const std::string& output) {
  JsonWriter w;
  w.begin_object().field("output", output).field("ranks", r.ranks);
  w.field("phases", static_cast<std::int64_t>(r.baseline.phases.size()));
  w.field("baseline_run", r.original.baseline_runs.front());
  w.field("candidate_run", r.original.candidate_runs.front());
  w.field("delta_ms", round_centi(r.original.delta_ms));
  w.field("baseline_median_ms", r.baseline.median_step_ms * r.level_scale);
  w.field("model_scale", r.model_scale);
  w.field("excess_steps", r.excess_steps);
  w.field("step_excess_ms", r.step_excess_ms);
  w.key("causes").begin_array();
  for (std::size_t i = 0; i < r.causes.size(); ++i) {
    const reduce::Cause& c = r.causes[i];
    w.begin_object().field("label", "cause-" + std::to_string(i + 1)).field("kind", c.kind);
    w.field("rank", c.original_rank).field("phase", c.phase).field("layer", c.layer);
    w.field("component_ms", round_centi(c.component_ms));
    w.key("delays").begin_array();
    for (const auto& d : c.delays) {
      w.begin_object().field("rank", d.rank).field("phase", d.phase).field("layer", d.layer);
      w.field("microbatch", d.microbatch).field("step_first", d.step_first);
      w.field("step_last", d.step_last).field("ms", d.ms).end_object();
    }
    w.end_array().end_object();
  }
  w.end_array();
  w.field("not_reproduced", r.not_reproduced);
  w.key("notes").begin_array();
  for (const auto& note : r.notes) w.value(note);
  for (const auto& note : r.baseline.notes) w.value(note);
  w.end_array();
  w.end_object();
  return w.str();
}

}  // namespace

std::string reproduction_text(const std::vector<reduce::Reproduced>& rows,
                              double original_delta_ms) {
  std::string out =
      fmt::format("reproduction of the original {} change:\n", signed_ms(original_delta_ms));
  for (const auto& row : rows) {
    if (std::isnan(row.share)) {
      out += fmt::format("  {}: {} (the original change is below 0.01 ms)\n", row.label,
                         signed_ms(row.delta_ms));
      continue;
    }
    if (row.label.find("control") != std::string::npos) {
      out += fmt::format("  {}: {} (injects nothing: expected 0 %)\n", row.label,
                         signed_ms(row.delta_ms));
      continue;
    }
    const double percent = std::round(100.0 * row.share);
    out += fmt::format("  {}: {} reproduces {:.0f} % of the original {} (not reproduced: {})\n",
                       row.label, signed_ms(row.delta_ms), percent == 0 ? 0.0 : percent,
                       signed_ms(original_delta_ms), signed_ms(row.remainder_ms));
  }
  return out;
}

std::string step_excess_text(const std::vector<reduce::StepExcess>& rows,
                             const std::vector<int>& steps, double original_ms) {
  std::string list;
  for (int s : steps) list += (list.empty() ? "" : ", ") + std::to_string(s);
  std::string out =
      fmt::format("reproduction of the original hiccup: step(s) {} {} over the median step:\n",
                  list, signed_ms(original_ms));
  for (const auto& row : rows) {
    const bool expected_zero =
        row.label == "baseline" || row.label.find("control") != std::string::npos;
    if (expected_zero || std::abs(original_ms) < 0.01) {
      out += fmt::format("  {}: {} ({} runs{})\n", row.label, signed_ms(row.excess_ms), row.runs,
                         expected_zero ? ", injects nothing: expected 0 %" : "");
      continue;
    }
    const double percent = std::round(100.0 * row.excess_ms / original_ms);
    out += fmt::format("  {}: {} reproduces {:.0f} % of the original {} ({} runs)\n", row.label,
                       signed_ms(row.excess_ms), percent == 0 ? 0.0 : percent,
                       signed_ms(original_ms), row.runs);
  }
  return out;
}

std::string reduce_summary_document(const reduce::Reduction& reduction, const std::string& output,
                                    Format format) {
  return format == Format::kJson ? json_document(reduce_summary_json(reduction, output))
                                 : text_document(reduce_summary_text(reduction, output));
}

}  // namespace culprit::report
