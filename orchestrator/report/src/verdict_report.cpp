#include "culprit/report/verdict_report.hpp"

#include <fmt/format.h>

#include "culprit/bisect/git_verdict.hpp"
#include "culprit/report/json_writer.hpp"

namespace culprit::report {

namespace {

std::string verdict_json(const VerdictReport& r) {
  const auto& c = r.comparison;
  JsonWriter json;
  json.begin_object()
      .field("baseline", r.baseline)
      .field("candidate", r.candidate)
      .field("verdict", r.verdict)
      .field("exit", r.exit)
      .field("n", r.n)
      .field("shift_ms", c.shift)
      .field("relative", c.relative)
      .key("shift_ci_ms")
      .interval_or_null(c.has_ci, c.shift_lo, c.shift_hi);
  return json.end_object().str();
}

std::string verdict_text(const VerdictReport& r) {
  const auto& c = r.comparison;
  return fmt::format("{} against {}: {} ({:+.2f} ms, {:+.1f} %, n={}) -> {}\n", r.candidate,
                     r.baseline, r.verdict, c.shift, 100 * c.relative, r.n,
                     bisect::git_bisect::word(r.exit));
}

}  // namespace

std::string verdict_document(const VerdictReport& r, Format format) {
  return format == Format::kJson ? json_document(verdict_json(r)) : text_document(verdict_text(r));
}

}  // namespace culprit::report
