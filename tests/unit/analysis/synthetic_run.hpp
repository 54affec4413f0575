#pragma once
// Builds RunData in memory for analysis tests and benchmarks: either event by event (known
// answers by hand) or by running the step model's schedule with exact timings, injected
// delays and skewed clocks (a miniature simulator with no noise unless asked).

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "culprit/storage/run_data.hpp"
#include "stepmodel/schedule.hpp"

namespace culprit::testing {

inline constexpr double kMs = 1e6;

class RunBuilder {
 public:
  explicit RunBuilder(int ranks, int warmup_steps = 0) {
    run_.ranks = ranks;
    run_.warmup_steps = warmup_steps;
    run_.clocks.resize(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) run_.clocks[static_cast<std::size_t>(r)].rank = r;
  }
  // Times in ms on the rank's raw clock.
  RunBuilder& phase(int rank, int step, int mb, int layer, const std::string& name, double b,
                    double e) {
    return add(rank, step, mb, layer, -1, storage::EventKind::kCompute, name, b, e, 0);
  }
  RunBuilder& collective(int rank, int step, int seq, double b, double e,
                         std::int64_t bytes = 1 << 20) {
    return add(rank, step, -1, -1, seq, storage::EventKind::kCollective, "allreduce", b, e, bytes);
  }
  RunBuilder& step(int rank, int step, double b, double e) {
    return add(rank, step, -1, -1, -1, storage::EventKind::kStep, "step", b, e, 0);
  }
  storage::ClockModel& clock(int rank) { return run_.clocks[static_cast<std::size_t>(rank)]; }
  storage::RunData build() const { return run_; }

