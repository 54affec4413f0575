#include "culprit/analysis/why.hpp"

namespace culprit::analysis {

WhyVerdict why_of_exports(const std::string& baseline_path, const std::string& candidate_path,
                          const WhyOptions& options) {
  const std::vector<KernelCounters> candidate =
      group_kernels(importers::ncu::read_ncu(candidate_path));
  if (baseline_path.empty()) return why_verdict(nullptr, candidate, options);
  const std::vector<KernelCounters> baseline =
      group_kernels(importers::ncu::read_ncu(baseline_path));
  return why_verdict(&baseline, candidate, options);
}

}  // namespace culprit::analysis
