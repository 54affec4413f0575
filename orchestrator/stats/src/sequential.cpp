#include "culprit/stats/sequential.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "culprit/errors.hpp"
#include "culprit/stats/mann_whitney.hpp"
#include "input_checks.hpp"

namespace culprit::stats {
namespace {

// 100,000 draws put the simulated error within about 4 % (one standard error) of its value at
// a one-sided 0.0125; the level returned keeps the simulated error at or below the target.
constexpr int kSimulations = 100000;
constexpr std::uint64_t kSeed = 0x5eb0c0a1d2e3f405ULL;

void require_valid(std::span<const int> looks, double one_sided_error) {
  if (looks.empty() || looks.front() < 1 || !std::is_sorted(looks.begin(), looks.end()) ||
      std::adjacent_find(looks.begin(), looks.end()) != looks.end()) {
    throw UsageError(
        "stats: a sequential boundary needs looks of increasing runs per side, "
        "each at least 1");
  }
  if (!(one_sided_error > 0 && one_sided_error < 0.5)) {
    throw UsageError("stats: a sequential boundary's one-sided error must lie in (0, 0.5), got " +
                     std::to_string(one_sided_error));
  }
}

// Per simulation and look, W = #(candidate_j < baseline_i): the HL lower bound D_(k) is above
// 0 exactly when W < k. Draws are raw 64-bit integers (ties have probability 2^-64), so the
// result is the same with every standard library.
std::vector<std::vector<int>> simulate_counts(std::span<const int> looks) {
  const int n_max = looks.back();
  std::mt19937_64 rng(kSeed);
  std::vector<std::vector<int>> counts(looks.size(), std::vector<int>(kSimulations));
  std::vector<std::uint64_t> a(static_cast<std::size_t>(n_max));
  std::vector<std::uint64_t> b(static_cast<std::size_t>(n_max));
  for (int s = 0; s < kSimulations; ++s) {
    int below = 0;
    std::size_t look = 0;
    for (int n = 0; n < n_max; ++n) {
      const auto i = static_cast<std::size_t>(n);
      a[i] = rng();
      b[i] = rng();
      for (std::size_t j = 0; j <= i; ++j) below += b[j] < a[i];
      for (std::size_t j = 0; j < i; ++j) below += b[i] < a[j];
      if (n + 1 == looks[look]) counts[look++][static_cast<std::size_t>(s)] = below;
    }
  }
  return counts;
}

// The counts depend on the looks only: boundaries for several errors over the same looks (a
// bisection's confirmations, each with its share of alpha) simulate once. Called under
// sequential_boundary's lock.
const std::vector<std::vector<int>>& simulated_counts(std::span<const int> looks) {
  static std::map<std::vector<int>, std::vector<std::vector<int>>> cache;
  std::vector<int> key(looks.begin(), looks.end());
  auto found = cache.find(key);
  if (found == cache.end()) {
    found = cache.emplace(std::move(key), simulate_counts(looks)).first;
  }
  return found->second;
}

// The level at which look `look` starts rejecting when W = u: the smallest two-sided alpha whose
// critical rank exceeds u (the inverse of hl_critical_rank_exact).
struct Event {
  double level = 0;
  std::size_t look = 0;
  int u = 0;
};

SequentialBoundary compute(std::span<const int> looks, double one_sided_error) {
  std::vector<Event> events;
  // Per look, the level at which W = u starts rejecting, for the u that can reject at all.
  std::vector<std::vector<double>> level_at(looks.size());
  for (std::size_t l = 0; l < looks.size(); ++l) {
    const int n = looks[l];
    const std::vector<double> distribution = null_distribution_u_continuous(n, n);
    const int max_k = (n * n + 1) / 2;
    double cumulative = 0;  // P(U <= u)
    for (int u = 0; u < max_k; ++u) {
      cumulative += distribution[static_cast<std::size_t>(u)];
      if (cumulative > one_sided_error) break;  // one-sided error alone would pass the target
      events.push_back({2 * cumulative, l, u});
      level_at[l].push_back(2 * cumulative);
    }
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& x, const Event& y) { return x.level < y.level; });

  // Each simulated sequence is rejected from the lowest level any of its looks rejects at: a
  // look's critical rank only grows with the level, so the sequences rejected at a level are
  // those whose lowest level is at most it.
  const std::vector<std::vector<int>>& counts = simulated_counts(looks);
  std::vector<double> first_rejected(kSimulations, std::numeric_limits<double>::infinity());
  for (std::size_t l = 0; l < looks.size(); ++l) {
    const std::vector<double>& levels = level_at[l];
    for (int s = 0; s < kSimulations; ++s) {
      const auto i = static_cast<std::size_t>(s);
      const auto u = static_cast<std::size_t>(counts[l][i]);
      if (u < levels.size()) first_rejected[i] = std::min(first_rejected[i], levels[u]);
    }
  }
  std::sort(first_rejected.begin(), first_rejected.end());
  const int allowed = static_cast<int>(one_sided_error * kSimulations);
  SequentialBoundary boundary;
  boundary.simulations = kSimulations;
  // No look can reject below the first event's level: half of it keeps every critical rank 0.
  boundary.look_level = events.empty() ? 2 * one_sided_error : events.front().level / 2;
  int rejections = 0;
  for (std::size_t e = 0; e < events.size();) {
    // Every event at one level enters together (equal sizes share a distribution); the level
    // is kept only if the sequences it rejects, with those rejected below it, fit.
    std::size_t end = e;
    while (end < events.size() &&
           events[end].level <= events[e].level * (1 + detail::kLevelTolerance)) {
      ++end;
    }
    const double top = events[end - 1].level;
    const auto rejected =
        static_cast<int>(std::upper_bound(first_rejected.begin(), first_rejected.end(), top) -
                         first_rejected.begin());
    if (rejected > allowed) break;
    rejections = rejected;
    boundary.look_level = events[e].level;
    e = end;
  }
  boundary.one_sided_error = static_cast<double>(rejections) / kSimulations;
  return boundary;
}

}  // namespace

SequentialBoundary sequential_boundary(std::span<const int> looks, double one_sided_error) {
  require_valid(looks, one_sided_error);
  static std::mutex mutex;
  static std::map<std::pair<std::vector<int>, double>, SequentialBoundary> cache;
  std::pair<std::vector<int>, double> key{{looks.begin(), looks.end()}, one_sided_error};
  const std::lock_guard<std::mutex> lock(mutex);
  const auto found = cache.find(key);
  if (found != cache.end()) return found->second;
  const SequentialBoundary boundary = compute(looks, one_sided_error);
  cache.emplace(std::move(key), boundary);
  return boundary;
}

double boundary_look_level(const SamplingPlan& plan, double one_sided_error) {
  const std::vector<int> looks = look_sizes(plan);
  const long cap = looks.back();
  if (cap * cap > plan.exact_max_pairs) {
    require_valid(looks, one_sided_error);
    return 2 * one_sided_error / static_cast<double>(looks.size());
  }
  return sequential_boundary(looks, one_sided_error).look_level;
}

}  // namespace culprit::stats
