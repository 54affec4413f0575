#include "culprit/analysis/alignment.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "culprit/analysis/robust.hpp"

namespace culprit::analysis {
namespace {

struct Interval {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool empty() const { return lo > hi; }
};

Interval intersect(Interval a, Interval b) {
  return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
}

}  // namespace

std::vector<RankAlignment> refine_alignment(const storage::RunData& run,
                                            const std::vector<CollectiveGroup>& collectives) {
  const auto ranks = static_cast<std::size_t>(run.ranks);
  std::vector<RankAlignment> result(ranks);
  for (std::size_t r = 0; r < ranks; ++r) result[r].uncertainty_ns = run.clocks[r].uncertainty_ns;
  if (ranks == 0) return result;
  result[0] = RankAlignment{};
  // Arrivals and completions on the clock models, rank-major: rank r, collective k at r * n + k.
  const std::size_t n = collectives.size();
  if (n == 0) return result;
  std::vector<double> arrival(ranks * n), completion(ranks * n);
  for (std::size_t k = 0; k < n; ++k) {
    for (std::size_t r = 0; r < ranks; ++r) {
      const storage::Event& e = run.events[static_cast<std::size_t>(collectives[k].event[r])];
      arrival[r * n + k] = run.clocks[r].aligned(e.begin_ns);
      completion[r * n + k] = run.clocks[r].aligned(e.end_ns);
    }
  }

  // No rank completes before the last rank arrived: with corrections c, for every rank r and
  // collective k, completion_r + c_r >= arrival_q + c_q and arrival_r + c_r <= completion_q + c_q
  // for every other rank q. Solved rank by rank against the others' current corrections
  // (Gauss-Seidel); a few passes let a correction found on one rank tighten the others.
  // The others' latest arrival and earliest completion are kept as extremes over the ranks
  // before r (updated as the pass moves on) and after r (still at the previous pass's
  // corrections, so computed once per pass): linear in ranks, not quadratic, and exactly the
  // same values as a scan over every other rank.
  constexpr int kPasses = 3;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> correction(ranks, 0.0);
  std::vector<double> coincidence;
  std::vector<double> later_latest((ranks + 1) * n), later_earliest((ranks + 1) * n);
  std::vector<double> earlier_latest(n), earlier_earliest(n);
  for (int pass = 0; pass < kPasses; ++pass) {
    std::fill_n(later_latest.begin() + static_cast<std::ptrdiff_t>(ranks * n), n, -kInf);
    std::fill_n(later_earliest.begin() + static_cast<std::ptrdiff_t>(ranks * n), n, kInf);
    for (std::size_t r = ranks; r-- > 1;) {
      for (std::size_t k = 0; k < n; ++k) {
        later_latest[r * n + k] =
            std::max(later_latest[(r + 1) * n + k], arrival[r * n + k] + correction[r]);
        later_earliest[r * n + k] =
            std::min(later_earliest[(r + 1) * n + k], completion[r * n + k] + correction[r]);
      }
    }
    for (std::size_t k = 0; k < n; ++k) {
      earlier_latest[k] = arrival[k] + correction[0];
      earlier_earliest[k] = completion[k] + correction[0];
    }
    for (std::size_t r = 1; r < ranks; ++r) {
      Interval causal;
      coincidence.clear();
      for (std::size_t k = 0; k < n; ++k) {
        const double latest_other = std::max(earlier_latest[k], later_latest[(r + 1) * n + k]);
        const double earliest_other =
            std::min(earlier_earliest[k], later_earliest[(r + 1) * n + k]);
        causal.lo = std::max(causal.lo, latest_other - completion[r * n + k]);
        causal.hi = std::min(causal.hi, earliest_other - arrival[r * n + k]);
        // Completions nearly coincide: rank 0's is the reference.
        coincidence.push_back(completion[k] - completion[r * n + k]);
      }
      const double estimate = median_inplace(coincidence);
      const double u = run.clocks[r].uncertainty_ns;
      Interval feasible = intersect(causal, Interval{-u, u});
      RankAlignment& a = result[r];
      a.model_contradicted = feasible.empty();
      if (feasible.empty()) feasible = causal.empty() ? Interval{estimate, estimate} : causal;
      a.correction_ns = std::clamp(estimate, feasible.lo, feasible.hi);
      // The true correction lies somewhere in `feasible`: the error is at most the far end.
      a.uncertainty_ns = std::max(a.correction_ns - feasible.lo, feasible.hi - a.correction_ns);
      if (!std::isfinite(a.uncertainty_ns)) a.uncertainty_ns = u;
      correction[r] = a.correction_ns;
      for (std::size_t k = 0; k < n; ++k) {
        earlier_latest[k] = std::max(earlier_latest[k], arrival[r * n + k] + correction[r]);
        earlier_earliest[k] = std::min(earlier_earliest[k], completion[r * n + k] + correction[r]);
      }
    }
  }
  return result;
}

}  // namespace culprit::analysis
