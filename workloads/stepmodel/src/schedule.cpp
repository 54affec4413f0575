#include "stepmodel/schedule.hpp"

#include <algorithm>

namespace stepmodel {

std::size_t dtype_size(const ModelConfig& model) {
  if (model.dtype == "fp64") return 8;
  if (model.dtype == "fp16" || model.dtype == "bf16") return 2;
  return 4;
}

double gemm_fwd_flops(const ModelConfig& model) {
  return 2.0 * model.tokens * static_cast<double>(model.hidden) * model.hidden;
}

std::int64_t parameter_bytes(const ModelConfig& model) {
  return static_cast<std::int64_t>(model.layers) * model.hidden * model.hidden *
         static_cast<std::int64_t>(dtype_size(model));
}

double model_flops_per_step(const ModelConfig& model) {
  return 3.0 * gemm_fwd_flops(model) * model.layers * model.microbatches;
}

std::vector<Bucket> buckets(const ModelConfig& model) {
  const int count = std::clamp(model.buckets, 1, model.layers);
  const std::int64_t layer_bytes = static_cast<std::int64_t>(model.hidden) * model.hidden *
                                   static_cast<std::int64_t>(dtype_size(model));
  std::vector<Bucket> result;
  result.reserve(static_cast<std::size_t>(count));
  // Backward visits layers from last to first, so bucket 0 holds the last layers.
  int upper = model.layers - 1;
  for (int b = 0; b < count; ++b) {
    const int size = model.layers / count + (b < model.layers % count ? 1 : 0);
    Bucket bucket;
    bucket.last_layer = upper;
    bucket.first_layer = upper - size + 1;
    bucket.bytes = layer_bytes * size;
    result.push_back(bucket);
    upper -= size;
  }
  return result;
}

namespace {

std::vector<Phase> measured_schedule(const ModelConfig& model) {
  std::vector<Phase> phases;
  phases.reserve(model.schedule.size());
  for (const SchedulePhase& s : model.schedule) {
    Phase p;
    p.kind = s.collective ? PhaseKind::kCollective : PhaseKind::kCompute;
    p.name = s.name;
    p.microbatch = s.collective ? -1 : s.microbatch;
    p.layer = s.collective ? -1 : s.layer;
    p.seq = s.collective ? s.seq : -1;
    p.bytes = s.collective ? s.bytes : 0;
    p.asynchronous = s.collective && s.async;
    p.fixed_ns = s.ms * 1e6;
    p.gap_ns = s.gap_ms * 1e6;
    p.waits_for_async = !s.collective && s.waits;
    phases.push_back(p);
  }
  return phases;
}

}  // namespace

std::vector<Phase> step_schedule(const ModelConfig& model) {
  if (!model.schedule.empty()) return measured_schedule(model);
  std::vector<Phase> phases;
  const double fwd = gemm_fwd_flops(model);
  const std::vector<Bucket> grad_buckets = buckets(model);
  const int last_mb = model.microbatches - 1;

  auto collective = [&](int bucket_index, bool asynchronous) {
    Phase p;
    p.kind = PhaseKind::kCollective;
    p.name = kAllreduce;
    p.seq = bucket_index;
    p.bytes = grad_buckets[static_cast<std::size_t>(bucket_index)].bytes;
    p.asynchronous = asynchronous;
    phases.push_back(p);
  };

  for (int mb = 0; mb < model.microbatches; ++mb) {
    for (int layer = 0; layer < model.layers; ++layer) {
      phases.push_back(Phase{PhaseKind::kCompute, kGemmFwd, mb, layer, -1, fwd, 0, false});
    }
    for (int layer = model.layers - 1; layer >= 0; --layer) {
      phases.push_back(Phase{PhaseKind::kCompute, kGemmDgrad, mb, layer, -1, fwd, 0, false});
      phases.push_back(Phase{PhaseKind::kCompute, kGemmWgrad, mb, layer, -1, fwd, 0, false});
      // Gradients are final only after the last microbatch (accumulation); with overlap the
      // bucket's all-reduce is issued as soon as its lowest layer's weight gradient is done.
      if (model.overlap && mb == last_mb) {
        for (std::size_t b = 0; b < grad_buckets.size(); ++b) {
          if (grad_buckets[b].first_layer == layer) collective(static_cast<int>(b), true);
        }
      }
    }
  }
  if (!model.overlap) {
    for (std::size_t b = 0; b < grad_buckets.size(); ++b) collective(static_cast<int>(b), false);
  }
  Phase optimizer;
  optimizer.kind = PhaseKind::kCompute;
  optimizer.name = kOptimizer;
  // Elementwise update reads gradient, weight and momentum and writes weight and momentum.
  optimizer.bytes = 5 * parameter_bytes(model);
  optimizer.waits_for_async = true;
  phases.push_back(optimizer);
  return phases;
}

}  // namespace stepmodel
