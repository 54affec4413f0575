#include "culprit/analysis/phase_stats.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>

#include "culprit/analysis/robust.hpp"

namespace culprit::analysis {
namespace {

// (microbatch, layer, name) of a phase packed into one sortable word; steps are kept apart by
// grouping first, which keeps the sorts small.
std::uint64_t instance_key(const storage::Event& e) {
  if (e.microbatch < -1 || e.microbatch >= 0xFFFF || e.layer < -1 || e.layer >= 0xFFFF) {
    throw std::invalid_argument("event with microbatch " + std::to_string(e.microbatch) +
                                " and layer " + std::to_string(e.layer) +
                                " is out of the supported range [-1, 65534]");
  }
  return (static_cast<std::uint64_t>(e.microbatch + 1) << 32) |
         (static_cast<std::uint64_t>(e.layer + 1) << 16) | e.name;
}

// Groups phase events by step, preserving the common case of events already ordered by step.
// Calls f(phases) with each step's phase events (index order), steps in order of first
// appearance. Events in step order (RunData's order) are walked a step at a time, so only one
// step's indices are held; otherwise every step's are gathered first.
template <typename F>
void each_step_phases(const storage::RunData& run, F&& f) {
  auto kept = [&](const storage::Event& e) {
    return is_phase(e) && e.rank >= 0 && e.rank < run.ranks;
  };
  const bool by_step = std::is_sorted(
      run.events.begin(), run.events.end(),
      [](const storage::Event& a, const storage::Event& b) { return a.step < b.step; });
  if (by_step) {
    std::vector<EventIndex> step;
    for (std::size_t i = 0; i < run.events.size();) {
      const std::int32_t number = run.events[i].step;
      step.clear();
      for (; i < run.events.size() && run.events[i].step == number; ++i) {
        if (kept(run.events[i])) step.push_back(static_cast<EventIndex>(i));
      }
      if (!step.empty()) f(step);
    }
    return;
  }
  std::unordered_map<std::int32_t, std::size_t> bucket_of;
  std::vector<std::vector<EventIndex>> buckets;
  for (std::size_t i = 0; i < run.events.size(); ++i) {
    const storage::Event& e = run.events[i];
    if (!kept(e)) continue;
    auto [it, inserted] = bucket_of.try_emplace(e.step, buckets.size());
    if (inserted) buckets.emplace_back();
    buckets[it->second].push_back(static_cast<EventIndex>(i));
  }
  for (const std::vector<EventIndex>& step : buckets) f(step);
}

// The relative deviation of every phase from its typical duration, pooled per name: the spread
// each name's sigma comes from. A run too large to keep its aligned times (AlignedTimes) gathers
// one name's at a time (a pass over the events per name) rather than a deviation per event at
// once; a median does not depend on the order of its values, so both give the same sigmas.
void pooled_sigmas(const Timeline& t, PhaseStats& stats) {
  const storage::RunData& run = *t.run;
  std::vector<std::size_t> count(run.names.size(), 0);
  for (std::size_t i = 0; i < run.events.size(); ++i) {
    if (stats.typical_ns[i] > 0) ++count[run.events[i].name];
  }
  const bool one_name_at_a_time = run.events.size() > kStoredAlignedEvents;
  std::vector<std::vector<double>> deviations(one_name_at_a_time ? 1 : run.names.size());
  auto gather = [&](std::size_t only_name) {
    for (std::size_t i = 0; i < run.events.size(); ++i) {
      const double typical = stats.typical_ns[i];
      const std::size_t name = run.events[i].name;
      if (!(typical > 0) || (one_name_at_a_time && name != only_name)) continue;
      deviations[one_name_at_a_time ? 0 : name].push_back(
          t.duration_ns(static_cast<EventIndex>(i)) / typical - 1.0);
    }
  };
  if (!one_name_at_a_time) {
    for (std::size_t n = 0; n < count.size(); ++n) deviations[n].reserve(count[n]);
    gather(0);
    for (std::size_t n = 0; n < count.size(); ++n)
      stats.sigma_relative[n] = robust_sigma_about_zero(deviations[n]);
    return;
  }
  for (std::size_t n = 0; n < count.size(); ++n) {
    if (count[n] == 0) continue;
    deviations[0].clear();
    deviations[0].reserve(count[n]);
    gather(n);
    stats.sigma_relative[n] = robust_sigma_about_zero(deviations[0]);
  }
}

int steady_steps(const Timeline& t) {
  int n = 0;
  for (const StepTime& s : t.steps) n += s.warmup ? 0 : 1;
  return n;
}

// Deviations of each member of one sorted group from the median of the others, leaving out the
// member of rank `skip_rank` entirely (-1: keep all). `relative`: value / typical - 1, else
// value - typical.
template <typename Sink>
void deviations_without(const std::vector<double>& values, const std::vector<int>& ranks,
                        int skip_rank, bool relative, std::vector<double>& scratch, Sink sink) {
  scratch.clear();
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (ranks[i] != skip_rank) scratch.push_back(values[i]);
  }
  for (std::size_t i = 0; i < scratch.size(); ++i) {
    const double typical = median_without(scratch.data(), scratch.size(), i);
    if (std::isnan(typical)) continue;
    if (!relative) {
      sink(scratch[i] - typical);
    } else if (typical > 0) {
      sink(scratch[i] / typical - 1.0);
    }
  }
}

// Step-to-step variation of each series (one rank's phase instance over the steady steps):
// deviations from the series' median, pooled per (pool index, rank).
void series_deviations(
    const std::map<std::tuple<std::size_t, int, std::uint64_t>, std::vector<double>>& series,
    bool relative, std::vector<std::vector<std::vector<double>>>& pools) {
  for (const auto& [key, values] : series) {
    if (values.size() < static_cast<std::size_t>(kMinSteadySteps)) continue;
    const double centre = median_of(values);
    auto& pool = pools[std::get<0>(key)][static_cast<std::size_t>(std::get<1>(key))];
    for (double v : values) {
      if (!relative) {
        pool.push_back(v - centre);
      } else if (centre > 0) {
        pool.push_back(v / centre - 1.0);
      }
    }
  }
}

enum class SmallWorld { kNone, kPeers, kSteps };

SmallWorld small_world(const Timeline& t, PhaseStats& stats) {
  const int ranks = t.ranks();
  if (ranks < 2 || ranks > kLeaveOneOutMaxRanks) return SmallWorld::kNone;
  if (ranks >= 3) return SmallWorld::kPeers;
  if (steady_steps(t) >= kMinSteadySteps) return SmallWorld::kSteps;
  stats.noise_note = "2 ranks and " + std::to_string(steady_steps(t)) +
                     " steady steps: noise cannot be estimated without the straggler (needs " +
                     std::to_string(kMinSteadySteps) +
                     " steady steps); a straggler may be missed, run more steps";
  return SmallWorld::kNone;
}

// The noise used to judge each rank, from `without[rank]`: robust sigma times `scale`, or
// `pooled` when there is nothing to estimate it from.
std::vector<double> sigmas_without(std::vector<std::vector<double>>& without, double scale,
                                   double pooled) {
  std::vector<double> result;
  for (std::vector<double>& devs : without)
    result.push_back(devs.empty() ? pooled : scale * robust_sigma_about_zero(devs));
  return result;
}

// Two ranks: the excess is the difference of the two ranks' durations, whose noise is
// sqrt(sigma_self^2 + sigma_peer^2), each rank's sigma its own step-to-step variation (robust,
// so a cause present in every step does not widen it; a pattern in only part of the steps
// does, and is then not taken as a cause on two ranks alone). Without any series: `pooled`.
std::vector<double> two_rank_sigmas(std::vector<std::vector<double>>& own, double pooled) {
  std::vector<double> sigma(own.size(), kNaN);
  for (std::size_t r = 0; r < own.size(); ++r) {
    if (!own[r].empty()) sigma[r] = robust_sigma_about_zero(own[r]);
  }
  std::vector<double> result;
  for (std::size_t r = 0; r < own.size(); ++r) {
    const double self = sigma[r];
    const double peer = sigma[own.size() - 1 - r];
    if (std::isnan(self) && std::isnan(peer)) {
      result.push_back(pooled);
    } else if (std::isnan(self) || std::isnan(peer)) {
      result.push_back(1.4142135623730951 * (std::isnan(self) ? peer : self));
    } else {
      result.push_back(std::sqrt(self * self + peer * peer));
    }
  }
  return result;
}

// The phase events of one step grouped by instance key (microbatch, layer, name), groups in key
// order and each group's events in index order: a hash pass, not a sort of the whole step.
class InstanceGroups {
 public:
  void build(const Timeline& t, const std::vector<EventIndex>& step) {
    slot_.clear();
    for (std::size_t g = 0; g < used_; ++g) groups_[g].second.clear();
    used_ = 0;
    std::uint64_t last_key = 0;
    std::size_t last = static_cast<std::size_t>(-1);
    for (EventIndex e : step) {
      const std::uint64_t key = instance_key(t.event(e));
      if (last == static_cast<std::size_t>(-1) || key != last_key) {
        auto [it, inserted] = slot_.try_emplace(key, used_);
        if (inserted) {
          if (used_ == groups_.size()) groups_.emplace_back();
          groups_[used_++].first = key;
        }
        last_key = key;
        last = it->second;
      }
      groups_[last].second.push_back(e);
    }
    order_.resize(used_);
    for (std::size_t g = 0; g < used_; ++g) order_[g] = g;
    std::sort(order_.begin(), order_.end(),
              [&](std::size_t a, std::size_t b) { return groups_[a].first < groups_[b].first; });
  }
  std::size_t size() const { return used_; }
  std::uint64_t key(std::size_t i) const { return groups_[order_[i]].first; }
  const std::vector<EventIndex>& events(std::size_t i) const { return groups_[order_[i]].second; }

