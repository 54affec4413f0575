// Order statistics of the analysis (culprit/analysis/robust.hpp): the O(n) peers' median
// used for many ranks equals the sorted leave-one-out median bit for bit, ties included; and the
// median outside stats (culprit/common/median.hpp) is Python's statistics.median.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "culprit/analysis/robust.hpp"
#include "culprit/common/median.hpp"

using culprit::median_inplace;
using culprit::median_of;
using culprit::analysis::LeaveOneOutMedian;
using culprit::analysis::median_without;

TEST_CASE("the median: the middle value, or the two middle values' mean; NaN of none") {
  CHECK(std::isnan(median_of({})));
  CHECK(median_of({7}) == 7);
  CHECK(median_of({3, 1, 2}) == 2);
  CHECK(median_of({4, 1, 3, 2}) == 2.5);  // statistics.median([4, 1, 3, 2]) == 2.5
  CHECK(median_of({5, 5, 1, 9}) == 5);
  // Against a sort, bit for bit: (a + b) / 2 of the sorted middles, as statistics.median has it.
  std::mt19937_64 rng(5);
  for (std::size_t n = 1; n <= 60; ++n) {
    std::vector<double> values(n);
    for (double& v : values) v = static_cast<double>(rng() % 1000003) * 1e-3 + 0.1;
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    const double expected = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    std::vector<double> reordered = values;
    CHECK(median_inplace(reordered) == expected);
    std::sort(reordered.begin(), reordered.end());
    CHECK(reordered == sorted);  // reordered, nothing lost
    CHECK(median_of(values) == expected);
  }
}

TEST_CASE("LeaveOneOutMedian equals median_without at every member's sorted place") {
  std::mt19937_64 rng(17);
  std::vector<double> scratch;
  for (std::size_t n = 0; n <= 40; ++n) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<double> values(n);
      // Few distinct values in half the trials, so ties sit at the middle.
      const int spread = trial % 2 == 0 ? 4 : 1000000;
      for (double& v : values) v = static_cast<double>(rng() % spread) * 0.37 + 1e6;
      const LeaveOneOutMedian peers(values, scratch);
      std::vector<double> sorted = values;
      std::sort(sorted.begin(), sorted.end());
      for (double v : values) {
        // The member's place among equals does not change its peers' median.
        const auto first = std::lower_bound(sorted.begin(), sorted.end(), v) - sorted.begin();
        const auto last = std::upper_bound(sorted.begin(), sorted.end(), v) - sorted.begin();
        for (auto i = first; i < last; ++i) {
          const double expected = median_without(sorted.data(), n, static_cast<std::size_t>(i));
          const double got = peers.of(v);
          if (std::isnan(expected)) {
            CHECK(std::isnan(got));
          } else {
            CHECK(got == expected);
          }
        }
      }
    }
  }
}

TEST_CASE("LeaveOneOutMedian of a known group") {
  std::vector<double> scratch;
  const LeaveOneOutMedian odd({5, 1, 3}, scratch);  // sorted 1 3 5
  CHECK(odd.of(1) == 4.0);
  CHECK(odd.of(3) == 3.0);
  CHECK(odd.of(5) == 2.0);
  const LeaveOneOutMedian even({4, 1, 3, 2}, scratch);  // sorted 1 2 3 4
  CHECK(even.of(1) == 3.0);
  CHECK(even.of(2) == 3.0);
  CHECK(even.of(3) == 2.0);
  CHECK(even.of(4) == 2.0);
  CHECK(std::isnan(LeaveOneOutMedian({7}, scratch).of(7)));
}
