#include "sim/clocks.hpp"

#include <algorithm>

#include "sim/noise.hpp"
#include "stepclock/clock_model.hpp"

namespace sim {
namespace {

// Spread of the seeded per-rank clocks: enough that unaligned timestamps would misorder
// arrivals that differ by less than a millisecond, as on a real cluster.
constexpr double kMaxRandomOffsetNs = 1.0e6;
constexpr double kMaxRandomDriftPpm = 5.0;

}  // namespace

std::vector<TrueClock> make_true_clocks(const stepmodel::RunConfig& config) {
  const NoiseSource noise(config.seed, static_cast<std::uint64_t>(config.repetition));
  std::vector<TrueClock> clocks(static_cast<std::size_t>(config.ranks));
  for (int r = 1; r < config.ranks; ++r) {
    const auto ur = static_cast<std::uint64_t>(r);
    TrueClock& c = clocks[static_cast<std::size_t>(r)];
    const double u_offset = noise.uniform(NoiseStream::kClockTruth, ur, 0, 0);
    const double u_drift = noise.uniform(NoiseStream::kClockTruth, ur, 1, 0);
    c.offset_ns = std::llround((2.0 * u_offset - 1.0) * kMaxRandomOffsetNs);
    c.drift_ppm = (2.0 * u_drift - 1.0) * kMaxRandomDriftPpm;
  }
  for (const stepmodel::ClockSkewInjection& skew : config.inject.clock_skews) {
    TrueClock& c = clocks[static_cast<std::size_t>(skew.rank)];
    c.offset_ns += std::llround(skew.offset_ms * 1e6);
    c.drift_ppm += skew.drift_ppm;
  }
  return clocks;
}

std::vector<stepclock::ClockModel> estimate_clock_models(const stepmodel::RunConfig& config,
                                                         const std::vector<TrueClock>& clocks,
                                                         std::int64_t run_end_ns) {
  const NoiseSource noise(config.seed, static_cast<std::uint64_t>(config.repetition));
  // A ping-pong round trip is two hops of the modelled network.
  const double base_rtt_ns = std::max(2.0 * config.model.hop_latency_us * 1e3, 1000.0);
  const TrueClock& ref = clocks.front();
  const double ref_rate = 1.0 + ref.drift_ppm * 1e-6;
  std::vector<stepclock::ClockModel> models;
  models.reserve(clocks.size());
  for (std::size_t r = 0; r < clocks.size(); ++r) {
    const TrueClock& c = clocks[r];
    stepclock::ClockModel m;
    m.rank = static_cast<std::int32_t>(r);
    m.host = "sim";
    m.ref_ns = c.raw(0);
    m.exchanges = stepclock::kDefaultClockExchanges;  // as culprit-step
    if (r == 0) {
      models.push_back(m);
      continue;
    }
    // Exact inverse: true time t maps to rank 0's raw clock as ref.raw(t); as a function of
    // this rank's raw clock it is linear with the slope of the two rates.
    const double rate = 1.0 + c.drift_ppm * 1e-6;
    const double exact_offset = static_cast<double>(ref.offset_ns - c.offset_ns);
    const double exact_drift_ppm = (ref_rate / rate - 1.0) * 1e6;
    // The estimate is off by at most 90 % of half the round trip at the start and at the
    // end exchange, and linear in between, so it stays within the stated uncertainty; two ns
    // cover the integer rounding of raw timestamps.
    const auto ur = static_cast<std::uint64_t>(r);
    m.start_rtt_ns = base_rtt_ns * (1.0 + 0.2 * noise.uniform(NoiseStream::kClockError, ur, 0, 0));
    m.end_rtt_ns = base_rtt_ns * (1.0 + 0.2 * noise.uniform(NoiseStream::kClockError, ur, 1, 0));
    const double half_rtt = 0.5 * std::min(m.start_rtt_ns, m.end_rtt_ns);
    m.uncertainty_ns = half_rtt + 2.0;
    const double error_start =
        0.9 * half_rtt * (2.0 * noise.uniform(NoiseStream::kClockError, ur, 2, 0) - 1.0);
    const double error_end =
        0.9 * half_rtt * (2.0 * noise.uniform(NoiseStream::kClockError, ur, 3, 0) - 1.0);
    const double raw_span =
        static_cast<double>(c.raw(std::max<std::int64_t>(run_end_ns, 1)) - m.ref_ns);
    m.offset_ns = exact_offset + error_start;
    m.drift_ppm = exact_drift_ppm + (error_end - error_start) / raw_span * 1e6;
    models.push_back(m);
  }
  return models;
}

}  // namespace sim
