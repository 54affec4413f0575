#include "culprit/analysis/delay_costs.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "culprit/analysis/robust.hpp"
#include "culprit/analysis/windows.hpp"

namespace culprit::analysis {
namespace {

// A cause, packed: a phase event e -> 2e; a late call (the collective event e) -> 2e + 1;
// lateness of rank r that nothing explains -> -(r + 1).
using Cause = std::int64_t;
Cause phase_cause(EventIndex e) {
  return 2 * static_cast<Cause>(e);
}
Cause late_call_cause(EventIndex e) {
  return 2 * static_cast<Cause>(e) + 1;
}
Cause unexplained_cause(int rank) {
  return -static_cast<Cause>(rank) - 1;
}

using Fractions = std::vector<std::pair<Cause, double>>;

// Shares below this are folded into the last arriver's unexplained share so chains stay short.
constexpr double kNegligibleShare = 1e-9;

Fractions merge(Fractions parts, Cause fallback) {
  std::sort(parts.begin(), parts.end());
  Fractions merged;
  double folded = 0;
  for (std::size_t i = 0; i < parts.size();) {
    std::size_t j = i;
    double sum = 0;
    while (j < parts.size() && parts[j].first == parts[i].first) sum += parts[j++].second;
    if (sum < kNegligibleShare && parts[i].first != fallback) {
      folded += sum;
    } else {
      merged.emplace_back(parts[i].first, sum);
    }
    i = j;
  }
  if (folded != 0) {
    auto it = std::find_if(merged.begin(), merged.end(),
                           [&](const auto& p) { return p.first == fallback; });
    if (it == merged.end()) {
      merged.emplace_back(fallback, folded);
    } else {
      it->second += folded;
    }
  }
  return merged;
}

DelayCost describe(const Timeline& t, Cause cause, double cost) {
  DelayCost c;
  c.cost_ns = cost;
  if (cause < 0) {
    c.rank = static_cast<int>(-cause - 1);
    return c;
  }
  const storage::Event& e = t.event(static_cast<EventIndex>(cause / 2));
  c.rank = e.rank;
  c.phase = t.run->names[e.name];
  c.step = e.step;
  if (cause % 2 == 1) {
    c.late_call = true;
    c.layer = e.seq;  // a late call is located by its bucket
  } else {
    c.layer = e.layer;
    c.microbatch = e.microbatch;
  }
  return c;
}

void sort_largest_first(std::vector<DelayCost>& costs) {
  std::sort(costs.begin(), costs.end(), [](const DelayCost& a, const DelayCost& b) {
    return a.cost_ns != b.cost_ns
               ? a.cost_ns > b.cost_ns
               : std::tie(a.rank, a.step, a.layer) < std::tie(b.rank, b.step, b.layer);
  });
}

}  // namespace

DelayCosts delay_costs(const Timeline& timeline, const std::vector<CollectiveTiming>& collectives,
                       const PhaseStats& stats, const std::vector<int>& critical_arrivers,
                       const std::vector<bool>& include) {
  const auto ranks = static_cast<std::size_t>(timeline.ranks());
  std::vector<Fractions> fractions(collectives.size());
  std::unordered_map<Cause, double> charged;
  DelayCosts result;
  std::vector<double> values(ranks);
  for (std::size_t k = 0; k < collectives.size(); ++k) {
    const CollectiveTiming& c = collectives[k];
    const int late = critical_arrivers[k];
    const Cause fallback = unexplained_cause(late);
    values = c.arrival_ns;
    const double lateness = c.arrival_ns[static_cast<std::size_t>(late)] - median_inplace(values);
    Fractions parts;
    if (lateness <= 0) {
      parts.emplace_back(fallback, 1.0);
    } else {
      const ArrivalWindow window = arrival_window(timeline, k, late);
      double inherited = 0;
      if (window.previous >= 0) {
        for (std::size_t r = 0; r < ranks; ++r)
          values[r] = arrival_window(timeline, k, static_cast<int>(r)).start_ns;
        inherited = std::clamp(window.start_ns - median_inplace(values), 0.0, lateness);
      }
      const double own = lateness - inherited;
      // The divergent phases in the last arriver's window, with their excess.
      Fractions divergent;
      double total_excess = 0;
      const auto& order = timeline.by_begin[static_cast<std::size_t>(late)];
      for (std::int32_t p = window.first; p < window.arrival; ++p) {
        const EventIndex e = order[static_cast<std::size_t>(p)];
        if (timeline.collective_of[static_cast<std::size_t>(e)] >= 0) continue;
        if (!stats.diverges(timeline, e)) continue;
        divergent.emplace_back(phase_cause(e), stats.excess_ns(timeline, e));
        total_excess += divergent.back().second;
      }
      if (stats.gap_diverges(k, late)) {
        divergent.emplace_back(
            late_call_cause(timeline.collectives[k].event[static_cast<std::size_t>(late)]),
            stats.gap_excess_ns(k, late));
        total_excess += divergent.back().second;
      }
      const double scale = total_excess > 0 ? std::min(1.0, own / total_excess) : 0.0;
      for (auto& [cause, excess] : divergent) parts.emplace_back(cause, scale * excess / lateness);
      parts.emplace_back(fallback, (own - scale * total_excess) / lateness);
      if (inherited > 0) {
        for (const auto& [cause, share] : fractions[static_cast<std::size_t>(window.previous)])
          parts.emplace_back(cause, inherited / lateness * share);
      }
    }
    fractions[k] = merge(std::move(parts), fallback);
    if (!include.empty() && !include[k]) continue;
    result.total_wait_ns += c.total_wait_ns;
    for (const auto& [cause, share] : fractions[k]) charged[cause] += share * c.total_wait_ns;
  }
  for (const auto& [cause, cost] : charged) {
    result.total_cost_ns += cost;
    result.costs.push_back(describe(timeline, cause, cost));
  }
  sort_largest_first(result.costs);
  return result;
}

std::vector<DelayCost> DelayCosts::by_rank_phase_layer() const {
  std::map<std::tuple<int, std::string, int, bool>, double> totals;
  for (const DelayCost& c : costs) totals[{c.rank, c.phase, c.layer, c.late_call}] += c.cost_ns;
  std::vector<DelayCost> result;
  for (const auto& [key, cost] : totals) {
    DelayCost c;
    std::tie(c.rank, c.phase, c.layer, c.late_call) = key;
    c.cost_ns = cost;
    result.push_back(std::move(c));
  }
  sort_largest_first(result);
  return result;
}

}  // namespace culprit::analysis
