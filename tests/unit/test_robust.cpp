// Order statistics of the analysis (culprit/analysis/robust.hpp): the O(n) peers' median
// used for many ranks equals the sorted leave-one-out median bit for bit, ties included.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "culprit/analysis/robust.hpp"

using culprit::analysis::LeaveOneOutMedian;
using culprit::analysis::median_without;

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
