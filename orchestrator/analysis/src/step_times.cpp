#include "culprit/analysis/step_times.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "culprit/common/median.hpp"

namespace culprit::analysis {
namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}  // namespace

std::vector<StepTime> step_times(const storage::RunData& run) {
  return step_times(run, {});
}

std::vector<StepTime> step_times(const storage::RunData& run,
                                 const std::vector<double>& correction_ns) {
  StepTimesBuilder builder(run.clocks, correction_ns);
  for (const storage::Event& e : run.events) {
    if (e.kind == storage::EventKind::kStep) builder.add(e.rank, e.step, e.begin_ns, e.end_ns);
  }
  return builder.finish(run.ranks, run.warmup_steps);
}

StepTimesBuilder::StepTimesBuilder(const std::vector<storage::ClockModel>& clocks,
                                   std::vector<double> correction_ns)
    : correction_ns_(std::move(correction_ns)) {
  for (const storage::ClockModel& c : clocks) {
    if (c.rank < 0) continue;
    const auto r = static_cast<std::size_t>(c.rank);
    if (r >= clocks_.size()) {
      const std::size_t from = clocks_.size();
      clocks_.resize(r + 1);
      for (std::size_t i = from; i < clocks_.size(); ++i) {
        clocks_[i].rank = static_cast<std::int32_t>(i);
      }
    }
    clocks_[r] = c;
  }
}

double StepTimesBuilder::aligned(int rank, std::int64_t t) const {
  const auto r = static_cast<std::size_t>(rank);
  const double clock = r < clocks_.size() ? clocks_[r].aligned(t) : static_cast<double>(t);
  return clock + (r < correction_ns_.size() ? correction_ns_[r] : 0.0);
}

void StepTimesBuilder::add(int rank, int step, std::int64_t begin_ns, std::int64_t end_ns) {
  auto [it, inserted] = by_step_.try_emplace(step, Extent{-kInfinity, -kInfinity});
  Extent& x = it->second;
  x.latest_begin = std::max(x.latest_begin, aligned(rank, begin_ns));
  const double end = aligned(rank, end_ns);
  if (end > x.latest_end) {
    x.latest_end = end;
    x.last_rank = rank;
  }
  ++x.ranks_seen;
  max_rank_ = std::max(max_rank_, rank);
  if (rank >= 0) {
    const auto r = static_cast<std::size_t>(rank);
    if (r >= rank_seen_.size()) rank_seen_.resize(r + 1, false);
    if (!rank_seen_[r]) ++distinct_ranks_;
    rank_seen_[r] = true;
  }
}

std::vector<StepTime> StepTimesBuilder::finish(int ranks, int warmup_steps) const {
  // Ranks are counted, not bounded: a partial import keeps the job's ids (ranks 2 and 3 of 4).
  if (distinct_ranks_ > ranks) {
    throw std::invalid_argument("step events of " + std::to_string(distinct_ranks_) +
                                " ranks (the highest " + std::to_string(max_rank_) +
                                ") in a run of " + std::to_string(ranks) +
                                " ranks (meta.ranks): the run file's ranks and events disagree");
  }
  std::vector<StepTime> result;
  double previous = std::numeric_limits<double>::quiet_NaN();
  for (const auto& [step, x] : by_step_) {
    if (x.ranks_seen < ranks) break;  // an incomplete step ends the usable timeline
    const double start = std::isnan(previous) ? x.latest_begin : previous;
    StepTime t;
    t.step = step;
    t.boundary_ns = x.latest_end;
    t.time_ms = (x.latest_end - start) / 1e6;
    t.last_rank = x.last_rank;
    t.warmup = step < warmup_steps;
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
  return median_inplace(values);  // NaN when every step is warm-up
}

}  // namespace culprit::analysis
