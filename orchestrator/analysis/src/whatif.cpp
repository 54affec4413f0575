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
    last_time_.assign(ranks, kNever);
    wake_.resize(ranks);
    outstanding_.resize(ranks);
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
      double ready = std::max(frontier_[r], pending_[r] - p.time);
      if (p.kind != PointKind::kComplete) {
        if (!idle_wakes_known(r, p.time)) return moved;
        ready = woken(r, p.time, ready);
        last_point_[r] = p.event;
        last_time_[r] = p.time;
      }
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
          outstanding_[r].push_back(k);
          resume(r, shift);
          break;
        }
        case PointKind::kComplete: {
          const auto k = static_cast<std::size_t>(t_.collective_of[e]);
          if (arrived_[k] < points_.size()) return moved;
          const double shift = latest_arrival_[k] - collectives_[k].last_arrival_ns;
          std::erase(outstanding_[r], k);
          if (last_point_[r] == p.event) {
            frontier_[r] = shift;  // blocked in the call: the rank resumed at the completion
          } else {
            if (started_[r].empty()) note_wake(r, p.time, shift);
            // Overlapped: whatever follows comes after the replayed completion.
            pending_[r] = std::max(pending_[r], p.time + shift);
          }
          break;
        }
      }
    }
    return moved;
  }

  // Rank r idle (no phase open) since its latest point may have been waiting for a collective
  // whose own call returned long before (an asynchronous all-reduce: DDP's wait lies in
  // `backward` after its last op). What can end such a wait: a completion met idle, or the last
  // arrival of a collective the rank is in (a rank's recorded completion can come after its main
  // thread went on: gloo's execution event outlives the wait). The latest one of either is noted.
  void note_wake(std::size_t r, double time, double shift) {
    if (!wake_[r].noted || time >= wake_[r].time) wake_[r] = {time, shift, true};
  }

  // Whether collective k's last arrival fell in rank r's gap since its latest point, up to `time`.
  bool arrived_last_in_gap(std::size_t r, std::size_t k, double time) const {
    const double last = collectives_[k].last_arrival_ns;
    return last > last_time_[r] && last <= time;
  }

  // Whether every last arrival that may end rank r's idle wait before `time` is replayed.
  bool idle_wakes_known(std::size_t r, double time) const {
    if (!started_[r].empty()) return true;
    return std::none_of(outstanding_[r].begin(), outstanding_[r].end(), [&](std::size_t k) {
      return arrived_last_in_gap(r, k, time) && arrived_[k] < points_.size();
    });
  }

  // The shift of rank r's next point at `time`: `ready`, unless the rank woke from an idle wait.
  // It did when the point came nearer the wake than the rank's latest point (a wake inside a host
  // gap of unrecorded work leaves the work in place); it then resumes at the replayed wake, not
  // before its latest point nor an earlier completion.
  double woken(std::size_t r, double time, double ready) {
    if (started_[r].empty()) {
      for (const std::size_t k : outstanding_[r]) {
        const double last = collectives_[k].last_arrival_ns;
        if (arrived_last_in_gap(r, k, time)) note_wake(r, last, latest_arrival_[k] - last);
      }
    }
    const Wake wake = wake_[r];
    wake_[r].noted = false;
    if (!wake.noted || time - wake.time > wake.time - last_time_[r]) return ready;
    return std::max(
        {wake.shift, pending_[r] - wake.time, frontier_[r] - (wake.time - last_time_[r])});
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
  std::vector<double> last_time_;       // that point's (measured) time
  // Per rank, the latest wake from an idle wait since that point, and its replayed shift.
  struct Wake {
    double time = 0;
    double shift = 0;
    bool noted = false;
  };
  std::vector<Wake> wake_;
  // Per rank, the collectives it arrived at and has not completed.
  std::vector<std::vector<std::size_t>> outstanding_;
  std::vector<double> frontier_;  // shift of the rank's latest replayed point
  std::vector<double> pending_;   // latest replayed time of completions since that point
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