 private:
  std::unordered_map<std::uint64_t, std::size_t> slot_;
  std::vector<std::pair<std::uint64_t, std::vector<EventIndex>>> groups_;  // reused across steps
  std::size_t used_ = 0;
  std::vector<std::size_t> order_;
};

void typical_durations(const Timeline& t, SmallWorld world, PhaseStats& stats) {
  const storage::RunData& run = *t.run;
  const auto ranks = static_cast<std::size_t>(std::max(run.ranks, 0));
  stats.typical_ns.assign(run.events.size(), kNaN);
  std::vector<std::vector<double>> deviations(run.names.size());
  std::vector<std::vector<std::vector<double>>> without(
      world == SmallWorld::kNone ? 0 : run.names.size(), std::vector<std::vector<double>>(ranks));
  std::map<std::tuple<std::size_t, int, std::uint64_t>, std::vector<double>> series;
  InstanceGroups groups;
  std::vector<std::pair<double, EventIndex>> group;
  std::vector<double> sorted;
  std::vector<int> group_ranks;
  std::vector<double> scratch;
  each_step_phases(run, [&](const std::vector<EventIndex>& step) {
    const bool steady = !step.empty() && t.event(step.front()).step >= run.warmup_steps;
    groups.build(t, step);
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const std::vector<EventIndex>& members = groups.events(g);
      const auto name = static_cast<std::size_t>(t.event(members.front()).name);
      if (world == SmallWorld::kNone) {
        // Many ranks: each member against its peers' median, from three order statistics.
        sorted.clear();
        for (EventIndex e : members) sorted.push_back(t.duration_ns(e));
        const LeaveOneOutMedian peers(sorted, scratch);
        for (std::size_t i = 0; i < members.size(); ++i) {
          stats.typical_ns[static_cast<std::size_t>(members[i])] = peers.of(sorted[i]);
        }
        continue;  // the deviations: pooled_sigmas, once every typical duration is known
      }
      group.clear();
      for (EventIndex e : members) group.emplace_back(t.duration_ns(e), e);
      std::sort(group.begin(), group.end());
      sorted.clear();
      group_ranks.clear();
      for (const auto& [duration, e] : group) {
        sorted.push_back(duration);
        group_ranks.push_back(t.event(e).rank);
      }
      for (std::size_t i = 0; i < group.size(); ++i) {
        const double typical = median_without(sorted.data(), sorted.size(), i);
        stats.typical_ns[static_cast<std::size_t>(group[i].second)] = typical;
        if (typical > 0) deviations[name].push_back(sorted[i] / typical - 1.0);
      }
      if (world == SmallWorld::kPeers) {
        for (std::size_t x = 0; x < ranks; ++x) {
          deviations_without(sorted, group_ranks, static_cast<int>(x), true, scratch,
                             [&](double d) { without[name][x].push_back(d); });
        }
      } else if (steady) {
        for (std::size_t i = 0; i < group.size(); ++i)
          series[{name, group_ranks[i], groups.key(g)}].push_back(sorted[i]);
      }
    }
  });
  stats.sigma_relative.assign(run.names.size(), 0.0);
  if (world == SmallWorld::kNone) return pooled_sigmas(t, stats);
  for (std::size_t n = 0; n < deviations.size(); ++n) {
    stats.sigma_relative[n] = robust_sigma_about_zero(deviations[n]);
  }
  if (world == SmallWorld::kSteps) {
    std::vector<std::vector<std::vector<double>>> own(run.names.size(),
                                                      std::vector<std::vector<double>>(ranks));
    series_deviations(series, true, own);
    for (std::size_t n = 0; n < own.size(); ++n)
      stats.sigma_relative_without.push_back(two_rank_sigmas(own[n], stats.sigma_relative[n]));
    return;
  }
  for (std::size_t n = 0; n < without.size(); ++n)
    stats.sigma_relative_without.push_back(
        sigmas_without(without[n], 1.0, stats.sigma_relative[n]));
}

