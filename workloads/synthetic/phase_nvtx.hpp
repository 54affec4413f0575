#pragma once
// An NVTX push/pop range around one phase instance, named by runfile::phase_range_name from the
// instance's event identifiers (phase_ids), so `ncu --nvtx --nvtx-include '<name>/'` profiles
// exactly the kernels that instance launched (the blamed one `culprit explain` names; an
// asynchronous all-reduce's range covers its issue, where a GPU backend launches the kernel). Built
// only with the CUDA toolkit's header-only NVTX (CULPRIT_HAVE_NVTX); without a tool attached
// (ncu, nsys, or another NVTX_INJECTION64_PATH library) it opens nothing and costs a branch.

#include "backend.hpp"

namespace synthetic {

// Whether this culprit-step opens the ranges (the run meta phase_ranges says so).
bool phase_ranges_compiled();

class PhaseRange {
 public:
  explicit PhaseRange(const PhaseWork& work);
  PhaseRange(const PhaseRange&) = delete;
  PhaseRange& operator=(const PhaseRange&) = delete;
  ~PhaseRange();

 private:
  [[maybe_unused]] bool pushed_ = false;  // read only where NVTX is compiled in
};

}  // namespace synthetic
