#include "culprit/analysis/collectives.hpp"

#include <algorithm>

#include "culprit/analysis/robust.hpp"

namespace culprit::analysis {

std::vector<CollectiveTiming> time_collectives(const Timeline& timeline) {
  const auto ranks = static_cast<std::size_t>(timeline.ranks());
  std::vector<CollectiveTiming> result;
  result.reserve(timeline.collectives.size());
  std::vector<double> transfers(ranks);
  for (const CollectiveGroup& g : timeline.collectives) {
    CollectiveTiming c;
    static_cast<CollectiveId&>(c) = g;
    c.arrival_ns.resize(ranks);
    c.completion_ns.resize(ranks);
    c.wait_ns.resize(ranks);
    double first = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
      const auto e = static_cast<std::size_t>(g.event[r]);
      c.arrival_ns[r] = timeline.begin_ns[e];
      c.completion_ns[r] = timeline.end_ns[e];
      c.bytes = std::max(c.bytes, timeline.run->events[e].bytes);
      if (c.last_arriver < 0 || c.arrival_ns[r] > c.last_arrival_ns) {
        c.last_arriver = static_cast<int>(r);
        c.last_arrival_ns = c.arrival_ns[r];
      }
      if (r == 0 || c.arrival_ns[r] < first) first = c.arrival_ns[r];
    }
    const auto last = static_cast<std::size_t>(c.last_arriver);
    const double u_last = timeline.alignment[last].uncertainty_ns;
    for (std::size_t r = 0; r < ranks; ++r) {
      c.wait_ns[r] = c.last_arrival_ns - c.arrival_ns[r];
      c.total_wait_ns += c.wait_ns[r];
      transfers[r] = c.completion_ns[r] - c.last_arrival_ns;
      if (r == last) continue;
      if (c.runner_up < 0 || c.arrival_ns[r] > c.arrival_ns[static_cast<std::size_t>(c.runner_up)])
        c.runner_up = static_cast<int>(r);
      if (c.wait_ns[r] <= u_last + timeline.alignment[r].uncertainty_ns)
        c.last_candidates.push_back(static_cast<int>(r));
    }
    c.last_candidates.insert(c.last_candidates.begin(), c.last_arriver);
    c.decided = c.last_candidates.size() == 1;
    c.skew_ns = c.last_arrival_ns - first;
    c.transfer_ns = median_inplace(transfers);
    result.push_back(std::move(c));
  }
  return result;
}

std::vector<std::vector<double>> idle_wait_ns_by_step(
    const Timeline& timeline, const std::vector<CollectiveTiming>& collectives) {
  const auto ranks = static_cast<std::size_t>(std::max(timeline.ranks(), 0));
  // Per rank, its phases merged into disjoint intervals in time order (by_begin is sorted).
  std::vector<std::vector<std::pair<double, double>>> busy(ranks);
  for (std::size_t r = 0; r < ranks && r < timeline.by_begin.size(); ++r) {
    auto& merged = busy[r];
    for (const EventIndex e : timeline.by_begin[r]) {
      const storage::EventKind kind = timeline.event(e).kind;
      if (kind != storage::EventKind::kCompute && kind != storage::EventKind::kHost) continue;
      const auto i = static_cast<std::size_t>(e);
      const double b = timeline.begin_ns[i];
      const double end = timeline.end_ns[i];
      if (!merged.empty() && b <= merged.back().second) {
        merged.back().second = std::max(merged.back().second, end);
      } else {
        merged.emplace_back(b, end);
      }
    }
  }
  std::vector<std::vector<double>> idle(ranks);
  for (const CollectiveTiming& c : collectives) {
    if (c.step < 0) continue;
    const auto step = static_cast<std::size_t>(c.step);
    for (std::size_t r = 0; r < ranks && r < c.arrival_ns.size(); ++r) {
      const double lo = c.arrival_ns[r];
      const double hi = c.last_arrival_ns;
      if (!(hi > lo)) continue;  // the last arriver, or not recorded (NaN)
      // The part of [lo, hi) that the rank's phases cover.
      const auto& merged = busy[r];
      auto it =
          std::lower_bound(merged.begin(), merged.end(), lo,
                           [](const auto& interval, double t) { return interval.second <= t; });
      double covered = 0;
      for (; it != merged.end() && it->first < hi; ++it)
        covered += std::min(hi, it->second) - std::max(lo, it->first);
      if (idle[r].size() <= step) idle[r].resize(step + 1, 0.0);
      idle[r][step] += std::max(0.0, hi - lo - covered);
    }
  }
  return idle;
}

}  // namespace culprit::analysis
