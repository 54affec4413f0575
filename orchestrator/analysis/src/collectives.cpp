#include "culprit/analysis/collectives.hpp"

#include <algorithm>

#include "robust.hpp"

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

}  // namespace culprit::analysis