// The end of the latest event on the rank that finished before the call at `position`.
double previous_end(const Timeline& t, int rank, std::int32_t position, double arrival) {
  const auto& order = t.by_begin[static_cast<std::size_t>(rank)];
  double best = kNaN;
  constexpr std::int32_t kLookBack = 32;  // overlapped collectives can sit in between
  for (std::int32_t p = position - 1; p >= 0 && p >= position - kLookBack; --p) {
    const double end = t.end_ns[static_cast<std::size_t>(order[static_cast<std::size_t>(p)])];
    if (end <= arrival && !(end <= best)) best = end;
  }
  return best;
}

void arrival_gaps(const Timeline& t, const std::vector<CollectiveTiming>& collectives,
                  SmallWorld world, PhaseStats& stats) {
  const auto ranks = static_cast<std::size_t>(t.ranks());
  stats.gap_ns.assign(collectives.size(), std::vector<double>(ranks, kNaN));
  stats.typical_gap_ns.assign(collectives.size(), std::vector<double>(ranks, kNaN));
  std::vector<double> deviations;
  std::vector<std::vector<double>> without(world == SmallWorld::kNone ? 0 : ranks);
  std::map<std::tuple<std::size_t, int, std::uint64_t>, std::vector<double>> series;
  std::vector<std::pair<double, std::size_t>> sorted;
  std::vector<double> values;
  std::vector<int> value_ranks;
  std::vector<double> scratch;
  std::vector<std::size_t> gap_ranks;
  for (std::size_t k = 0; k < collectives.size(); ++k) {
    sorted.clear();
    values.clear();
    gap_ranks.clear();
    for (std::size_t r = 0; r < ranks; ++r) {
      const EventIndex e = t.collectives[k].event[r];
      const double arrival = collectives[k].arrival_ns[r];
      const double end = previous_end(t, static_cast<int>(r), t.position(e), arrival);
      if (std::isnan(end)) continue;
      stats.gap_ns[k][r] = arrival - end;
      values.push_back(arrival - end);
      gap_ranks.push_back(r);
    }
    if (world == SmallWorld::kNone) {
      // Many ranks: each rank's gap against its peers' median, from three order statistics.
      const LeaveOneOutMedian peers(values, scratch);
      for (std::size_t i = 0; i < values.size(); ++i) {
        const double typical = peers.of(values[i]);
        stats.typical_gap_ns[k][gap_ranks[i]] = typical;
        if (!std::isnan(typical)) deviations.push_back(values[i] - typical);
      }
      continue;
    }
    for (std::size_t i = 0; i < values.size(); ++i) sorted.emplace_back(values[i], gap_ranks[i]);
    std::sort(sorted.begin(), sorted.end());
    values.clear();
    value_ranks.clear();
    for (const auto& [gap, r] : sorted) {
      values.push_back(gap);
      value_ranks.push_back(static_cast<int>(r));
    }
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      const double typical = median_without(values.data(), values.size(), i);
      stats.typical_gap_ns[k][sorted[i].second] = typical;
      if (!std::isnan(typical)) deviations.push_back(values[i] - typical);
    }
    if (world == SmallWorld::kPeers) {
      for (std::size_t x = 0; x < ranks; ++x) {
        deviations_without(values, value_ranks, static_cast<int>(x), false, scratch,
                           [&](double d) { without[x].push_back(d); });
      }
    } else if (world == SmallWorld::kSteps && collectives[k].step >= t.run->warmup_steps) {
      for (std::size_t i = 0; i < values.size(); ++i) {
        series[{0, value_ranks[i], static_cast<std::uint64_t>(collectives[k].seq)}].push_back(
            values[i]);
      }
    }
  }
  stats.sigma_gap_ns = robust_sigma_about_zero(deviations);
  if (world == SmallWorld::kNone) return;
  if (world == SmallWorld::kSteps) {
    std::vector<std::vector<std::vector<double>>> own(1, std::vector<std::vector<double>>(ranks));
    series_deviations(series, false, own);
    stats.sigma_gap_without_ns = two_rank_sigmas(own[0], stats.sigma_gap_ns);
    return;
  }
  stats.sigma_gap_without_ns = sigmas_without(without, 1.0, stats.sigma_gap_ns);
}

}  // namespace

