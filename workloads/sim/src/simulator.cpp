#include "sim/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/noise.hpp"
#include "stepclock/event_buffer.hpp"
#include "stepmodel/schedule.hpp"

namespace sim {
namespace {

using stepclock::EventKind;
using stepclock::EventRecord;
using stepmodel::Phase;
using stepmodel::PhaseKind;

constexpr std::uint16_t kStepNameIndex = 0;

// The GEMM step's names, then any further names of a measured schedule.
std::vector<std::string> interned_names(const stepmodel::ModelConfig& model) {
  std::vector<std::string> names = {
      std::string(stepmodel::kStep),      std::string(stepmodel::kGemmFwd),
      std::string(stepmodel::kGemmDgrad), std::string(stepmodel::kGemmWgrad),
      std::string(stepmodel::kAllreduce), std::string(stepmodel::kOptimizer)};
  for (const auto& phase : model.schedule) {
    if (std::find(names.begin(), names.end(), phase.name) == names.end()) {
      names.push_back(phase.name);
    }
  }
  return names;
}

std::uint16_t name_index(const std::vector<std::string>& names, std::string_view name) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<std::uint16_t>(i);
  }
  throw std::invalid_argument("simulator: phase '" + std::string(name) + "' has no event name");
}

// Does the delay target this phase (ignoring its step range)? For an all-reduce, `layer`
// selects the bucket; identifiers a phase does not have (-1) are not filtered on.
bool targets(const stepmodel::DelayInjection& d, const Phase& p) {
  if (d.phase != p.name) return false;
  if (p.kind == PhaseKind::kCollective) return d.layer < 0 || d.layer == p.seq;
  if (p.layer >= 0 && d.layer >= 0 && d.layer != p.layer) return false;
  if (p.microbatch >= 0 && d.microbatch >= 0 && d.microbatch != p.microbatch) return false;
  return true;
}

bool in_steps(const stepmodel::DelayInjection& d, int step) {
  return (d.step_first < 0 || step >= d.step_first) && (d.step_last < 0 || step <= d.step_last);
}

// Everything the inner loops need, computed once per run.
struct Plan {
  std::vector<Phase> schedule;
  std::vector<std::uint16_t> phase_names;
  std::vector<std::vector<const stepmodel::DelayInjection*>> phase_delays;
  std::vector<double> gemm_factor;  // per rank: compute_scale x slowdowns x run drift
  double run_factor = 1.0;
  double gemm_ns = 0.0;
  double optimizer_ns = 0.0;
  double spike_ns = 0.0;
};

Plan make_plan(const stepmodel::RunConfig& config, const std::vector<std::string>& names,
               const NoiseSource& noise) {
  const stepmodel::ModelConfig& m = config.model;
  Plan plan;
  plan.schedule = stepmodel::step_schedule(m);
  for (const Phase& p : plan.schedule) {
    plan.phase_names.push_back(name_index(names, p.name));
    std::vector<const stepmodel::DelayInjection*> matching;
    for (const auto& d : config.inject.delays) {
      if (targets(d, p)) matching.push_back(&d);
    }
    plan.phase_delays.push_back(std::move(matching));
  }
  plan.run_factor = lognormal_factor(noise.normal(NoiseStream::kRunDrift, 0, 0, 0), m.run_cv);
  plan.gemm_factor.assign(static_cast<std::size_t>(config.ranks),
                          m.compute_scale * plan.run_factor);
  for (const auto& slow : config.inject.slowdowns) {
    plan.gemm_factor[static_cast<std::size_t>(slow.rank)] *= slow.factor;
  }
  plan.gemm_ns = stepmodel::gemm_fwd_flops(m) / m.flops_per_s * 1e9;
  plan.optimizer_ns = plan.run_factor * 1e9 *
                      static_cast<double>(5 * stepmodel::parameter_bytes(m)) / m.mem_bytes_per_s;
  plan.spike_ns = m.spike_ms * 1e6;
  return plan;
}

// Per-rank state of the simulation, as flat arrays indexed by rank.
struct RankState {
  std::vector<std::int64_t> now;         // true time at which the rank issues its next phase
  std::vector<std::int64_t> step_begin;  // true time the current step began on the rank
  std::vector<std::int64_t> extra;       // injected delay for the current phase
};

class Simulation {
 public:
  Simulation(const stepmodel::RunConfig& config, SimulatedRun& run)
      : config_(config),
        run_(run),
        noise_(config.seed, static_cast<std::uint64_t>(config.repetition)),
        plan_(make_plan(config, run.names, noise_)),
        ranks_(config.ranks),
        steps_(config.warmup_steps + config.steps),
        per_step_(static_cast<int>(plan_.schedule.size()) + 1) {
    const auto n = static_cast<std::size_t>(ranks_);
    state_.now.assign(n, 0);
    state_.step_begin.assign(n, 0);
    state_.extra.assign(n, 0);
    run_.events_per_rank_step = per_step_;
    run_.step_template = step_template();
    run_.times.resize(n * static_cast<std::size_t>(steps_) * static_cast<std::size_t>(per_step_));
    run_.step_end_ns.assign(static_cast<std::size_t>(steps_), 0);
  }

