// What an imported run says of itself: its meta (the runfile::meta keys) and its configuration
// echo, the resolved configuration with an import section (stepmodel owns its JSON).
#include <cstdio>

#include "culprit/common/json.hpp"
#include "run_parts.hpp"
#include "runfile/meta_keys.hpp"
#include "stepmodel/config.hpp"

namespace culprit::importers {

std::string job_backend(const RankTrace& first) {
  if (!first.backend.empty()) return first.backend;
  // Not in the file (legacy, nsys): the collectives' own names tell it.
  for (std::size_t n = 0; n < first.names.size(); ++n) {
    const std::string& name = first.names[static_cast<std::uint32_t>(n)];
    if (name.rfind("gloo:", 0) == 0) return "gloo";
    if (name.rfind("nccl", 0) == 0) return "nccl";
    if (name.rfind("MPI_", 0) == 0) return "mpi";
  }
  return "unknown";
}

std::vector<std::pair<std::string, std::string>> import_meta(const ImportSummary& s,
                                                             const RunFacts& f) {
  namespace meta = runfile::meta;
  auto number = [](double v) { return format_number(v); };
  return {{meta::kSource, "culprit import"},
          {meta::kTraceFormat, s.format},
          {meta::kBackend, s.backend},
          {meta::kRanks, std::to_string(s.ranks)},
          {meta::kWorldSize, std::to_string(s.world_size)},
          {meta::kWarmupSteps, std::to_string(f.warmup_until)},
          {meta::kSteps, std::to_string(f.steady)},
          {meta::kPartial, s.partial ? "1" : "0"},
          {meta::kIncompleteCollectives, f.incomplete},
          {meta::kModelFlopsPerStep, "0"},
          {meta::kParameterBytes, "0"},
          {meta::kDeviceMicrobatchBase, std::to_string(device_microbatch_base())},
          // Measured steps' GEMM kernels over all ranks, FLOPs from recorded shapes.
          {meta::kGemmKernels, std::to_string(f.gemm.kernels)},
          {meta::kGemmKernelNs, number(f.gemm.ns)},
          {meta::kGemmKernelsWithoutShapes, std::to_string(f.gemm.without_shapes)},
          {meta::kGemmShapedNs, number(f.gemm.shaped_ns)},
          {meta::kGemmFlops, number(f.gemm.flops)},
          {meta::kStepsDigest, f.steps_digest}};
}

std::string import_echo(const BuildOptions& o, const ImportSummary& s, const RunFacts& f) {
  stepmodel::RunConfig c;
  c.experiment = o.experiment;
  c.config_label = o.label;
  c.repetition = 0;
  c.seed = 0;
  c.backend = s.kernels > 0 ? "cuda" : "cpu";  // where the traced job computed
  c.ranks = s.ranks;
  c.warmup_steps = f.warmup_until;
  c.steps = f.steady;
  stepmodel::ImportSection& i = c.import.emplace();
  i.format = s.format;
  i.backend = s.backend;
  i.partial = s.partial;
  i.world_size = s.world_size;
  i.files = s.files;
  return stepmodel::to_json(c);
}

}  // namespace culprit::importers
