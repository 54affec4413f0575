#include "culprit/analysis/whatif.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <unordered_map>

#include "culprit/analysis/robust.hpp"

namespace culprit::analysis {
namespace {

constexpr double kNever = -std::numeric_limits<double>::infinity();

// Points of one rank's timeline, replayed in measured order. At equal times a completion comes
// first, then ends, then step ends, then calls and starts.
enum class PointKind : std::uint8_t { kComplete, kEnd, kStepEnd, kArrive, kStart };

struct Point {
  double time;
  PointKind kind;
  EventIndex event;
};

std::vector<Point> points_of_rank(const Timeline& t, std::size_t rank,
                                  const std::vector<EventIndex>& step_ends) {
  std::vector<Point> points;
  for (EventIndex e : t.by_begin[rank]) {
    const auto u = static_cast<std::size_t>(e);
    const bool collective = t.collective_of[u] >= 0;
    points.push_back({t.begin_ns[u], collective ? PointKind::kArrive : PointKind::kStart, e});
    points.push_back({t.end_ns[u], collective ? PointKind::kComplete : PointKind::kEnd, e});
  }
  auto less = [](const Point& a, const Point& b) {
    return a.time != b.time ? a.time < b.time : a.kind < b.kind;
  };
  sort_almost_sorted(points.begin(), points.end(), less);
  std::vector<Point> ends;
  for (EventIndex e : step_ends) {
    if (e != kNoEvent)
      ends.push_back({t.end_ns[static_cast<std::size_t>(e)], PointKind::kStepEnd, e});
  }
  sort_almost_sorted(ends.begin(), ends.end(), less);
  std::vector<Point> merged;
  merged.reserve(points.size() + ends.size());
  std::merge(points.begin(), points.end(), ends.begin(), ends.end(), std::back_inserter(merged),
             less);
  points = std::move(merged);
  return points;
}

class Replay {
 public:
  Replay(const Timeline& t, const std::vector<CollectiveTiming>& collectives,
         const PhaseStats& stats, int rank)
      : t_(t), collectives_(collectives), stats_(stats), blamed_(rank) {
    const auto ranks = static_cast<std::size_t>(t.ranks());
    points_.resize(ranks);
    for (std::size_t r = 0; r < ranks; ++r) {
      std::vector<EventIndex> step_ends;
      for (const auto& per_rank : t.step_event) step_ends.push_back(per_rank[r]);
      points_[r] = points_of_rank(t, r, step_ends);
    }
    next_.assign(ranks, 0);
    last_point_.assign(ranks, kNoEvent);
    frontier_.assign(ranks, 0.0);
    pending_.assign(ranks, kNever);
    arrived_.assign(collectives.size(), 0);
    latest_arrival_.assign(collectives.size(), kNever);
    start_shift_.assign(t.run->events.size(), 0.0);
    step_end_shift_.assign(t.run->events.size(), 0.0);
  }

  bool run() {
    const auto ranks = points_.size();
    for (bool progress = true; progress;) {
      progress = false;
      for (std::size_t r = 0; r < ranks; ++r) progress |= advance(r);
    }
    for (std::size_t r = 0; r < ranks; ++r) {
      if (next_[r] < points_[r].size()) return false;
    }
    return true;
  }

  double step_end_shift(EventIndex step_event) const {
    return step_end_shift_[static_cast<std::size_t>(step_event)];
  }

