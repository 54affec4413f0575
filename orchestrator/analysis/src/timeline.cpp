#include "culprit/analysis/timeline.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>

#include "culprit/analysis/robust.hpp"

namespace culprit::analysis {
namespace {

std::uint64_t collective_key(const storage::Event& e) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(e.step)) << 32) |
         (static_cast<std::uint64_t>(static_cast<std::uint16_t>(e.seq)) << 16) | e.name;
}

// Groups collective events by (step, seq, name); keeps the instances every rank took part in.
std::vector<CollectiveGroup> match_collectives(const storage::RunData& run) {
  std::unordered_map<std::uint64_t, std::size_t> index;
  std::vector<CollectiveGroup> groups;
  const auto ranks = static_cast<std::size_t>(run.ranks);
  for (std::size_t i = 0; i < run.events.size(); ++i) {
    const storage::Event& e = run.events[i];
    if (e.kind != storage::EventKind::kCollective || e.rank < 0 || e.rank >= run.ranks) continue;
    auto [it, inserted] = index.try_emplace(collective_key(e), groups.size());
    if (inserted) {
      CollectiveGroup g;
      g.step = e.step;
      g.seq = e.seq;
      g.name = e.name;
      g.event.assign(ranks, -1);
      groups.push_back(std::move(g));
    }
    groups[it->second].event[static_cast<std::size_t>(e.rank)] = static_cast<std::int32_t>(i);
  }
  std::erase_if(groups, [](const CollectiveGroup& g) {
    return std::find(g.event.begin(), g.event.end(), -1) != g.event.end();
  });
  std::sort(groups.begin(), groups.end(), [](const CollectiveGroup& a, const CollectiveGroup& b) {
    return std::tie(a.step, a.seq, a.name) < std::tie(b.step, b.seq, b.name);
  });
  return groups;
}

// Each event's index inside by_begin[its rank]: every event's in a run that keeps its aligned
// times, else the collectives' only (Timeline::position searches for the rest).
void index_positions(Timeline& t) {
  const std::size_t n = t.run->events.size();
  const auto ranks = static_cast<std::size_t>(t.run->ranks);
  if (n <= kStoredAlignedEvents) {
    t.event_position.assign(n, -1);
    for (std::size_t r = 0; r < ranks; ++r) {
      for (std::size_t p = 0; p < t.by_begin[r].size(); ++p) {
        t.event_position[static_cast<std::size_t>(t.by_begin[r][p])] = static_cast<std::int32_t>(p);
      }
    }
  }
  t.collective_position.assign(t.collectives.size(), std::vector<std::int32_t>(ranks, -1));
  for (std::size_t r = 0; r < ranks; ++r) {
    for (std::size_t p = 0; p < t.by_begin[r].size(); ++p) {
      const std::int32_t k = t.collective_of[static_cast<std::size_t>(t.by_begin[r][p])];
      if (k >= 0)
        t.collective_position[static_cast<std::size_t>(k)][r] = static_cast<std::int32_t>(p);
    }
  }
}

}  // namespace

std::int32_t Timeline::position(EventIndex e) const {
  const auto u = static_cast<std::size_t>(e);
  if (!event_position.empty()) return event_position[u];
  const auto rank = static_cast<std::size_t>(event(e).rank);
  if (const std::int32_t k = collective_of[u]; k >= 0) {
    return collective_position[static_cast<std::size_t>(k)][rank];
  }
  const std::vector<EventIndex>& order = by_begin[rank];
  const double begin = begin_ns[u];
  const double end = end_ns[u];
  auto at = std::lower_bound(order.begin(), order.end(), e, [&](EventIndex a, EventIndex) {
    const auto ua = static_cast<std::size_t>(a);
    return begin_ns[ua] != begin ? begin_ns[ua] < begin : end_ns[ua] < end;
  });
  while (at != order.end() && *at != e) ++at;  // events of equal times: find this one
  return at == order.end() ? -1 : static_cast<std::int32_t>(at - order.begin());
}

