#pragma once
// Simulated per-rank clocks. Simulation runs in one true time line (ns since the run began);
// each rank reads it through its own raw clock with an offset and a drift, as separate hosts
// do. The run file gets, per rank, the clock model a ping-pong exchange would estimate: the
// true inverse mapping onto rank 0's clock plus an estimation error within the stated bound.

#include <cmath>
#include <cstdint>
#include <vector>

#include "stepclock/runfile.hpp"
#include "stepmodel/config.hpp"

namespace sim {

// Raw clocks start far from zero, like CLOCK_MONOTONIC on a host that booted a while ago.
inline constexpr std::int64_t kRawClockEpochNs = 1'000'000'000'000;

// raw(t) = kRawClockEpochNs + offset_ns + t + drift_ppm * 1e-6 * t, for true time t.
struct TrueClock {
  std::int64_t offset_ns = 0;
  double drift_ppm = 0.0;

  std::int64_t raw(std::int64_t t) const {
    return kRawClockEpochNs + offset_ns + t +
           std::llround(drift_ppm * 1e-6 * static_cast<double>(t));
  }
};

// Rank 0 is the reference and reads true time (plus any injected skew); other ranks get a
// small seeded offset and drift plus any injected skew.
std::vector<TrueClock> make_true_clocks(const stepmodel::RunConfig& config);

// The clock models written to the run file, one per rank, valid for true times in
// [0, run_end_ns]: |aligned(raw(t)) - raw_0(t)| <= uncertainty_ns there.
std::vector<stepclock::ClockModel> estimate_clock_models(const stepmodel::RunConfig& config,
                                                         const std::vector<TrueClock>& clocks,
                                                         std::int64_t run_end_ns);

}  // namespace sim