  void run_all_steps() {
    for (int step = 0; step < steps_; ++step) run_step(step);
  }

 private:
  // The identifiers of one rank's step: the step event, then each phase of the schedule.
  std::vector<EventRecord> step_template() const {
    std::vector<EventRecord> events(static_cast<std::size_t>(per_step_));
    stepclock::set_ids(events[0], 0, {EventKind::kStep, kStepNameIndex, -1});
    for (std::size_t k = 0; k < plan_.schedule.size(); ++k) {
      const Phase& phase = plan_.schedule[k];
      EventRecord& e = events[k + 1];
      if (phase.kind == PhaseKind::kCollective) {
        stepclock::set_ids(
            e, 0,
            {EventKind::kCollective, plan_.phase_names[k], -1, -1, -1, phase.seq, phase.bytes});
      } else {
        stepclock::set_ids(
            e, 0, {EventKind::kCompute, plan_.phase_names[k], -1, phase.microbatch, phase.layer});
      }
    }
    return events;
  }

  // Records the event `index` of `rank`'s `step` from true times.
  void record(int rank, int step, int index, std::int64_t begin, std::int64_t end) {
    const std::size_t at = (static_cast<std::size_t>(rank) * static_cast<std::size_t>(steps_) +
                            static_cast<std::size_t>(step)) *
                               static_cast<std::size_t>(per_step_) +
                           static_cast<std::size_t>(index);
    const TrueClock& clock = run_.true_clocks[static_cast<std::size_t>(rank)];
    run_.times[at] = {clock.raw(begin), clock.raw(end)};
  }

  void run_step(int step) {
    state_.step_begin = state_.now;
    std::int64_t network_free = 0;  // the ring carries one bucket at a time
    std::int64_t outstanding = 0;   // completion of the step's asynchronous all-reduces
    for (std::size_t k = 0; k < plan_.schedule.size(); ++k) {
      const Phase& phase = plan_.schedule[k];
      if (phase.gap_ns > 0) {
        const auto gap = std::llround(phase.gap_ns * plan_.run_factor);
        for (std::int64_t& t : state_.now) t += gap;
      }
      std::vector<int> delayed = apply_delays(k, step);
      if (phase.kind == PhaseKind::kCollective) {
        const std::int64_t done = run_collective(step, k, network_free);
        network_free = done;
        outstanding = std::max(outstanding, done);
      } else {
        if (phase.waits_for_async) {
          // The optimizer needs every gradient: wait for overlapped all-reduces first.
          for (std::int64_t& t : state_.now) t = std::max(t, outstanding);
        }
        run_compute(step, k);
      }
      for (int r : delayed) state_.extra[static_cast<std::size_t>(r)] = 0;
    }
    std::int64_t last = 0;
    for (int r = 0; r < ranks_; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      record(r, step, 0, state_.step_begin[ur], state_.now[ur]);
      last = std::max(last, state_.now[ur]);
    }
    run_.step_end_ns[static_cast<std::size_t>(step)] = last;
  }

  std::vector<int> apply_delays(std::size_t k, int step) {
    std::vector<int> delayed;
    for (const stepmodel::DelayInjection* d : plan_.phase_delays[k]) {
      if (!in_steps(*d, step)) continue;
      const std::int64_t extra = std::llround(d->ms * 1e6);
      if (d->rank == stepmodel::kEveryRank) {
        for (int r = 0; r < ranks_; ++r) {
          state_.extra[static_cast<std::size_t>(r)] += extra;
          delayed.push_back(r);
        }
      } else {
        state_.extra[static_cast<std::size_t>(d->rank)] += extra;
        delayed.push_back(d->rank);
      }
    }
    return delayed;
  }

