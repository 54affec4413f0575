#pragma once
// The delays the configuration injects on this rank (docs/pmpi.md, "Blind injection"): a delay
// of phase "compute>CALL" is spent right before the k-th call of CALL in the chosen steps
// (k = the delay's layer, -1 every call), so it lengthens that compute phase like slow code.
// Built once at MPI_Init; matching allocates nothing.

#include <time.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "calls.hpp"
#include "stepclock/clock.hpp"
#include "stepmodel/config.hpp"

namespace culprit::pmpi {

struct PlannedDelay {
  std::size_t call = kCallCount;
  int occurrence = -1;  // -1: every call in the step
  int step_first = -1;  // -1: unbounded
  int step_last = -1;
  std::int64_t ns = 0;
  bool spin = false;
};

class DelayPlan {
 public:
  static constexpr std::size_t kMax = 16;

  DelayPlan() = default;
  // Keeps the delays of `rank` (at most kMax; the rest are ignored and counted in `skipped`).
  DelayPlan(const std::vector<stepmodel::DelayInjection>& delays, int rank) {
    for (const auto& d : delays) {
      if (d.rank != rank || d.ms <= 0) continue;
      const std::size_t call = call_index(std::string_view(d.phase).substr(
          std::min(d.phase.size(), stepmodel::kPmpiComputePrefix.size())));
      if (!d.phase.starts_with(stepmodel::kPmpiComputePrefix) || call >= kCallCount) continue;
      if (count_ == kMax) {
        ++skipped_;
        continue;
      }
      delays_[count_++] = PlannedDelay{
          call, d.layer, d.step_first, d.step_last, std::llround(d.ms * 1e6), d.mode == "spin"};
    }
  }

  // Nanoseconds to spend before this call (the sum of every matching delay) and whether to spin.
  std::int64_t due(std::size_t call, int occurrence, int step, bool& spin) const {
    std::int64_t total = 0;
    for (std::size_t i = 0; i < count_; ++i) {
      const PlannedDelay& d = delays_[i];
      if (d.call != call || (d.occurrence >= 0 && d.occurrence != occurrence)) continue;
      if ((d.step_first >= 0 && step < d.step_first) || (d.step_last >= 0 && step > d.step_last))
        continue;
      total += d.ns;
      spin |= d.spin;
    }
    return total;
  }

  bool empty() const { return count_ == 0; }
  std::size_t skipped() const { return skipped_; }

 private:
  std::array<PlannedDelay, kMax> delays_{};
  std::size_t count_ = 0;
  std::size_t skipped_ = 0;
};

// Spends `ns` on the calling thread: a busy loop on the monotonic clock, or nanosleep.
inline void spend(std::int64_t ns, bool spin) {
  const std::int64_t until = stepclock::monotonic_ns() + ns;
  if (spin) {
    while (stepclock::monotonic_ns() < until) {
    }
    return;
  }
  timespec t{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  while (nanosleep(&t, &t) != 0) {
  }
  // nanosleep may return a little early on some kernels; finish on the clock.
  while (stepclock::monotonic_ns() < until) {
  }
}

}  // namespace culprit::pmpi
