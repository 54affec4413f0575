#include "culprit/analysis/whatif.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <unordered_map>
#include <utility>

#include "culprit/analysis/robust.hpp"
#include "rank_points.hpp"

namespace culprit::analysis {
namespace {

constexpr double kNever = -std::numeric_limits<double>::infinity();

// Rank r's step ends in order of their aligned end, equal ends in step order.
std::vector<StepEnd> step_ends_of_rank(const Timeline& t, std::size_t rank) {
  std::vector<StepEnd> ends;
  for (std::size_t s = 0; s < t.step_event.size(); ++s) {
    const EventIndex e = t.step_event[s][rank];
    if (e != kNoEvent) ends.push_back({e, static_cast<std::int32_t>(s)});
  }
  sort_almost_sorted(ends.begin(), ends.end(), [&](const StepEnd& a, const StepEnd& b) {
    return t.end_ns[static_cast<std::size_t>(a.event)] <
           t.end_ns[static_cast<std::size_t>(b.event)];
  });
  return ends;
}

class Replay {
 public:
  Replay(const Timeline& t, const std::vector<CollectiveTiming>& collectives,
         const PhaseStats& stats, int rank)
      : t_(t), collectives_(collectives), stats_(stats), blamed_(rank) {
    const auto ranks = static_cast<std::size_t>(t.ranks());
    points_.reserve(ranks);
    for (std::size_t r = 0; r < ranks; ++r) points_.emplace_back(t, r, step_ends_of_rank(t, r));
    last_point_.assign(ranks, kNoEvent);
    frontier_.assign(ranks, 0.0);
    pending_.assign(ranks, kNever);
    started_.resize(ranks);
    arrived_.assign(collectives.size(), 0);
    latest_arrival_.assign(collectives.size(), kNever);
    step_end_shift_.assign(t.steps.size() * ranks, 0.0);
  }

  bool run() {
    const auto ranks = points_.size();
    for (bool progress = true; progress;) {
      progress = false;
      for (std::size_t r = 0; r < ranks; ++r) progress |= advance(r);
    }
    for (std::size_t r = 0; r < ranks; ++r) {
      if (!points_[r].done()) return false;
    }
    return true;
  }

  // The replayed shift of rank r's end of Timeline::steps[s].
  double step_end_shift(std::size_t s, std::size_t r) const {
    return step_end_shift_[s * points_.size() + r];
  }

 private:
  // Replays rank r until it needs a completion whose arrivals are not all replayed yet.
  bool advance(std::size_t r) {
    bool moved = false;
    for (RankPoints& points = points_[r]; !points.done(); points.pop(), moved = true) {
      const Point& p = points.peek();
      const auto e = static_cast<std::size_t>(p.event);
      const double ready = std::max(frontier_[r], pending_[r]);
      if (p.kind != PointKind::kComplete) last_point_[r] = p.event;
      switch (p.kind) {
        case PointKind::kStart:
          started_[r].push_back({p.event, ready});
          resume(r, ready);
          break;
        case PointKind::kEnd: {
          // The phase now lasts its replayed duration from its replayed start.
          const double begin = t_.begin_ns[e] + take_start_shift(r, p.event);
          frontier_[r] = begin + duration(p.event) - t_.end_ns[e];
          break;
        }
        case PointKind::kStepEnd:
          step_end_shift_[static_cast<std::size_t>(p.step_index) * points_.size() + r] = ready;
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

  // The replayed shift of phase `e`'s start on rank r, forgotten once read: a rank has only the
  // phases it is inside at once open (0 for an end met before its start: a negative duration).
  double take_start_shift(std::size_t r, EventIndex e) {
    std::vector<std::pair<EventIndex, double>>& open = started_[r];
    for (auto it = open.rbegin(); it != open.rend(); ++it) {
      if (it->first != e) continue;
      const double shift = it->second;
      open.erase(std::next(it).base());
      return shift;
    }
    return 0.0;
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
  std::vector<RankPoints> points_;
  std::vector<EventIndex> last_point_;  // event of the rank's latest point other than a completion
  std::vector<double> frontier_;        // shift of the rank's latest replayed point
  std::vector<double> pending_;         // latest shift of completions since that point
  // Per rank, the phases started and not yet ended, with their replayed start shifts.
  std::vector<std::vector<std::pair<EventIndex, double>>> started_;
  std::vector<std::size_t> arrived_;
  std::vector<double> latest_arrival_;
  std::vector<double> step_end_shift_;  // [step index * ranks + rank]
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
    for (std::size_t r = 0; r < timeline.step_event[s].size(); ++r) {
      const EventIndex e = timeline.step_event[s][r];
      boundary = std::max(
          boundary, timeline.end_ns[static_cast<std::size_t>(e)] + replay.step_end_shift(s, r));
    }
    result.step_ms.push_back((boundary - previous) / 1e6);
    previous = boundary;
  }
  result.whatif_median_ms = median_steady(timeline, result.step_ms);
  return result;
}

}  // namespace culprit::analysis