  void run_compute(int step, std::size_t k) {
    const stepmodel::ModelConfig& m = config_.model;
    const Phase& phase = plan_.schedule[k];
    // A measured phase scales like a GEMM: compute_scale, slowdowns and run drift apply.
    const bool measured = phase.fixed_ns >= 0;
    const bool gemm = measured || phase.name != stepmodel::kOptimizer;
    const double base = measured ? phase.fixed_ns : gemm ? plan_.gemm_ns : plan_.optimizer_ns;
    const auto uk = static_cast<std::uint64_t>(k);
    const auto us = static_cast<std::uint64_t>(step);
    for (int r = 0; r < ranks_; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      double duration = gemm ? base * plan_.gemm_factor[ur] : base;
      if (m.noise_cv > 0) {
        duration *=
            lognormal_factor(noise_.normal(NoiseStream::kPhaseJitter, ur, us, uk), m.noise_cv);
      }
      if (m.spike_prob > 0 && noise_.uniform(NoiseStream::kSpike, ur, us, uk) < m.spike_prob) {
        duration += plan_.spike_ns;
      }
      const std::int64_t begin = state_.now[ur];
      const std::int64_t end = begin + std::llround(duration) + state_.extra[ur];
      record(r, step, static_cast<int>(k) + 1, begin, end);
      state_.now[ur] = end;
    }
  }

  // Every rank enters the call (after any injected late-arrival delay); the ring completes
  // for everyone at the last arrival plus the transfer, or later if the previous bucket still
  // occupies the ring. Blocking all-reduces hold the rank until completion; overlapped ones
  // let it continue computing.
  std::int64_t run_collective(int step, std::size_t k, std::int64_t network_free) {
    const Phase& phase = plan_.schedule[k];
    std::int64_t last_arrival = 0;
    for (int r = 0; r < ranks_; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      state_.now[ur] += state_.extra[ur];
      last_arrival = std::max(last_arrival, state_.now[ur]);
    }
    const double modelled = phase.fixed_ns >= 0
                                ? phase.fixed_ns
                                : ring_allreduce_ns(config_.model, ranks_, phase.bytes);
    double transfer = modelled * plan_.run_factor;
    if (config_.model.noise_cv > 0) {
      const double z = noise_.normal(NoiseStream::kTransfer, static_cast<std::uint64_t>(step),
                                     static_cast<std::uint64_t>(k), 0);
      transfer *= lognormal_factor(z, config_.model.noise_cv);
    }
    const std::int64_t completion = std::max(last_arrival, network_free) + std::llround(transfer);
    for (int r = 0; r < ranks_; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      record(r, step, static_cast<int>(k) + 1, state_.now[ur], completion);
      if (!phase.asynchronous) state_.now[ur] = completion;
    }
    return completion;
  }

  const stepmodel::RunConfig& config_;
  SimulatedRun& run_;
  NoiseSource noise_;
  Plan plan_;
  int ranks_;
  int steps_;
  int per_step_;
  RankState state_;
};

}  // namespace

EventRecord SimulatedRun::event(std::size_t i) const {
  const auto per_step = static_cast<std::size_t>(events_per_rank_step);
  const std::size_t steps = step_end_ns.size();
  EventRecord e = step_template[i % per_step];
  e.rank = static_cast<std::int32_t>(i / (per_step * steps));
  e.step = static_cast<std::int32_t>((i / per_step) % steps);
  e.begin_ns = times[i].begin_ns;
  e.end_ns = times[i].end_ns;
  return e;
}

void SimulatedRun::rank_events(int rank, std::vector<EventRecord>& out) const {
  const std::size_t first = first_event(rank, 0);
  out.resize(first_event(rank + 1, 0) - first);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = event(first + i);
}

std::vector<EventRecord> SimulatedRun::all_events() const {
  std::vector<EventRecord> events(times.size());
  for (std::size_t i = 0; i < events.size(); ++i) events[i] = event(i);
  return events;
}

double ring_allreduce_ns(const stepmodel::ModelConfig& model, int ranks, std::int64_t bytes) {
  if (ranks <= 1) return 0.0;
  const double n = ranks;
  return 2.0 * (n - 1.0) / n * static_cast<double>(bytes) / model.link_bytes_per_s * 1e9 +
         2.0 * (n - 1.0) * model.hop_latency_us * 1e3;
}

SimulatedRun simulate(const stepmodel::RunConfig& config) {
  if (config.ranks < 1 || config.steps < 1 || config.warmup_steps < 0) {
    throw std::invalid_argument("simulator: ranks and steps must be >= 1");
  }
  SimulatedRun run;
  run.names = interned_names(config.model);
  run.true_clocks = make_true_clocks(config);
  Simulation simulation(config, run);
  simulation.run_all_steps();
  run.clock_models = estimate_clock_models(config, run.true_clocks, run.step_end_ns.back());
  return run;
}

std::optional<stepmodel::FaultInjection> triggered_fault(const stepmodel::RunConfig& config) {
  std::optional<stepmodel::FaultInjection> first;
  const int steps = config.warmup_steps + config.steps;
  for (const auto& f : config.inject.faults) {
    if (f.step < 0 || f.step >= steps) continue;
    if (!first || f.step < first->step || (f.step == first->step && f.rank < first->rank)) {
      first = f;
    }
  }
  return first;
}

}  // namespace sim
