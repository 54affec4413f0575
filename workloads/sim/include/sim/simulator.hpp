#pragma once
// The simulated cluster: the step model of stepmodel::step_schedule run on thousands of ranks
// without processes. Durations come from the model (GEMM FLOPs at a device rate, optimizer
// bytes at a memory bandwidth, ring all-reduce by an alpha-beta model completing at the last
// arrival), with seeded noise, per-rank clocks and the same injections as the real workload.
// The result holds events exactly as culprit-step records them (docs/simulator.md).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/clocks.hpp"
#include "stepclock/runfile.hpp"
#include "stepmodel/config.hpp"

namespace sim {

struct SimulatedRun {
  std::vector<std::string> names;  // interned event names, indexed by EventRecord::name
  // Rank-major: for each rank, each step, the "step" event and then the schedule's phases in
  // issue order. Timestamps are raw local clocks.
  std::vector<stepclock::EventRecord> events;
  std::vector<stepclock::ClockModel> clock_models;  // what the run file states
  std::vector<TrueClock> true_clocks;               // the truth, for tests and calibration
  // True time (ns since the run began) at which the last rank finished each step: the
  // global step boundaries of docs/methodology.md, before any clock error.
  std::vector<std::int64_t> step_end_ns;
  int events_per_rank_step = 0;
};

// Simulates every step of the run. Faults are not acted on here (see triggered_fault).
// Throws std::invalid_argument when the configuration cannot be simulated.
SimulatedRun simulate(const stepmodel::RunConfig& config);

// The injected fault that stops the run first (lowest step, then lowest rank), if any fires
// within the run's steps. The real workload aborts or hangs there; so does culprit-sim.
std::optional<stepmodel::FaultInjection> triggered_fault(const stepmodel::RunConfig& config);

// Analytic ring all-reduce time on n ranks (alpha-beta, before noise):
//   2(n-1)/n * bytes / link_bytes_per_s + 2(n-1) * hop_latency.
double ring_allreduce_ns(const stepmodel::ModelConfig& model, int ranks, std::int64_t bytes);

}  // namespace sim
