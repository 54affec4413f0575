#pragma once
// Efficiency ratios, each kept with its numerator and denominator so that a reader can check
// it (design.md, "Definitions"), and the sampled-activity figure a 1 Hz GPU dashboard shows.
// Only steady-state steps count.

#include <string>
#include <vector>

#include "culprit/analysis/collectives.hpp"
#include "culprit/analysis/decomposition.hpp"
#include "culprit/analysis/timeline.hpp"

namespace culprit::analysis {

struct Ratio {
  std::string name;
  double numerator = 0;
  std::string numerator_unit;
  double denominator = 0;
  std::string denominator_unit;
  double value = 0;     // numerator / denominator, in `unit`
  std::string unit;     // "" for a plain fraction
  std::string missing;  // non-empty: why the ratio is not available
  bool available() const { return missing.empty(); }
};

struct Efficiency {
  Ratio mfu;        // model FLOPs per step (all ranks) / (step time x ranks x peak FLOP/s)
  Ratio gemm_rate;  // GEMM FLOPs / time spent in GEMMs, per device
  Ratio algbw;      // collective bytes / transfer time (0-byte collectives left out)
  Ratio busbw;      // bytes x each operation's nccl-tests bus factor / transfer time
  // algbw and busbw of each collective operation (all_reduce, all_gather, ...), in pairs.
  std::vector<Ratio> bandwidth_by_operation;
  Ratio exposed_comm;    // exposed communication on the critical path / step time
  Ratio visual_overlap;  // |comm ∩ compute| / |comm| on the ranks' timelines
};

// `peak_flops_per_device`: 0 when unknown (MFU is then reported missing, with the reason).
Efficiency efficiency(const Timeline& timeline, const std::vector<CollectiveTiming>& collectives,
                      const std::vector<StepDecomposition>& steps, double peak_flops_per_device);

struct SampledActivity {
  double period_s = 1.0;
  int samples = 0;  // sample instants (each looks at every rank)
  // Busy: an imported rank's GPU kernels (the union over its streams) when it has any, else
  // its phases (their union); never above 1.
  double sampled_share = 0;  // share of (instant, rank) samples in which it was busy
  double busy_share = 0;     // exact: busy time / (span x ranks)
  double span_s = 0;
};

// Samples every rank at `period_s` intervals over the steady-state steps, like a dashboard.
SampledActivity sampled_activity(const Timeline& timeline, double period_s = 1.0);

}  // namespace culprit::analysis
