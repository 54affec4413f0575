// Per-rank clock models from the collective constraints: every rank's trace is on its own
// clock; collectives every rank took part in complete together (ties) and no rank completes
// before the last one arrived (causality). Raw timestamps are never rewritten: the model maps
// them.
//
// A straggler's delay moves its arrivals, never its completions: an offset taken from the
// ties does not absorb the delay, while the causal interval alone stretches by the delay on
// the side the straggler waited for (rank 0 arriving 30 ms before a straggler bounds the
// offset only to within 30 ms). So the offset is the median tie, clamped into the causal
// interval, and the uncertainty is how far the ties themselves disagree with it (the worst
// tie, at least the timestamps' resolution), within the causal interval: the recorded
// completions of one collective differ by the workers' recording tails, not by a delay.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "culprit/common/median.hpp"
#include "culprit/importers/mapping.hpp"

namespace culprit::importers {
namespace {

// Fewer ties than this say nothing about their own spread: the causal interval is the bound.
constexpr std::size_t kMinTies = 3;

// Collectives every rank took part in with a known completion, by (step, ordinal).
std::vector<std::vector<const RankCollective*>> shared_ties(
    const std::vector<std::vector<RankCollective>>& colls) {
  const std::size_t ranks = colls.size();
  std::map<std::pair<int, int>, std::vector<const RankCollective*>> by_key;
  for (std::size_t r = 0; r < ranks; ++r) {
    for (const RankCollective& c : colls[r]) {
      auto& slot = by_key[{c.step, c.ordinal}];
      slot.resize(ranks, nullptr);
      slot[r] = &c;
    }
  }
  std::vector<std::vector<const RankCollective*>> ties;
  for (auto& [key, members] : by_key) {
    const bool complete = std::all_of(members.begin(), members.end(), [](const auto* c) {
      return c != nullptr && c->completion_known;
    });
    if (complete) ties.push_back(std::move(members));
  }
  return ties;
}

double diff(std::int64_t x, std::int64_t y) {
  return static_cast<double>(x) - static_cast<double>(y);  // no int64 overflow
}

// Rank r against rank 0 over the ties.
RankClock clock_of(const std::vector<std::vector<const RankCollective*>>& ties, std::size_t r) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> coincide;
  double lo = -kInf, hi = kInf;
  for (const auto& m : ties) {
    const RankCollective& a = *m[0];
    const RankCollective& b = *m[r];
    coincide.push_back(diff(a.completion_ns, b.completion_ns));
    // b.completion + offset >= a.arrival and b.arrival + offset <= a.completion.
    lo = std::max(lo, diff(a.arrival_ns, b.completion_ns));
    hi = std::min(hi, diff(a.completion_ns, b.arrival_ns));
  }
  RankClock c;
  c.constraints = static_cast<int>(coincide.size());
  if (coincide.empty()) return c;  // no constraint: same clock assumed (a warning upstream)
  const double estimate = median_of(coincide);
  // Two ties cannot agree better than torch's timestamps resolve.
  auto spread = static_cast<double>(kTorchTimestampResolution_ns);
  for (double d : coincide) spread = std::max(spread, std::abs(d - estimate));
  if (lo > hi) {  // no constant offset satisfies causality: drift, or mismatched files
    c.contradicted = true;
    c.offset_ns = estimate;
    c.uncertainty_ns = spread;
    return c;
  }
  c.offset_ns = std::clamp(estimate, lo, hi);
  const double causal = std::max(c.offset_ns - lo, hi - c.offset_ns);
  c.uncertainty_ns = coincide.size() < kMinTies
                         ? causal
                         : std::min(causal, spread + std::abs(c.offset_ns - estimate));
  return c;
}

}  // namespace

std::vector<RankClock> clock_models(const std::vector<std::vector<RankCollective>>& colls,
                                    const std::vector<RankSteps>& steps) {
  const std::size_t ranks = colls.size();
  std::vector<RankClock> result(ranks);
  if (ranks >= 2) {
    const auto ties = shared_ties(colls);
    for (std::size_t r = 1; r < ranks; ++r) result[r] = clock_of(ties, r);
  }
  for (std::size_t r = 0; r < ranks; ++r) {
    if (!steps[r].steps.empty()) result[r].ref_ns = steps[r].steps.front().begin_ns;
  }
  return result;
}

}  // namespace culprit::importers
