#include "estimate.hpp"

#include <algorithm>
#include <map>

#include "stepmodel/schedule.hpp"

namespace culprit::manifest::detail {
namespace {

// Rough rates when real arithmetic runs (compute = "gemm"): a single CPU core doing SGEMM
// through OpenBLAS, and one data-centre GPU. Only the order of magnitude matters here.
constexpr double kCpuGemmFlopsPerThread = 1.0e10;
constexpr double kGpuGemmFlops = 2.0e14;
constexpr double kMpirunLaunchSeconds = 1.4;  // measured: mpirun + MPI_Init + run file, 2 cores
constexpr double kSimLaunchSeconds = 0.1;
constexpr double kSimSecondsPerPhaseRank = 2e-7;

double gemm_rate(const stepmodel::RunConfig& run, unsigned host_cores) {
  const auto& m = run.model;
  if (run.backend == "sim" || m.compute == "sleep") return m.flops_per_s;
  if (run.backend == "cuda") return kGpuGemmFlops;
  const double threads = static_cast<double>(run.ranks) * m.threads;
  const double share = std::max(1.0, threads / std::max(1u, host_cores));
  return kCpuGemmFlopsPerThread * m.threads / share;
}

// The largest per-step delay any one rank carries (delays on different ranks overlap).
double max_rank_delay_seconds(const stepmodel::RunConfig& run) {
  std::map<int, double> per_rank;
  for (const auto& d : run.inject.delays) {
    const bool per_layer = d.phase.starts_with("gemm.");
    double times = 1;
    if (per_layer && d.layer < 0) times *= run.model.layers;
    if (per_layer && d.microbatch < 0) times *= run.model.microbatches;
    if (d.phase == "allreduce" && d.layer < 0) times *= run.model.buckets;
    per_rank[d.rank] += times * d.ms * 1e-3;
  }
  double worst = 0;
  for (const auto& [rank, seconds] : per_rank) worst = std::max(worst, seconds);
  return worst;
}

}  // namespace

double predicted_step_seconds(const stepmodel::RunConfig& run, unsigned host_cores) {
  const auto& m = run.model;
  double slowdown = 1;
  for (const auto& s : run.inject.slowdowns) slowdown = std::max(slowdown, s.factor);
  const double rate = gemm_rate(run, host_cores);
  const double n = run.ranks;
  double seconds = 0;
  for (const auto& phase : stepmodel::step_schedule(m)) {
    if (phase.fixed_ns >= 0) {  // a measured schedule states its durations
      seconds += (phase.gap_ns + (phase.asynchronous ? 0 : phase.fixed_ns)) * 1e-9;
    } else if (phase.kind == stepmodel::PhaseKind::kCollective) {
      if (run.ranks > 1) {
        seconds += 2 * (n - 1) / n * static_cast<double>(phase.bytes) / m.link_bytes_per_s +
                   2 * (n - 1) * m.hop_latency_us * 1e-6;
      }
    } else if (phase.flops > 0) {
      seconds += phase.flops / rate * m.compute_scale * slowdown;
    } else {
      seconds += static_cast<double>(phase.bytes) / m.mem_bytes_per_s;
    }
  }
  return seconds + max_rank_delay_seconds(run);
}

double estimated_run_seconds(const stepmodel::RunConfig& run, unsigned host_cores) {
  const double steps = run.warmup_steps + run.steps;
  if (run.backend == "sim") {
    const double phases = static_cast<double>(stepmodel::step_schedule(run.model).size());
    return kSimLaunchSeconds + kSimSecondsPerPhaseRank * phases * run.ranks * steps;
  }
  return kMpirunLaunchSeconds + steps * predicted_step_seconds(run, host_cores);
}

}  // namespace culprit::manifest::detail
