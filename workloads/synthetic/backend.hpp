#pragma once
// One way of executing the step schedule (cpu: OpenBLAS + MPI; cuda: cuBLAS + NCCL). The step
// runner walks stepmodel::step_schedule and hands each phase here; a backend does the work and
// records the phase's event through stepclock (host clock, or device events mapped onto it).

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "injection.hpp"
#include "stepclock/stepclock.hpp"
#include "stepmodel/config.hpp"
#include "stepmodel/schedule.hpp"

namespace synthetic {

struct PhaseWork {
  const stepmodel::Phase* phase = nullptr;
  int step = 0;
  std::uint16_t name = 0;  // stepclock name id
  PhaseDelay delay;        // injected: inside the phase, or just before an all-reduce
};

// The identifiers of a phase instance's event, one rule for every backend and for the phase's
// NVTX range (phase_nvtx.hpp): a compute phase's microbatch and layer, a collective's bucket
// (seq) and payload.
inline stepclock_ids phase_ids(const PhaseWork& work) {
  const stepmodel::Phase& p = *work.phase;
  return p.kind == stepmodel::PhaseKind::kCollective
             ? stepclock::ids(work.step, -1, -1, p.seq, p.bytes)
             : stepclock::ids(work.step, p.microbatch, p.layer);
}

class Backend {
 public:
  virtual ~Backend() = default;
  virtual void begin_step(int step) = 0;
  virtual void compute(const PhaseWork& work) = 0;    // GEMM or optimizer
  virtual void allreduce(const PhaseWork& work) = 0;  // blocking, or issued when asynchronous
  virtual void end_step(int step) = 0;  // everything of the step has completed on return
  // Checks the all-reduced gradients of `step`; throws naming the bucket and element if wrong.
  virtual void verify_step(int step) = 0;
  // Facts recorded as this rank's provenance (library versions, device, verified all-reduces).
  virtual std::vector<std::pair<std::string, std::string>> provenance() const = 0;
};

// What each backend derives from its configuration the same way: the model, this rank's place in
// the job, the gradient buckets, the injected GEMM slowdown and one layer's weight count.
struct BackendSetup {
  BackendSetup(const stepmodel::RunConfig& config, const RankInjections& injections, int rank,
               int ranks)
      : model_(config.model),
        rank_(rank),
        ranks_(ranks),
        buckets_(stepmodel::buckets(config.model)),
        gemm_factor_(injections.gemm_time_factor()),
        layer_elems_(static_cast<std::int64_t>(model_.hidden) * model_.hidden) {}

  stepmodel::ModelConfig model_;
  int rank_;
  int ranks_;
  std::vector<stepmodel::Bucket> buckets_;
  double gemm_factor_;
  std::int64_t layer_elems_;  // hidden x hidden
};

// Known per-rank gradient values whose sum over ranks is exact in every dtype used, so an
// all-reduce can be checked element by element: rank r writes (r + 1) * (i % 4 + 1) + step % 3.
inline double gradient_pattern(int rank, std::int64_t index, int step) {
  return (rank + 1) * static_cast<double>(index % 4 + 1) + step % 3;
}
inline double gradient_pattern_sum(int ranks, std::int64_t index, int step) {
  return ranks * (ranks + 1) / 2.0 * static_cast<double>(index % 4 + 1) + ranks * (step % 3);
}

std::unique_ptr<Backend> make_cpu_backend(const stepmodel::RunConfig& config,
                                          const RankInjections& injections, int rank, int ranks);
// model.schedule on the cpu backend: measured durations waited out, measured payloads reduced.
std::unique_ptr<Backend> make_measured_backend(const stepmodel::RunConfig& config,
                                               const RankInjections& injections);
// Throws when the CUDA backend was not compiled in or no GPU is visible (never falls back).
std::unique_ptr<Backend> make_cuda_backend(const stepmodel::RunConfig& config,
                                           const RankInjections& injections, int rank, int ranks);

}  // namespace synthetic
