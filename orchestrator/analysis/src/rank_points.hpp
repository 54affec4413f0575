#pragma once
// One rank's timeline as the what-if replay walks it: the points (a phase's start and end, a
// collective's arrival and completion, the step's end) in (time, kind) order, produced on demand
// by merging five sequences the Timeline already holds in order, so the replay of a 131,072-rank
// run keeps no copy of its events (it kept 32 bytes an event).
//
// At equal times a completion comes first, then ends, then step ends, then calls and starts;
// points of one kind at equal times keep the rank's by_begin order (by_end orders equal ends by
// begin, which is by_begin's order among them), as a stable sort of the points would.

#include <array>
#include <cstdint>
#include <vector>

#include "culprit/analysis/timeline.hpp"

namespace culprit::analysis {

enum class PointKind : std::uint8_t { kComplete, kEnd, kStepEnd, kArrive, kStart };

struct Point {
  double time = 0;
  PointKind kind = PointKind::kStart;
  EventIndex event = kNoEvent;
  std::int32_t step_index = -1;  // a step end's index into Timeline::steps
};

// A step end of one rank: its step event and that step's index into Timeline::steps.
struct StepEnd {
  EventIndex event = kNoEvent;
  std::int32_t step_index = -1;
};

class RankPoints {
 public:
  // `step_ends`: the rank's step ends in order of their aligned end (equal ends in step order).
  RankPoints(const Timeline& t, std::size_t rank, std::vector<StepEnd> step_ends)
      : t_(&t), rank_(rank), step_ends_(std::move(step_ends)) {
    for (int s = 0; s < kSequences; ++s) settle(s);
    best_ = best();
  }
  bool done() const { return best_ < 0; }
  // The next point; done() must be false.
  const Point& peek() const { return head_[static_cast<std::size_t>(best_)]; }
  void pop() {
    ++cursor_[static_cast<std::size_t>(best_)];
    settle(best_);
    best_ = best();
  }

 private:
  static constexpr int kSequences = 5;  // indexed by PointKind

  // Moves sequence s's cursor to its next point (skipping events of the other kind) and caches it.
  void settle(int s) {
    const auto kind = static_cast<PointKind>(s);
    std::uint32_t& at = cursor_[static_cast<std::size_t>(s)];
    Point& head = head_[static_cast<std::size_t>(s)];
    head.event = kNoEvent;
    if (kind == PointKind::kStepEnd) {
      if (at < step_ends_.size()) {
        const StepEnd& e = step_ends_[at];
        head = {t_->end_ns[static_cast<std::size_t>(e.event)], kind, e.event, e.step_index};
      }
      return;
    }
    const bool begins = kind == PointKind::kArrive || kind == PointKind::kStart;
    const bool collective = kind == PointKind::kArrive || kind == PointKind::kComplete;
    const std::vector<EventIndex>& order = begins ? t_->by_begin[rank_] : t_->by_end[rank_];
    for (; at < order.size(); ++at) {
      const auto e = static_cast<std::size_t>(order[at]);
      if ((t_->collective_of[e] >= 0) != collective) continue;
      head = {begins ? t_->begin_ns[e] : t_->end_ns[e], kind, order[at], -1};
      return;
    }
  }
  // The sequence whose head comes first, -1 when every one is exhausted.
  int best() const {
    int found = -1;
    for (int s = 0; s < kSequences; ++s) {
      const Point& p = head_[static_cast<std::size_t>(s)];
      if (p.event == kNoEvent) continue;
      if (found < 0 || p.time < head_[static_cast<std::size_t>(found)].time) found = s;
    }
    return found;  // equal times: the lower kind, as s counts up in PointKind order
  }

  const Timeline* t_;
  std::size_t rank_;
  std::vector<StepEnd> step_ends_;
  std::array<std::uint32_t, kSequences> cursor_{};
  std::array<Point, kSequences> head_{};
  int best_ = -1;
};

}  // namespace culprit::analysis
