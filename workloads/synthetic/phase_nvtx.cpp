#include "phase_nvtx.hpp"

#if CULPRIT_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>

#include <cstdlib>
#include <string>

#include "runfile/phase_range.hpp"
#endif

namespace synthetic {

#if CULPRIT_HAVE_NVTX

bool phase_ranges_compiled() {
  return true;
}

namespace {

// NVTX loads a tool only from NVTX_INJECTION64_PATH on Linux (ncu and nsys set it in the process
// they start; culprit-step links no static injection), so without it no range is seen and
// neither the name nor the calls are spent.
bool tool_attached() {
  static const bool attached = std::getenv("NVTX_INJECTION64_PATH") != nullptr;
  return attached;
}

}  // namespace

PhaseRange::PhaseRange(const PhaseWork& work) : pushed_(tool_attached()) {
  if (!pushed_) return;
  const stepclock_ids ids = phase_ids(work);
  const std::string name =
      runfile::phase_range_name(work.phase->name, ids.step, ids.microbatch, ids.layer, ids.seq);
  nvtxRangePushA(name.c_str());
}

PhaseRange::~PhaseRange() {
  if (pushed_) nvtxRangePop();
}

#else

bool phase_ranges_compiled() {
  return false;
}

PhaseRange::PhaseRange(const PhaseWork&) {}

PhaseRange::~PhaseRange() = default;

#endif

}  // namespace synthetic
