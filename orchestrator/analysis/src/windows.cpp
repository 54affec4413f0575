#include "culprit/analysis/windows.hpp"

namespace culprit::analysis {

ArrivalWindow arrival_window(const Timeline& timeline, std::size_t collective, int rank) {
  const auto r = static_cast<std::size_t>(rank);
  ArrivalWindow w;
  w.rank = rank;
  w.arrival = timeline.position(timeline.collectives[collective].event[r]);
  const auto& order = timeline.by_begin[r];
  if (collective > 0) {
    w.previous = static_cast<int>(collective) - 1;
    const auto prev = timeline.collectives[collective - 1].event[r];
    w.first = timeline.position(prev) + 1;
  }
  if (w.first > w.arrival) w.first = w.arrival;  // reordered by clock noise: an empty window
  w.start_ns =
      timeline.begin_ns[static_cast<std::size_t>(order[static_cast<std::size_t>(w.first)])];
  return w;
}

double divergent_excess_ns(const Timeline& timeline, const PhaseStats& stats,
                           std::size_t collective, const ArrivalWindow& window) {
  const auto& order = timeline.by_begin[static_cast<std::size_t>(window.rank)];
  double sum = 0;
  for (std::int32_t p = window.first; p < window.arrival; ++p) {
    const EventIndex e = order[static_cast<std::size_t>(p)];
    if (timeline.collective_of[static_cast<std::size_t>(e)] >= 0) continue;
    if (stats.diverges(timeline, e)) sum += stats.excess_ns(timeline, e);
  }
  if (stats.gap_diverges(collective, window.rank))
    sum += stats.gap_excess_ns(collective, window.rank);
  return sum;
}

std::vector<int> critical_arrivers(const Timeline& timeline,
                                   const std::vector<CollectiveTiming>& collectives,
                                   const PhaseStats& stats) {
  std::vector<int> result(collectives.size());
  for (std::size_t k = 0; k < collectives.size(); ++k) {
    const CollectiveTiming& c = collectives[k];
    result[k] = c.last_arriver;
    if (c.decided) continue;
    double best = 0;
    for (int candidate : c.last_candidates) {
      const double excess =
          divergent_excess_ns(timeline, stats, k, arrival_window(timeline, k, candidate));
      if (excess > best) {
        best = excess;
        result[k] = candidate;
      }
    }
  }
  return result;
}

}  // namespace culprit::analysis
