#include "culprit/analysis/phase_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "robust.hpp"

namespace culprit::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool is_phase(const storage::Event& e) {
  return e.kind == storage::EventKind::kCompute || e.kind == storage::EventKind::kHost;
}

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
std::vector<std::vector<EventIndex>> phases_by_step(const storage::RunData& run) {
  std::unordered_map<std::int32_t, std::size_t> bucket_of;
  std::vector<std::vector<EventIndex>> buckets;
  std::int32_t cached_step = 0;
  std::size_t cached = static_cast<std::size_t>(-1);
  for (std::size_t i = 0; i < run.events.size(); ++i) {
    const storage::Event& e = run.events[i];
    if (!is_phase(e) || e.rank < 0 || e.rank >= run.ranks) continue;
    if (cached == static_cast<std::size_t>(-1) || e.step != cached_step) {
      auto [it, inserted] = bucket_of.try_emplace(e.step, buckets.size());
      if (inserted) buckets.emplace_back();
      cached_step = e.step;
      cached = it->second;
    }
    buckets[cached].push_back(static_cast<EventIndex>(i));
  }
  return buckets;
}

void typical_durations(const Timeline& t, PhaseStats& stats) {
  const storage::RunData& run = *t.run;
  stats.typical_ns.assign(run.events.size(), kNaN);
  std::vector<std::vector<double>> deviations(run.names.size());
  std::vector<std::pair<std::uint64_t, EventIndex>> keyed;
  std::vector<std::pair<double, EventIndex>> group;
  std::vector<double> sorted;
  for (const std::vector<EventIndex>& step : phases_by_step(run)) {
    keyed.clear();
    for (EventIndex e : step) keyed.emplace_back(instance_key(t.event(e)), e);
    std::sort(keyed.begin(), keyed.end());
    for (std::size_t lo = 0; lo < keyed.size();) {
      std::size_t hi = lo + 1;
      while (hi < keyed.size() && keyed[hi].first == keyed[lo].first) ++hi;
      group.clear();
      for (std::size_t i = lo; i < hi; ++i)
        group.emplace_back(t.duration_ns(keyed[i].second), keyed[i].second);
      std::sort(group.begin(), group.end());
      sorted.clear();
      for (const auto& [duration, e] : group) sorted.push_back(duration);
      const auto name = static_cast<std::size_t>(t.event(group.front().second).name);
      for (std::size_t i = 0; i < group.size(); ++i) {
        const double typical = median_without(sorted.data(), sorted.size(), i);
        stats.typical_ns[static_cast<std::size_t>(group[i].second)] = typical;
        if (typical > 0) deviations[name].push_back(sorted[i] / typical - 1.0);
      }
      lo = hi;
    }
  }
  stats.sigma_relative.assign(run.names.size(), 0.0);
  for (std::size_t n = 0; n < deviations.size(); ++n) {
    stats.sigma_relative[n] = robust_sigma_about_zero(deviations[n]);
  }
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
                  PhaseStats& stats) {
  const auto ranks = static_cast<std::size_t>(t.ranks());
  stats.gap_ns.assign(collectives.size(), std::vector<double>(ranks, kNaN));
  stats.typical_gap_ns.assign(collectives.size(), std::vector<double>(ranks, kNaN));
  std::vector<double> deviations;
  std::vector<std::pair<double, std::size_t>> sorted;
  std::vector<double> values;
  for (std::size_t k = 0; k < collectives.size(); ++k) {
    sorted.clear();
    for (std::size_t r = 0; r < ranks; ++r) {
      const EventIndex e = t.collectives[k].event[r];
      const double arrival = collectives[k].arrival_ns[r];
      const double end =
          previous_end(t, static_cast<int>(r), t.position[static_cast<std::size_t>(e)], arrival);
      if (std::isnan(end)) continue;
      stats.gap_ns[k][r] = arrival - end;
      sorted.emplace_back(arrival - end, r);
    }
    std::sort(sorted.begin(), sorted.end());
    values.clear();
    for (const auto& [gap, r] : sorted) values.push_back(gap);
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      const double typical = median_without(values.data(), values.size(), i);
      stats.typical_gap_ns[k][sorted[i].second] = typical;
      if (!std::isnan(typical)) deviations.push_back(values[i] - typical);
    }
  }
  stats.sigma_gap_ns = robust_sigma_about_zero(deviations);
}

}  // namespace

double PhaseStats::excess_ns(const Timeline& timeline, EventIndex e) const {
  return timeline.duration_ns(e) - typical_ns[static_cast<std::size_t>(e)];
}

double PhaseStats::threshold_ns(const Timeline& timeline, EventIndex e) const {
  const double typical = typical_ns[static_cast<std::size_t>(e)];
  const double sigma = sigma_relative[timeline.event(e).name];
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

double PhaseStats::gap_threshold_ns() const {
  return std::max({noise.sigmas * sigma_gap_ns, step_floor_ns, noise.gap_floor_ns});
}

bool PhaseStats::gap_diverges(std::size_t collective, int rank) const {
  const double excess = gap_excess_ns(collective, rank);
  return !std::isnan(excess) && excess > gap_threshold_ns();
}

PhaseStats phase_stats(const Timeline& timeline, const std::vector<CollectiveTiming>& collectives,
                       const NoiseModel& noise) {
  PhaseStats stats;
  stats.noise = noise;
  std::vector<StepTime> steps = timeline.steps;
  const double median_step = median_step_ms(steps);
  stats.step_floor_ns = std::isnan(median_step) ? 0.0 : noise.step_fraction * median_step * 1e6;
  typical_durations(timeline, stats);
  arrival_gaps(timeline, collectives, stats);
  return stats;
}

}  // namespace culprit::analysis
