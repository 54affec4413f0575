#pragma once
// The phases of one data-parallel training step, in issue order on one rank. The synthetic
// workload executes this list and the simulator models it, so both produce events with the
// same names, identifiers and structure.

#include <cstdint>
#include <string_view>
#include <vector>

#include "stepmodel/config.hpp"

namespace stepmodel {

enum class PhaseKind : std::uint8_t { kCompute, kCollective };

// Event names, shared by every backend.
inline constexpr std::string_view kGemmFwd = "gemm.fwd";
inline constexpr std::string_view kGemmDgrad = "gemm.bwd.dgrad";
inline constexpr std::string_view kGemmWgrad = "gemm.bwd.wgrad";
inline constexpr std::string_view kAllreduce = "allreduce";
inline constexpr std::string_view kOptimizer = "optimizer";
inline constexpr std::string_view kStep = "step";

struct Phase {
  PhaseKind kind = PhaseKind::kCompute;
  std::string_view name;
  int microbatch = -1;
  int layer = -1;
  int seq = -1;            // collective sequence number within the step (the bucket index)
  double flops = 0.0;      // GEMM work
  std::int64_t bytes = 0;  // all-reduce payload, or optimizer bytes touched
  // With overlap, a bucket's all-reduce is issued here and completes asynchronously; it must
  // be waited for before the optimizer. Without overlap, all-reduces block in bucket order.
  bool asynchronous = false;
  // A measured schedule (model.schedule) gives durations instead of work: compute time, or a
  // collective's transfer time after the last arrival; negative when derived from the work.
  double fixed_ns = -1.0;
  double gap_ns = 0.0;           // host time before the phase is issued
  bool waits_for_async = false;  // waits for outstanding asynchronous collectives (optimizer)
};

struct Bucket {
  int first_layer = 0;  // layers [first_layer, last_layer] belong to the bucket
  int last_layer = 0;
  std::int64_t bytes = 0;
};

std::size_t dtype_size(const ModelConfig& model);
double gemm_fwd_flops(const ModelConfig& model);  // 2 * tokens * hidden * hidden
std::int64_t parameter_bytes(const ModelConfig& model);
double model_flops_per_step(const ModelConfig& model);  // per rank, fwd + 2x bwd, all layers
// Buckets in the order their gradients become ready in backward (bucket 0 = last layers).
std::vector<Bucket> buckets(const ModelConfig& model);
// The ordered phases of one step: model.schedule when given (names point into it), else the
// GEMM step of layers x microbatches.
std::vector<Phase> step_schedule(const ModelConfig& model);

}  // namespace stepmodel
