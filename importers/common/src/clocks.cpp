// Per-rank clock models from the collective constraints: every rank's trace is on its own
// clock; collectives every rank took part in complete together and no rank completes before
// the last one arrived. Raw timestamps are never rewritten: the model maps them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "culprit/importers/mapping.hpp"

namespace culprit::importers {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double hi = v[mid];
  if (v.size() % 2) return hi;
  return 0.5 * (hi + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid)));
}

}  // namespace

std::vector<RankClock> clock_models(const std::vector<std::vector<RankCollective>>& colls,
                                    const std::vector<RankSteps>& steps) {
  const std::size_t ranks = colls.size();
  std::vector<RankClock> result(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    if (!steps[r].steps.empty()) result[r].ref_ns = steps[r].steps.front().begin_ns;
  }
  if (ranks < 2) return result;
  // Collectives present on every rank, by (step, ordinal).
  std::map<std::pair<int, int>, std::vector<const RankCollective*>> by_key;
  for (std::size_t r = 0; r < ranks; ++r) {
    for (const RankCollective& c : colls[r]) {
      auto& slot = by_key[{c.step, c.ordinal}];
      slot.resize(ranks, nullptr);
      slot[r] = &c;
    }
  }
  std::erase_if(by_key, [](const auto& kv) {
    return std::find(kv.second.begin(), kv.second.end(), nullptr) != kv.second.end();
  });
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (std::size_t r = 1; r < ranks; ++r) {
    std::vector<double> coincide;
    double lo = -kInf, hi = kInf;
    for (const auto& [key, m] : by_key) {
      const auto& a = *m[0];
      const auto& b = *m[r];
      auto diff = [](std::int64_t x, std::int64_t y) {
        return static_cast<double>(x) - static_cast<double>(y);  // no int64 overflow
      };
      coincide.push_back(diff(a.completion_ns, b.completion_ns));
      // b.completion + offset >= a.arrival and b.arrival + offset <= a.completion.
      lo = std::max(lo, diff(a.arrival_ns, b.completion_ns));
      hi = std::min(hi, diff(a.completion_ns, b.arrival_ns));
    }
    RankClock& c = result[r];
    c.constraints = static_cast<int>(coincide.size());
    if (coincide.empty()) continue;  // no constraint: same clock assumed (a warning upstream)
    const double estimate = median(coincide);
    if (lo <= hi) {
      c.offset_ns = std::clamp(estimate, lo, hi);
      c.uncertainty_ns = std::max(c.offset_ns - lo, hi - c.offset_ns);
    } else {
      c.contradicted = true;
      c.offset_ns = estimate;
      double spread = 0;
      for (double d : coincide) spread = std::max(spread, std::abs(d - estimate));
      c.uncertainty_ns = spread;
    }
  }
  return result;
}

}  // namespace culprit::importers
