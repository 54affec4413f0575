#include "culprit/bisect/report.hpp"

#include <fmt/format.h>

#include "culprit/common/json.hpp"

namespace culprit::bisect {
namespace {

Json name_or_null(const Result& r, int index) {
  if (index < 0) return Json();
  return Json(r.versions.at(static_cast<std::size_t>(index)));
}

Json names(const Result& r, const std::vector<int>& indexes) {
  Json::Array out;
  for (int i : indexes) out.emplace_back(r.versions.at(static_cast<std::size_t>(i)));
  return Json(std::move(out));
}

Json step_json(const Result& r, const Step& step) {
  Json::Object o;
  o["version"] = r.versions.at(static_cast<std::size_t>(step.index));
  o["kind"] = std::string(to_string(step.kind));
  o["verdict"] = step.outcome == Outcome::kUntestable
                     ? std::string("untestable")
                     : std::string(stats::verdict_name(step.vs_good));
  o["vs_bad"] = step.vs_bad ? Json(std::string(stats::verdict_name(*step.vs_bad))) : Json();
  o["outcome"] = std::string(to_string(step.outcome));
  o["n"] = step.n;
  if (!step.note.empty()) o["note"] = step.note;
  o["probability"] = step.probability >= 0 ? Json(step.probability) : Json();
  return Json(std::move(o));
}

std::string ms(double value) {
  return fmt::format("{:.2f} ms", value);
}

}  // namespace

std::string result_json(const Result& r, const ReportContext& context) {
  Json::Object o;
  o["status"] = std::string(to_string(r.status));
  o["experiment"] = context.experiment;
  const bool found = r.status == Status::kFound;
  o["first_bad"] = found ? name_or_null(r, r.first_bad) : Json();
  o["last_good"] = found ? name_or_null(r, r.last_good) : Json();
  if (r.status == Status::kInconclusive) {
    o["range"] = Json(Json::Array{name_or_null(r, r.last_good), name_or_null(r, r.first_bad)});
  }
  o["shift_ms"] = r.shift.shift;
  o["shift_ci_ms"] =
      r.shift.has_ci ? Json(Json::Array{Json(r.shift.shift_lo), Json(r.shift.shift_hi)}) : Json();
  o["relative"] = r.shift.relative;
  o["relative_ci"] = r.shift.has_ci
                         ? Json(Json::Array{Json(r.shift.relative_lo), Json(r.shift.relative_hi)})
                         : Json();
  o["p_value"] = r.shift.p_value;
  o["verdict"] = std::string(stats::verdict_name(r.shift.verdict));
  o["runs"] = r.runs;
  o["new_runs"] = context.new_runs >= 0 ? Json(context.new_runs) : Json();
  Json::Array steps;
  for (const auto& step : r.steps) steps.push_back(step_json(r, step));
  o["steps"] = Json(std::move(steps));
  Json::Array candidates;
  for (const auto& c : r.candidates) {
    candidates.emplace_back(
        Json::Object{{"version", r.versions.at(static_cast<std::size_t>(c.index))},
                     {"probability", c.probability}});
  }
  o["candidates"] = Json(std::move(candidates));
  o["no_step_probability"] = r.no_step_probability;
  o["untestable_candidates"] = names(r, r.untestable_candidates);
  o["skipped"] = names(r, r.skipped);
  Json::Array multiple;
  for (const auto& m : r.multiple_steps) {
    multiple.emplace_back(
        Json::Object{{"version", r.versions.at(static_cast<std::size_t>(m.index))},
                     {"shift_from_good_ms", m.shift_from_good_ms},
                     {"shift_to_bad_ms", m.shift_to_bad_ms},
                     {"probability", m.probability}});
  }
  o["multiple_steps"] = Json(std::move(multiple));
  o["noise"] = Json::Object{{"cv", r.noise.cv},
                            {"mde_at_cap", r.noise.mde_at_cap},
                            {"max_repetitions", r.noise.max_repetitions},
                            {"runs_needed", r.noise.runs_needed},
                            {"limited", r.noise.limited},
                            {"advice", r.noise.advice}};
  o["message"] = r.message;
  return Json(std::move(o)).dump();
}

std::string result_text(const Result& r, const ReportContext& context) {
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
  out += fmt::format("  shift {} ", ms(r.shift.shift));
  out += r.shift.has_ci ? fmt::format("[{}, {}]", ms(r.shift.shift_lo), ms(r.shift.shift_hi))
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

}  // namespace culprit::bisect