double PhaseStats::excess_ns(const Timeline& timeline, EventIndex e) const {
  return timeline.duration_ns(e) - typical_ns[static_cast<std::size_t>(e)];
}

double PhaseStats::threshold_ns(const Timeline& timeline, EventIndex e) const {
  const double typical = typical_ns[static_cast<std::size_t>(e)];
  const storage::Event& x = timeline.event(e);
  const double sigma = sigma_for(x.name, x.rank);
  return std::max({noise.sigmas * sigma * typical, noise.relative_floor * typical, step_floor_ns,
                   noise.absolute_floor_ns});
}

bool PhaseStats::diverges(const Timeline& timeline, EventIndex e) const {
  const double excess = excess_ns(timeline, e);
  return !std::isnan(excess) && excess > threshold_ns(timeline, e);
}

double PhaseStats::gap_excess_ns(std::size_t collective, int rank) const {
  const auto r = static_cast<std::size_t>(rank);
  return gap_ns[collective][r] - typical_gap_ns[collective][r];
}

double PhaseStats::sigma_for(std::size_t name, int rank) const {
  if (name < sigma_relative_without.size() && rank >= 0 &&
      static_cast<std::size_t>(rank) < sigma_relative_without[name].size())
    return sigma_relative_without[name][static_cast<std::size_t>(rank)];
  return name < sigma_relative.size() ? sigma_relative[name] : 0.0;
}

