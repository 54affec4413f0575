#include "injection.hpp"

#include <time.h>

#include <cstdio>
#include <cstdlib>

#include "stepclock/clock.hpp"

namespace synthetic {
namespace {

bool matches(const stepmodel::DelayInjection& d, const stepmodel::Phase& phase, int step) {
  if (phase.name != d.phase) return false;
  if (d.step_first >= 0 && step < d.step_first) return false;
  if (d.step_last >= 0 && step > d.step_last) return false;
  if (phase.kind == stepmodel::PhaseKind::kCollective) {
    return d.layer < 0 || d.layer == phase.seq;  // for a collective, layer selects the bucket
  }
  // A phase without a layer or microbatch (the optimizer) is not filtered on it.
  return (d.layer < 0 || phase.layer < 0 || d.layer == phase.layer) &&
         (d.microbatch < 0 || phase.microbatch < 0 || d.microbatch == phase.microbatch);
}

}  // namespace

RankInjections::RankInjections(const stepmodel::RunConfig& config, int rank) : rank_(rank) {
  for (const auto& d : config.inject.delays) {
    if (d.rank == rank || d.rank == stepmodel::kEveryRank) delays_.push_back(d);
  }
  for (const auto& f : config.inject.faults) {
    if (f.rank == rank) faults_.push_back(f);
  }
  gemm_time_factor_ = config.model.compute_scale;
  for (const auto& s : config.inject.slowdowns) {
    if (s.rank == rank) gemm_time_factor_ *= s.factor;
  }
  for (const auto& c : config.inject.clock_skews) {
    if (c.rank == rank) {
      skew_offset_ms_ += c.offset_ms;
      skew_drift_ppm_ += c.drift_ppm;
    }
  }
}

PhaseDelay RankInjections::delay_for(const stepmodel::Phase& phase, int step) const {
  PhaseDelay total;
  for (const auto& d : delays_) {
    if (!matches(d, phase, step)) continue;
    if (d.mode == "spin") {
      total.spin_ms += d.ms;
    } else if (d.mode == "gpu") {
      total.gpu_ms += d.ms;
    } else {
      total.sleep_ms += d.ms;
    }
  }
  return total;
}

void RankInjections::fault_point(int step) const {
  for (const auto& f : faults_) {
    if (f.step != step) continue;
    if (f.kind == "hang") {
      std::fprintf(stderr, "culprit-step: rank %d: injected fault 'hang' at step %d: hanging\n",
                   rank_, step);
      std::fflush(stderr);
      for (;;) sleep_for_ns(1'000'000'000);
    }
    std::fprintf(stderr, "culprit-step: rank %d: injected fault 'abort' at step %d: aborting\n",
                 rank_, step);
    std::fflush(stderr);
    std::abort();
  }
}

void sleep_for_ns(std::int64_t ns) {
  if (ns <= 0) return;
  timespec deadline{};
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  const std::int64_t target = deadline.tv_nsec + ns;
  deadline.tv_sec += static_cast<time_t>(target / 1'000'000'000);
  deadline.tv_nsec = static_cast<long>(target % 1'000'000'000);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nullptr) != 0) {
  }
}

void spin_for_ns(std::int64_t ns) {
  const std::int64_t deadline = stepclock::monotonic_ns() + ns;
  while (stepclock::monotonic_ns() < deadline) {
  }
}

void spend_on_host(const PhaseDelay& delay) {
  sleep_for_ns(static_cast<std::int64_t>(delay.sleep_ms * 1e6));
  spin_for_ns(static_cast<std::int64_t>(delay.spin_ms * 1e6));
}

}  // namespace synthetic
