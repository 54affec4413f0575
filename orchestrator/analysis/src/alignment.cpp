#include "culprit/analysis/alignment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "robust.hpp"

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
  // Arrivals and completions on the clock models, per collective and rank.
  const std::size_t n = collectives.size();
  std::vector<double> arrival(n * ranks), completion(n * ranks);
  for (std::size_t k = 0; k < n; ++k) {
    for (std::size_t r = 0; r < ranks; ++r) {
      const storage::Event& e = run.events[static_cast<std::size_t>(collectives[k].event[r])];
      arrival[k * ranks + r] = run.clocks[r].aligned(e.begin_ns);
      completion[k * ranks + r] = run.clocks[r].aligned(e.end_ns);
    }
  }
  if (n == 0) return result;

  // No rank completes before the last rank arrived: with corrections c, for every rank r and
  // collective k, completion_r + c_r >= arrival_q + c_q and arrival_r + c_r <= completion_q + c_q
  // for every other rank q. Solved rank by rank against the others' current corrections
  // (Gauss-Seidel); a few passes let a correction found on one rank tighten the others.
  constexpr int kPasses = 3;
  std::vector<double> correction(ranks, 0.0);
  std::vector<double> coincidence;
  for (int pass = 0; pass < kPasses; ++pass) {
    for (std::size_t r = 1; r < ranks; ++r) {
      Interval causal;
      coincidence.clear();
      for (std::size_t k = 0; k < n; ++k) {
        double latest_other = -std::numeric_limits<double>::infinity();
        double earliest_other = std::numeric_limits<double>::infinity();
        for (std::size_t q = 0; q < ranks; ++q) {
          if (q == r) continue;
          latest_other = std::max(latest_other, arrival[k * ranks + q] + correction[q]);
          earliest_other = std::min(earliest_other, completion[k * ranks + q] + correction[q]);
        }
        causal.lo = std::max(causal.lo, latest_other - completion[k * ranks + r]);
        causal.hi = std::min(causal.hi, earliest_other - arrival[k * ranks + r]);
        // Completions nearly coincide: rank 0's is the reference.
        coincidence.push_back(completion[k * ranks] - completion[k * ranks + r]);
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
    }
  }
  return result;
}

}  // namespace culprit::analysis
