#include "sim/summary.hpp"

#include <algorithm>
#include <cmath>

#include "culprit/common/median.hpp"

namespace sim {
namespace {

std::int64_t to_true(const TrueClock& clock, std::int64_t raw) {
  const double local = static_cast<double>(raw - kRawClockEpochNs - clock.offset_ns);
  return std::llround(local / (1.0 + clock.drift_ppm * 1e-6));
}

}  // namespace

RunSummary summarize(const SimulatedRun& run, const stepmodel::RunConfig& config,
                     double sample_period_s) {
  RunSummary summary;
  const int steps = static_cast<int>(run.step_end_ns.size());
  const int warmup = std::min(config.warmup_steps, steps - 1);
  for (int s = warmup; s < steps; ++s) {
    const std::int64_t previous = s == 0 ? 0 : run.step_end_ns[static_cast<std::size_t>(s - 1)];
    summary.step_ms.push_back(
        static_cast<double>(run.step_end_ns[static_cast<std::size_t>(s)] - previous) * 1e-6);
  }
  // A run of no steps prints 0, not NaN, in culprit-sim's JSON.
  summary.median_step_ms = summary.step_ms.empty() ? 0.0 : culprit::median_of(summary.step_ms);

  const std::int64_t window_begin =
      warmup == 0 ? 0 : run.step_end_ns[static_cast<std::size_t>(warmup - 1)];
  const std::int64_t window_end = run.step_end_ns.back();
  const auto period = static_cast<std::int64_t>(std::llround(sample_period_s * 1e9));
  double share_sum = 0.0;
  double sampled_sum = 0.0;
  const std::size_t ranks = run.true_clocks.size();
  for (std::size_t r = 0; r < ranks; ++r) {
    const TrueClock& clock = run.true_clocks[r];
    std::int64_t busy = 0;
    int hits = 0;
    int samples = 0;
    std::int64_t sample = window_begin + period;
    const int rank = static_cast<int>(r);
    const std::size_t rank_end = run.first_event(rank + 1, 0);
    for (std::size_t i = run.first_event(rank, 0); i < rank_end; ++i) {
      const stepclock::EventRecord e = run.event(i);
      if (e.kind != stepclock::EventKind::kCompute) continue;
      const std::int64_t begin = std::max(to_true(clock, e.begin_ns), window_begin);
      const std::int64_t end = std::min(to_true(clock, e.end_ns), window_end);
      if (end <= begin) continue;
      busy += end - begin;
      // Compute phases on one rank are sequential, so samples are visited in order.
      while (sample < begin && sample < window_end) {
        ++samples;
        sample += period;
      }
      while (sample < end) {
        ++samples;
        ++hits;
        sample += period;
      }
    }
    while (sample < window_end) {
      ++samples;
      sample += period;
    }
    share_sum += static_cast<double>(busy) / static_cast<double>(window_end - window_begin);
    if (samples > 0) sampled_sum += static_cast<double>(hits) / samples;
    summary.samples_per_rank = samples;
  }
  summary.compute_time_share = share_sum / static_cast<double>(ranks);
  summary.sampled_compute_activity = sampled_sum / static_cast<double>(ranks);
  return summary;
}

}  // namespace sim
