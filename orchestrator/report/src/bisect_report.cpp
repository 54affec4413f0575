#include "culprit/report/bisect_report.hpp"

#include <fmt/format.h>

#include "culprit/report/json_writer.hpp"

namespace culprit::report {
namespace {

using bisect::Outcome;
using bisect::Result;
using bisect::Status;
using bisect::Step;
using bisect::to_string;

const std::string& version(const Result& r, int index) {
  return r.versions.at(static_cast<std::size_t>(index));
}

void name_or_null(JsonWriter& json, const Result& r, int index) {
  index < 0 ? json.null() : json.value(version(r, index));
}

void names(JsonWriter& json, const Result& r, const std::vector<int>& indexes) {
  json.begin_array();
  for (int i : indexes) json.value(version(r, i));
  json.end_array();
}

void step_json(JsonWriter& json, const Result& r, const Step& step) {
  json.begin_object()
      .field("version", version(r, step.index))
      .field("kind", to_string(step.kind))
      .field("verdict", step.outcome == Outcome::kUntestable ? "untestable"
                                                             : stats::verdict_name(step.vs_good))
      .key("vs_bad");
  step.vs_bad ? json.value(stats::verdict_name(*step.vs_bad)) : json.null();
  json.field("outcome", to_string(step.outcome)).field("n", step.n);
  if (!step.note.empty()) json.field("note", step.note);
  json.key("probability");
  step.probability >= 0 ? json.value(step.probability) : json.null();
  json.end_object();
}

std::string ms_text(double value) {
  return fmt::format("{:.2f} ms", value);
}

}  // namespace

std::string bisect_json(const Result& r, const BisectContext& context) {
  const bool found = r.status == Status::kFound;
  JsonWriter json;
  json.begin_object()
      .field("status", to_string(r.status))
      .field("experiment", context.experiment)
      .key("first_bad");
  found ? name_or_null(json, r, r.first_bad) : void(json.null());
  json.key("last_good");
  found ? name_or_null(json, r, r.last_good) : void(json.null());
  if (r.status == Status::kInconclusive) {
    json.key("range").begin_array();
    name_or_null(json, r, r.last_good);
    name_or_null(json, r, r.first_bad);
    json.end_array();
  }
  json.field("shift_ms", r.shift.shift).key("shift_ci_ms");
  json.interval_or_null(r.shift.has_ci, r.shift.shift_lo, r.shift.shift_hi);
  json.field("relative", r.shift.relative).key("relative_ci");
  json.interval_or_null(r.shift.has_ci, r.shift.relative_lo, r.shift.relative_hi);
  json.field("p_value", r.shift.p_value)
      .field("verdict", stats::verdict_name(r.shift.verdict))
      .field("runs", r.runs)
      .key("new_runs");
  context.new_runs >= 0 ? json.value(context.new_runs) : json.null();
  json.key("steps").begin_array();
  for (const auto& step : r.steps) step_json(json, r, step);
  json.end_array().key("candidates").begin_array();
  for (const auto& c : r.candidates) {
    json.begin_object()
        .field("version", version(r, c.index))
        .field("probability", c.probability)
        .end_object();
  }
  json.end_array().field("no_step_probability", r.no_step_probability).key("untestable_candidates");
  names(json, r, r.untestable_candidates);
  json.key("skipped");
  names(json, r, r.skipped);
  json.key("multiple_steps").begin_array();
  for (const auto& m : r.multiple_steps) {
    json.begin_object()
        .field("version", version(r, m.index))
        .field("shift_from_good_ms", m.shift_from_good_ms)
        .field("shift_to_bad_ms", m.shift_to_bad_ms)
        .field("probability", m.probability)
        .end_object();
  }
  json.end_array()
      .key("noise")
      .begin_object()
      .field("cv", r.noise.cv)
      .field("mde_at_cap", r.noise.mde_at_cap)
      .field("max_repetitions", r.noise.max_repetitions)
      .field("runs_needed", r.noise.runs_needed)
      .field("limited", r.noise.limited)
      .field("advice", r.noise.advice)
      .end_object()
      .field("message", r.message)
      .end_object();
  return json.str();
}

namespace {

std::string bisect_text(const Result& r, const BisectContext& context) {
  const auto name = [&](int i) {
    std::string out = r.versions.at(static_cast<std::size_t>(i));
    if (static_cast<std::size_t>(i) < context.details.size() &&
        !context.details[static_cast<std::size_t>(i)].empty()) {
      out += " (" + context.details[static_cast<std::size_t>(i)] + ")";
    }
    return out;
  };
  std::string out;
  out += fmt::format("bisect: {}: {}\n", to_string(r.status), r.message);
  if (r.status == Status::kFound) {
    out += fmt::format("  first bad  {}\n  last good  {}\n", name(r.first_bad), name(r.last_good));
  } else if (r.status == Status::kInconclusive && r.last_good >= 0) {
    out += fmt::format("  remaining range  {} .. {}\n", name(r.last_good), name(r.first_bad));
  }
  out += fmt::format("  shift {} ", ms_text(r.shift.shift));
  out += r.shift.has_ci
             ? fmt::format("[{}, {}]", ms_text(r.shift.shift_lo), ms_text(r.shift.shift_hi))
             : std::string("(no CI at this n)");
  out += fmt::format(", relative {:+.1f} %, {}\n", 100 * r.shift.relative,
                     stats::verdict_name(r.shift.verdict));
  out += fmt::format("  runs {}", r.runs);
  if (context.new_runs >= 0) out += fmt::format(" ({} new)", context.new_runs);
  out += "\n  steps:\n";
  for (const auto& step : r.steps) {
    out += fmt::format(
        "    {:<9} {:<14} {:<12} vs bad {:<12} -> {:<10} n={}", to_string(step.kind),
        r.versions.at(static_cast<std::size_t>(step.index)),
        step.outcome == Outcome::kUntestable ? "untestable" : stats::verdict_name(step.vs_good),
        step.vs_bad ? stats::verdict_name(*step.vs_bad) : "-", to_string(step.outcome), step.n);
    if (!step.note.empty()) out += "  " + step.note;
    out += "\n";
  }
  if (!r.untestable_candidates.empty()) {
    out += "  untestable between last good and first bad (could be the culprit too):";
    for (int i : r.untestable_candidates) out += " " + r.versions.at(static_cast<std::size_t>(i));
    out += "\n";
  }
  if (!r.candidates.empty()) {
    out += "  posterior:";
    for (const auto& c : r.candidates) {
      out += fmt::format(" {} {:.3f}", r.versions.at(static_cast<std::size_t>(c.index)),
                         c.probability);
    }
    out += fmt::format(", no step {:.3f}\n", r.no_step_probability);
  }
  out += fmt::format("  run-to-run CV {:.1f} %, smallest detectable step at {} runs {:.1f} %\n",
                     100 * r.noise.cv, r.noise.max_repetitions, 100 * r.noise.mde_at_cap);
  for (const auto& m : r.multiple_steps) {
    out += fmt::format(
        "  more than one step (probability {:.3f}): from {} on {:+.2f} ms from the good level "
        "and {:.2f} ms below the bad level\n",
        m.probability, name(m.index), m.shift_from_good_ms, m.shift_to_bad_ms);
  }
  return out;
}

}  // namespace

std::string bisect_document(const Result& result, const BisectContext& context, Format format) {
  return format == Format::kJson ? json_document(bisect_json(result, context))
                                 : text_document(bisect_text(result, context));
}

}  // namespace culprit::report
