#pragma once
// The name of the NVTX push/pop range around one phase instance of culprit-step (run meta
// phase_ranges = "nvtx"): its one owner. culprit-step names each range by it and `culprit explain`
// names the blamed instance by it in the ncu command it prints (`--nvtx --nvtx-include
// '<name>/'`), so the range a user profiles is the one the workload opened.

#include <cstdint>
#include <string>
#include <string_view>

namespace runfile {

// The value of run meta phase_ranges: culprit-step opens such a range around every phase
// instance whenever an NVTX tool (ncu, nsys) is attached.
inline constexpr const char* kPhaseRangesNvtx = "nvtx";

// "<phase> step S[ microbatch M][ layer L][ seq Q]": the identifiers of the instance's event, those
// that are -1 left out (a compute phase has a microbatch and a layer, an all-reduce its bucket's
// seq). The step is in it, so on one rank of the built-in schedule it names exactly one instance
// (a measured schedule may repeat a name within a step: the filter then takes each).
std::string phase_range_name(std::string_view phase, std::int32_t step, std::int32_t microbatch,
                             std::int32_t layer, std::int32_t seq);

}  // namespace runfile