Timeline build_timeline(const storage::RunData& run) {
  if (run.ranks <= 0 || run.clocks.size() != static_cast<std::size_t>(run.ranks)) {
    throw std::invalid_argument("run " + std::to_string(run.run_id) +
                                " has no ranks or no clock model per rank: is it a run file?");
  }
  if (run.events.size() > static_cast<std::size_t>(kMaxRunEvents)) {
    throw std::invalid_argument("run " + std::to_string(run.run_id) + " holds " +
                                std::to_string(run.events.size()) + " events, more than the " +
                                std::to_string(kMaxRunEvents) +
                                " one run's analysis can index (32-bit event indices)");
  }
  Timeline t;
  t.run = &run;
  t.collectives = match_collectives(run);
  t.alignment = refine_alignment(run, t.collectives);

  const std::size_t n = run.events.size();
  const auto ranks = static_cast<std::size_t>(run.ranks);
  std::vector<double> corrections(ranks);
  for (std::size_t r = 0; r < ranks; ++r) corrections[r] = t.alignment[r].correction_ns;
  t.begin_ns = AlignedTimes(run, corrections, false);
  t.end_ns = AlignedTimes(run, corrections, true);
  t.collective_of.assign(n, -1);
  t.by_begin.assign(ranks, {});
  {
    // Each rank's list sized exactly: grown by doubling it would hold up to twice its events.
    std::vector<std::size_t> count(ranks, 0);
    for (const storage::Event& e : run.events) {
      if (e.rank >= 0 && e.rank < run.ranks && e.kind != storage::EventKind::kStep)
        ++count[static_cast<std::size_t>(e.rank)];
    }
    for (std::size_t r = 0; r < ranks; ++r) t.by_begin[r].reserve(count[r]);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const storage::Event& e = run.events[i];
    if (e.rank < 0 || e.rank >= run.ranks) continue;
    if (e.kind != storage::EventKind::kStep) {
      t.by_begin[static_cast<std::size_t>(e.rank)].push_back(static_cast<EventIndex>(i));
    }
  }
  for (std::size_t r = 0; r < ranks; ++r) {
    sort_almost_sorted(t.by_begin[r].begin(), t.by_begin[r].end(), [&](EventIndex a, EventIndex b) {
      const auto ua = static_cast<std::size_t>(a);
      const auto ub = static_cast<std::size_t>(b);
      return t.begin_ns[ua] != t.begin_ns[ub] ? t.begin_ns[ua] < t.begin_ns[ub]
                                              : t.end_ns[ua] < t.end_ns[ub];
    });
    t.by_end.push_back(t.by_begin[r]);
    sort_almost_sorted(t.by_end[r].begin(), t.by_end[r].end(), [&](EventIndex a, EventIndex b) {
      const auto ua = static_cast<std::size_t>(a);
      const auto ub = static_cast<std::size_t>(b);
      return t.end_ns[ua] != t.end_ns[ub] ? t.end_ns[ua] < t.end_ns[ub]
                                          : t.begin_ns[ua] < t.begin_ns[ub];
    });
  }
  for (std::size_t k = 0; k < t.collectives.size(); ++k) {
    for (std::int32_t e : t.collectives[k].event) {
      t.collective_of[static_cast<std::size_t>(e)] = static_cast<std::int32_t>(k);
    }
  }
  index_positions(t);

  t.steps = step_times(run, corrections);
  std::unordered_map<std::int32_t, std::size_t> step_index;
  for (std::size_t s = 0; s < t.steps.size(); ++s) step_index[t.steps[s].step] = s;
  t.step_event.assign(t.steps.size(), std::vector<EventIndex>(ranks, kNoEvent));
  for (std::size_t i = 0; i < n; ++i) {
    const storage::Event& e = run.events[i];
    if (e.kind != storage::EventKind::kStep || e.rank < 0 || e.rank >= run.ranks) continue;
    auto it = step_index.find(e.step);
    if (it != step_index.end()) {
      t.step_event[it->second][static_cast<std::size_t>(e.rank)] = static_cast<EventIndex>(i);
    }
  }
  return t;
}

}  // namespace culprit::analysis
