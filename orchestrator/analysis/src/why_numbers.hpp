#pragma once
// One side's numbers for the why verdict: the kernel's launches averaged, with the peaks and the
// shape applied (why_figures.cpp); the rules (why.cpp) read these.
#include <optional>
#include <string>

#include "culprit/analysis/why.hpp"

namespace culprit::analysis::why_detail {

using Maybe = std::optional<double>;

struct SideNumbers {
  Maybe duration_ns, bytes, flops, flop_rate, flop_pct, bandwidth, bandwidth_pct, intensity;
  Maybe sm_active_pct, sm_active_cycles, elapsed_cycles, occupancy_pct, tensor_pct, clock_hz;
  Maybe sm_throughput_pct, memory_pct, waves;
  std::string duration_source, bytes_source, flops_source;
  std::string flops_note;     // why there is no FLOP count
  std::string bytes_note;     // why there is no DRAM byte count
  std::string duration_note;  // why there is no duration
  double launches = 0;
};

SideNumbers side_numbers(const KernelCounters& k, const WhyOptions& options);
WhySide make_side(const KernelCounters& k, const SideNumbers& n, const WhyOptions& options);

inline Maybe ratio(const Maybe& a, const Maybe& b) {
  if (!a || !b || *b == 0.0) return std::nullopt;
  return *a / *b;
}

}  // namespace culprit::analysis::why_detail
