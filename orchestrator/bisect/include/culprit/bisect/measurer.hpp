#pragma once
// Where bisection gets its numbers: run medians (ms) of one version, one per run. A real
// measurer launches runs and stores them (reusing stored ones); tests and the benchmark draw
// them in-process.

#include <stdexcept>
#include <vector>

namespace culprit::bisect {

// The version cannot be measured (its build failed, or its runs crash): bisection skips it,
// as `git bisect` does with exit status 125.
class Untestable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Measurer {
 public:
  virtual ~Measurer() = default;
  // Returns at least `min_n` run medians of version `index` (0 = first good, last = bad),
  // the same ones again plus new ones when asked for more. Throws Untestable when the version
  // cannot be measured; any other exception aborts the bisection.
  virtual std::vector<double> samples(int index, int min_n) = 0;
  // Hint that several versions are about to be asked for `min_n` runs each: a measurer that
  // launches runs interleaves them (balanced blocks), so drift of the machine hits all alike.
  // Untestable versions are left for samples() to report.
  virtual void prefetch(const std::vector<int>& indexes, int min_n) { (void)indexes, (void)min_n; }
};

}  // namespace culprit::bisect
