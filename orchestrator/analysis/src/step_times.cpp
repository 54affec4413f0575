#include "culprit/analysis/step_times.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

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

std::string no_steady_step_reason(const storage::RunData& run) {
  std::map<std::pair<int, int>, int> count;  // (step, rank position) -> step events
  for (const storage::Event& e : run.events) {
    if (e.kind == storage::EventKind::kStep) ++count[{e.step, e.rank}];
  }
  if (count.empty()) return "the run holds no step event (no rank marked a step)";
  for (const auto& [key, n] : count) {
    if (n > 1) {
      return fmt::format(
          "rank {} recorded step {} {} times: each step needs its own number (steps numbered "
          "alike are one step)",
          run.rank_id(key.second), key.first, n);
    }
  }
  const int first = count.begin()->first.first;
  const int last = count.rbegin()->first.first;
  if (last < run.warmup_steps) {
    return fmt::format("every step recorded ({}..{}) is within the warm-up (warmup_steps = {})",
                       first, last, run.warmup_steps);
  }
  for (const auto& [key, n] : count) {
    const int step = key.first;
    int ranks = 0;
    for (auto it = count.lower_bound({step, 0}); it != count.end() && it->first.first == step; ++it)
      ++ranks;
    if (ranks < run.ranks) {
      return fmt::format(
          "step {} was recorded by {} of the {} ranks: a step not every rank finished ends the "
          "run's usable steps",
          step, ranks, run.ranks);
    }
  }
  return "the step times give none past the warm-up";
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
