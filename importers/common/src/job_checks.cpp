// Files that cannot be one job's, refused even with --partial (a subset of one job's ranks is
// what --partial accepts, not ranks of two jobs), and step numbers that name different
// iterations on different ranks (issue 38 item 4).
#include <algorithm>
#include <cstdio>
#include <limits>

#include "culprit/common/median.hpp"
#include "culprit/errors.hpp"
#include "culprit/importers/mapping.hpp"

namespace culprit::importers {
namespace {

std::string ms_text(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
  return buf;
}

[[noreturn]] void refuse(const RankTrace& a, const RankTrace& b, const std::string& what) {
  throw UsageError(a.file + " and " + b.file + " are not of one job: " + what +
                   " (even --partial imports only ranks of one job): import each job's files on "
                   "their own");
}

// Timestamps since the epoch (Kineto: integer µs, or baseTimeNanoseconds + µs) rather than since
// the profiler's start (legacy, nsys): ranks of one job then share one clock up to the hosts'.
constexpr std::int64_t kEpochLike_ns = 1'000'000'000'000'000;  // after 1970-01-12
// Hosts' clocks agree far better; two captures further apart are two profiling windows.
constexpr std::int64_t kCaptureGap_ns = 1'000'000'000;

std::pair<std::int64_t, std::int64_t> capture(const RankTrace& t) {
  std::int64_t lo = std::numeric_limits<std::int64_t>::max();
  std::int64_t hi = std::numeric_limits<std::int64_t>::min();
  for (const TraceRecord& r : t.records) {
    lo = std::min(lo, r.begin_ns);
    hi = std::max(hi, r.end_ns);
  }
  return {lo, hi};
}

}  // namespace

void check_one_job(const std::vector<RankTrace>& traces) {
  const RankTrace* sized = nullptr;
  const RankTrace* timed = nullptr;
  std::pair<std::int64_t, std::int64_t> window{};
  for (const RankTrace& t : traces) {
    if (t.world_size > 0) {
      if (sized && sized->world_size != t.world_size) {
        refuse(*sized, t,
               "their world sizes differ (" + std::to_string(sized->world_size) + " and " +
                   std::to_string(t.world_size) + ")");
      }
      if (!sized) sized = &t;
    }
    for (const RankTrace& u : traces) {
      if (&u == &t) break;
      for (const auto& [group, ranks] : t.group_ranks) {
        auto other = u.group_ranks.find(group);
        if (other != u.group_ranks.end() && other->second != ranks) {
          refuse(u, t,
                 "their process group '" + group +
                     "' (distributedInfo.pg_config) has "
                     "other ranks");
        }
      }
    }
    if (t.format != "kineto" || t.records.empty()) continue;
    const auto span = capture(t);
    if (span.first < kEpochLike_ns) continue;
    if (timed && (span.first > window.second + kCaptureGap_ns ||
                  window.first > span.second + kCaptureGap_ns)) {
      refuse(*timed, t,
             "they were captured " +
                 ms_text(static_cast<double>(
                     std::max(span.first - window.second, window.first - span.second))) +
                 " apart, in different profiling windows");
    }
    if (!timed) {
      timed = &t;
      window = span;
    }
  }
}

void check_step_numbers(const std::vector<RankTrace>& traces, const std::vector<RankSteps>& steps,
                        const std::vector<RankClock>& clocks, std::vector<std::string>& warnings) {
  if (traces.empty() || steps[0].steps.empty()) return;
  std::vector<double> spans;
  for (const StepSpan& s : steps[0].steps)
    spans.push_back(static_cast<double>(s.end_ns - s.begin_ns));
  const double step = median_inplace(spans);
  for (std::size_t r = 1; r < traces.size(); ++r) {
    // Every rank's profiler starts recording at the same iteration, and ranks in lockstep are
    // less than a step apart: a clock offset of a step or more means that the collectives matched
    // by step number are of different iterations (one rank's ProfilerStep#N shifted by one).
    if (clocks[r].constraints == 0 || std::abs(clocks[r].offset_ns) < step) continue;
    warnings.insert(warnings.begin(),
                    "STEP NUMBERS DISAGREE: " + traces[r].file + "'s collectives complete " +
                        ms_text(std::abs(clocks[r].offset_ns)) + " from " + traces[0].file +
                        "'s of the same step number, more than a median step (" + ms_text(step) +
                        "): its ProfilerStep#N labels likely name other iterations (shifted "
                        "by one?); step times and attribution pair different iterations");
  }
}

}  // namespace culprit::importers