double PhaseStats::sigma_gap_for(int rank) const {
  if (rank >= 0 && static_cast<std::size_t>(rank) < sigma_gap_without_ns.size())
    return sigma_gap_without_ns[static_cast<std::size_t>(rank)];
  return sigma_gap_ns;
}

double PhaseStats::gap_threshold_ns(int rank) const {
  return std::max({noise.sigmas * sigma_gap_for(rank), step_floor_ns, noise.gap_floor_ns});
}

bool PhaseStats::gap_diverges(std::size_t collective, int rank) const {
  const double excess = gap_excess_ns(collective, rank);
  return !std::isnan(excess) && excess > gap_threshold_ns(rank);
}

PhaseStats phase_stats(const Timeline& timeline, const std::vector<CollectiveTiming>& collectives,
                       const NoiseModel& noise) {
  PhaseStats stats;
  stats.noise = noise;
  std::vector<StepTime> steps = timeline.steps;
  const double median_step = median_step_ms(steps);
  stats.step_floor_ns = std::isnan(median_step) ? 0.0 : noise.step_fraction * median_step * 1e6;
  const SmallWorld world = small_world(timeline, stats);
  typical_durations(timeline, world, stats);
  arrival_gaps(timeline, collectives, world, stats);
  return stats;
}

}  // namespace culprit::analysis
