#pragma once
// The injections that apply to this rank, resolved once before the timed loop so that looking
// one up per phase allocates nothing. The truth stays in the config echo; events never say
// "injected".

#include <cstdint>
#include <vector>

#include "stepmodel/config.hpp"
#include "stepmodel/schedule.hpp"

namespace synthetic {

// Extra time to spend in (or, for an all-reduce, just before) one phase, by mode.
struct PhaseDelay {
  double sleep_ms = 0.0;
  double spin_ms = 0.0;
  double gpu_ms = 0.0;
  bool any() const { return sleep_ms > 0 || spin_ms > 0 || gpu_ms > 0; }
};

class RankInjections {
 public:
  RankInjections(const stepmodel::RunConfig& config, int rank);

  PhaseDelay delay_for(const stepmodel::Phase& phase, int step) const;
  // compute_scale x this rank's slowdown: how much longer every GEMM takes here.
  double gemm_time_factor() const { return gemm_time_factor_; }
  bool has_skew() const { return skew_offset_ms_ != 0.0 || skew_drift_ppm_ != 0.0; }
  double skew_offset_ms() const { return skew_offset_ms_; }
  double skew_drift_ppm() const { return skew_drift_ppm_; }
  // Dies (abort) or never returns (hang) when a fault targets this rank at `step`.
  void fault_point(int step) const;

 private:
  int rank_;
  std::vector<stepmodel::DelayInjection> delays_;
  std::vector<stepmodel::FaultInjection> faults_;
  double gemm_time_factor_ = 1.0;
  double skew_offset_ms_ = 0.0;
  double skew_drift_ppm_ = 0.0;
};

// Host-side delay: sleeps, then busy-spins the CPU (both measured on CLOCK_MONOTONIC).
void spend_on_host(const PhaseDelay& delay);
void sleep_for_ns(std::int64_t ns);
void spin_for_ns(std::int64_t ns);

}  // namespace synthetic