 private:
  RunBuilder& add(int rank, int step, int mb, int layer, int seq, storage::EventKind kind,
                  const std::string& name, double b, double e, std::int64_t bytes) {
    int index = run_.name_index(name);
    if (index < 0) {
      index = static_cast<int>(run_.names.size());
      run_.names.push_back(name);
    }
    const storage::Event ev{.begin_ns = std::llround(b * kMs),
                            .end_ns = std::llround(e * kMs),
                            .bytes = bytes,
                            .rank = rank,
                            .step = step,
                            .microbatch = mb,
                            .layer = layer,
                            .seq = seq,
                            .name = static_cast<std::uint16_t>(index),
                            .kind = kind};
    run_.events.push_back(ev);
    return *this;
  }
  storage::RunData run_;
};

struct Delay {
  int rank = 0;
  std::string phase;
  int layer = -1;  // allreduce: the bucket
  int microbatch = -1;
  double ms = 0;
};

struct SkewedClock {
  int rank = 0;
  double offset_ms = 0;  // raw = true + offset + drift * true
  double drift_ppm = 0;
  double model_error_us = 0;  // the clock model's own error (within its uncertainty)
  double uncertainty_us = 1;
};

struct SyntheticSpec {
  int ranks = 4;
  int steps = 6;  // including warm-up
  int warmup_steps = 1;
  stepmodel::ModelConfig model;  // compute, flops_per_s, layers, ... as the simulator reads it
  double transfer_ms = 0.2;
  double gap_us = 2;     // host gap before every event
  double jitter_cv = 0;  // per-phase normal jitter
  std::uint64_t seed = 1;
  std::vector<Delay> delays;
  std::vector<SkewedClock> clocks;
};

// A spec whose compute sleeps (exact timings): `ranks` ranks, `steps` steps of which
// `warmup_steps` warm up, and a model of `layers` layers, `microbatches` micro-batches and
// `buckets` gradient buckets (the model's default when not given).
inline SyntheticSpec sleep_spec(int ranks, int steps, int warmup_steps, int layers,
                                int microbatches, int buckets = stepmodel::ModelConfig{}.buckets) {
  SyntheticSpec spec;
  spec.ranks = ranks;
  spec.steps = steps;
  spec.warmup_steps = warmup_steps;
  spec.model.compute = "sleep";
  spec.model.layers = layers;
  spec.model.microbatches = microbatches;
  spec.model.buckets = buckets;
  return spec;
}

// The run's clock models for spec.clocks, and each rank's raw offset (ns) and drift (fraction).
inline void skew_clocks(const SyntheticSpec& spec, storage::RunData& run,
                        std::vector<std::int64_t>& offset, std::vector<double>& drift) {
  const auto ranks = static_cast<std::size_t>(spec.ranks);
  offset.assign(ranks, 0);
  drift.assign(ranks, 0);
  run.clocks.resize(ranks);
  for (std::size_t r = 0; r < ranks; ++r) run.clocks[r].rank = static_cast<int>(r);
  for (const SkewedClock& c : spec.clocks) {
    const auto r = static_cast<std::size_t>(c.rank);
    offset[r] = std::llround(c.offset_ms * kMs);
    drift[r] = c.drift_ppm * 1e-6;
    storage::ClockModel& m = run.clocks[r];
    m.ref_ns = offset[r];
    m.offset_ns = -static_cast<double>(offset[r]) + c.model_error_us * 1e3;
    m.drift_ppm = -c.drift_ppm;
    m.uncertainty_ns = c.uncertainty_us * 1e3;
  }
}

// The delay spec.delays inject into phase p on rank r, in ns.
inline double injected_ns(const SyntheticSpec& spec, std::size_t r, const stepmodel::Phase& p) {
  double ms = 0;
  for (const Delay& d : spec.delays) {
    if (d.rank != static_cast<int>(r) || d.phase != p.name) continue;
    const int where = p.kind == stepmodel::PhaseKind::kCollective ? p.seq : p.layer;
    if (d.layer >= 0 && d.layer != where) continue;
    if (d.microbatch >= 0 && d.microbatch != p.microbatch) continue;
    ms += d.ms;
  }
  return ms * kMs;
}

// Runs the step schedule: ranks compute in lock-step, collectives complete for everyone at the
// last arrival plus the transfer (blocking unless overlapped); a measured schedule's phases last
// their own durations (model.schedule: `ms`, and a collective's transfer).
inline storage::RunData synthesize(const SyntheticSpec& spec) {
  storage::RunData run;
  run.ranks = spec.ranks;
  run.warmup_steps = spec.warmup_steps;
  const auto ranks = static_cast<std::size_t>(spec.ranks);
  std::vector<std::int64_t> offset;
  std::vector<double> drift;
  skew_clocks(spec, run, offset, drift);
  auto raw = [&](std::size_t r, double t) { return offset[r] + std::llround(t + drift[r] * t); };
  for (const char* name :
       {"gemm.fwd", "gemm.bwd.dgrad", "gemm.bwd.wgrad", "allreduce", "optimizer", "step"})
    run.names.emplace_back(name);
  auto name_of = [&](std::string_view n) {
    return static_cast<std::uint16_t>(run.name_index(std::string(n)));
  };
  const std::vector<stepmodel::Phase> schedule = stepmodel::step_schedule(spec.model);
  const double gemm_ns = stepmodel::gemm_fwd_flops(spec.model) / spec.model.flops_per_s * 1e9;
  std::mt19937_64 rng(spec.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> now(ranks, 1e6);
  const double gap = spec.gap_us * 1e3;
  auto extra = [&](std::size_t r, const stepmodel::Phase& p) { return injected_ns(spec, r, p); };
  auto emit = [&](std::size_t r, int step, const stepmodel::Phase& p, storage::EventKind kind,
                  double b, double e) {
    storage::Event ev;
    ev.rank = static_cast<int>(r);
    ev.step = step;
    ev.microbatch = p.microbatch;
    ev.layer = p.layer;
    ev.seq = p.seq;
    ev.kind = kind;
    ev.name = name_of(kind == storage::EventKind::kStep ? "step" : p.name);
    ev.bytes = p.kind == stepmodel::PhaseKind::kCollective ? p.bytes : 0;
    ev.begin_ns = raw(r, b);
    ev.end_ns = raw(r, e);
    run.events.push_back(ev);
  };
  for (int step = 0; step < spec.steps; ++step) {
    const std::vector<double> step_begin = now;
    double outstanding = 0;
    for (const stepmodel::Phase& p : schedule) {
      if (p.kind == stepmodel::PhaseKind::kCollective) {
        double last = 0;
        for (std::size_t r = 0; r < ranks; ++r) {
          now[r] += gap + extra(r, p);
          last = std::max(last, now[r]);
        }
        const double done = last + (p.fixed_ns >= 0 ? p.fixed_ns : spec.transfer_ms * kMs);
        outstanding = std::max(outstanding, done);
        for (std::size_t r = 0; r < ranks; ++r) {
          emit(r, step, p, storage::EventKind::kCollective, now[r], done);
          if (!p.asynchronous) now[r] = done;
        }
        continue;
      }
      const bool optimizer = p.name == stepmodel::kOptimizer;
      for (std::size_t r = 0; r < ranks; ++r) {
        if (p.waits_for_async) now[r] = std::max(now[r], outstanding);
        double d = p.fixed_ns >= 0 ? p.fixed_ns
                   : optimizer     ? 0.25 * gemm_ns
                                   : gemm_ns * spec.model.compute_scale;
        if (spec.jitter_cv > 0) d *= std::max(0.5, 1.0 + spec.jitter_cv * normal(rng));
        const double b = now[r] + gap;
        const double e = b + d + extra(r, p);
        emit(r, step, p, storage::EventKind::kCompute, b, e);
        now[r] = e;
      }
    }
    stepmodel::Phase step_phase;
    for (std::size_t r = 0; r < ranks; ++r) {
      emit(r, step, step_phase, storage::EventKind::kStep, step_begin[r], now[r]);
    }
  }
  run.meta["model_flops_per_step"] = std::to_string(stepmodel::model_flops_per_step(spec.model));
  return run;
}

}  // namespace culprit::testing
