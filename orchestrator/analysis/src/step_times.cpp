#include "culprit/analysis/step_times.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace culprit::analysis {

std::vector<StepTime> step_times(const storage::RunData& run) {
  return step_times(run, {});
}

std::vector<StepTime> step_times(const storage::RunData& run,
                                 const std::vector<double>& correction_ns) {
  auto aligned = [&](const storage::Event& e, std::int64_t t) {
    const auto r = static_cast<std::size_t>(e.rank);
    return run.clocks.at(r).aligned(t) + (correction_ns.empty() ? 0.0 : correction_ns.at(r));
  };
  struct Extent {
    double latest_begin = -std::numeric_limits<double>::infinity();
    double latest_end = -std::numeric_limits<double>::infinity();
    int last_rank = -1;
    int ranks_seen = 0;
  };
  std::map<int, Extent> by_step;
  for (const storage::Event& e : run.events) {
    if (e.kind != storage::EventKind::kStep) continue;
    Extent& x = by_step[e.step];
    x.latest_begin = std::max(x.latest_begin, aligned(e, e.begin_ns));
    const double end = aligned(e, e.end_ns);
    if (end > x.latest_end) {
      x.latest_end = end;
      x.last_rank = e.rank;
    }
    ++x.ranks_seen;
  }
  std::vector<StepTime> result;
  double previous = std::numeric_limits<double>::quiet_NaN();
  for (const auto& [step, x] : by_step) {
    if (x.ranks_seen < run.ranks) break;  // an incomplete step ends the usable timeline
    const double start = std::isnan(previous) ? x.latest_begin : previous;
    StepTime t;
    t.step = step;
    t.boundary_ns = x.latest_end;
    t.time_ms = (x.latest_end - start) / 1e6;
    t.last_rank = x.last_rank;
    t.warmup = step < run.warmup_steps;
    result.push_back(t);
    previous = x.latest_end;
  }
  return result;
}

double median_step_ms(const std::vector<StepTime>& steps) {
  std::vector<double> values;
  for (const StepTime& s : steps) {
    if (!s.warmup) values.push_back(s.time_ms);
  }
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace culprit::analysis