 private:
  // Replays rank r until it needs a completion whose arrivals are not all replayed yet.
  bool advance(std::size_t r) {
    bool moved = false;
    for (; next_[r] < points_[r].size(); ++next_[r], moved = true) {
      const Point& p = points_[r][next_[r]];
      const auto e = static_cast<std::size_t>(p.event);
      const double ready = std::max(frontier_[r], pending_[r]);
      if (p.kind != PointKind::kComplete) last_point_[r] = p.event;
      switch (p.kind) {
        case PointKind::kStart:
          start_shift_[e] = ready;
          resume(r, ready);
          break;
        case PointKind::kEnd: {
          // The phase now lasts its replayed duration from its replayed start.
          const double begin = t_.begin_ns[e] + start_shift_[e];
          frontier_[r] = begin + duration(p.event) - t_.end_ns[e];
          break;
        }
        case PointKind::kStepEnd:
          step_end_shift_[e] = ready;
          resume(r, ready);
          break;
        case PointKind::kArrive: {
          const auto k = static_cast<std::size_t>(t_.collective_of[e]);
          const double shift = ready - late_call_saving(k, r);
          latest_arrival_[k] = std::max(latest_arrival_[k], t_.begin_ns[e] + shift);
          ++arrived_[k];
          resume(r, shift);
          break;
        }
        case PointKind::kComplete: {
          const auto k = static_cast<std::size_t>(t_.collective_of[e]);
          if (arrived_[k] < points_.size()) return moved;
          const double shift = latest_arrival_[k] - collectives_[k].last_arrival_ns;
          if (last_point_[r] == p.event) {
            frontier_[r] = shift;  // blocked in the call: the rank resumed at the completion
          } else {
            pending_[r] = std::max(pending_[r], shift);  // overlapped: whatever follows waits
          }
          break;
        }
      }
    }
    return moved;
  }

  // Rank r's latest replayed point is at `shift`, with no completion since it.
  void resume(std::size_t r, double shift) {
    frontier_[r] = shift;
    pending_[r] = kNever;
  }

  double duration(EventIndex e) const {
    const auto u = static_cast<std::size_t>(e);
    if (t_.event(e).rank == blamed_ && !std::isnan(stats_.typical_ns[u]))
      return stats_.typical_ns[u];
    return t_.end_ns[u] - t_.begin_ns[u];
  }

  double late_call_saving(std::size_t k, std::size_t r) const {
    if (static_cast<int>(r) != blamed_) return 0.0;
    const double excess = stats_.gap_excess_ns(k, static_cast<int>(r));
    return std::isnan(excess) ? 0.0 : std::max(excess, 0.0);
  }

  const Timeline& t_;
  const std::vector<CollectiveTiming>& collectives_;
  const PhaseStats& stats_;
  int blamed_;
  std::vector<std::vector<Point>> points_;
  std::vector<std::size_t> next_;
  std::vector<EventIndex> last_point_;  // event of the rank's latest point other than a completion
  std::vector<double> frontier_;        // shift of the rank's latest replayed point
  std::vector<double> pending_;         // latest shift of completions since that point
  std::vector<std::size_t> arrived_;
  std::vector<double> latest_arrival_;
  std::vector<double> start_shift_;
  std::vector<double> step_end_shift_;
};

double median_steady(const Timeline& t, const std::vector<double>& step_ms) {
  std::vector<StepTime> steps = t.steps;
  for (std::size_t s = 0; s < steps.size(); ++s) steps[s].time_ms = step_ms[s];
  return median_step_ms(steps);
}

}  // namespace

WhatIf what_if_rank_typical(const Timeline& timeline,
                            const std::vector<CollectiveTiming>& collectives,
                            const PhaseStats& stats, int rank) {
  WhatIf result;
  result.rank = rank;
  std::vector<double> measured;
  for (const StepTime& s : timeline.steps) measured.push_back(s.time_ms);
  result.measured_median_ms = median_steady(timeline, measured);
  Replay replay(timeline, collectives, stats, rank);
  result.complete = replay.run();
  if (!result.complete) return result;
  double previous = timeline.steps.empty()
                        ? 0.0
                        : timeline.steps[0].boundary_ns - timeline.steps[0].time_ms * 1e6;
  for (std::size_t s = 0; s < timeline.steps.size(); ++s) {
    double boundary = kNever;
    for (EventIndex e : timeline.step_event[s]) {
      boundary = std::max(boundary,
                          timeline.end_ns[static_cast<std::size_t>(e)] + replay.step_end_shift(e));
    }
    result.step_ms.push_back((boundary - previous) / 1e6);
    previous = boundary;
  }
  result.whatif_median_ms = median_steady(timeline, result.step_ms);
  return result;
}

}  // namespace culprit::analysis
