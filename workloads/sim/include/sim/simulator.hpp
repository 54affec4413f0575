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

// When one simulated event began and ended on its rank's raw local clock.
struct EventTimes {
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
};

// The events of a simulated run, held as their times only (16 bytes an event, against 56 for an
// EventRecord: 131,072 ranks x 50 steps fit in 1.7 GB): everything else about an event follows
// from its place in the schedule, which step_template holds once.
struct SimulatedRun {
  std::vector<std::string> names;  // interned event names, indexed by EventRecord::name
  // The events of one rank's step in issue order: the "step" event, then the schedule's phases.
  // Kind, name, microbatch, layer, seq and bytes as recorded; rank and step are each event's.
  std::vector<stepclock::EventRecord> step_template;
  // Rank-major: for each rank, each step, the times of step_template's events. Raw local clocks.
  std::vector<EventTimes> times;
  std::vector<stepclock::ClockModel> clock_models;  // what the run file states
  std::vector<TrueClock> true_clocks;               // the truth, for tests and calibration
  // True time (ns since the run began) at which the last rank finished each step: the
  // global step boundaries of docs/methodology.md, before any clock error.
  std::vector<std::int64_t> step_end_ns;
  int events_per_rank_step = 0;

  std::size_t event_count() const { return times.size(); }
  // Where rank r's step s begins in `times` (its "step" event); rank r's events are
  // [first_event(r, 0), first_event(r + 1, 0)). The inverse of event()'s mapping.
  std::size_t first_event(int rank, int step) const {
    return (static_cast<std::size_t>(rank) * step_end_ns.size() + static_cast<std::size_t>(step)) *
           static_cast<std::size_t>(events_per_rank_step);
  }
  // The i-th event (rank-major, as `times`), as culprit-step records it.
  stepclock::EventRecord event(std::size_t i) const;
  // Rank r's events in order, into `out` (replacing its contents).
  void rank_events(int rank, std::vector<stepclock::EventRecord>& out) const;
  // Every event as records (small runs: tests, to_run_file).
  std::vector<stepclock::EventRecord> all_events() const;
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
