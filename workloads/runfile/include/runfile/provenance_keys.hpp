#pragma once
// Provenance keys that culprit reads back (docs/schema.md, provenance): the writers (stepclock's
// C API, the PMPI interposer through it) and the store's reader name them only here. The Python
// module writes sched.step_wait_ns as the same text.

namespace runfile::provenance {

// Per rank, "step:ns,step:ns,...": how long the stepping thread waited for a CPU while runnable
// in each step (/proc/thread-self/schedstat).
inline constexpr const char* kStepWaitNs = "sched.step_wait_ns";
// Per rank, the same list: the part of that wait inside the collectives the stepping thread
// timed itself (stepclock_begin/end). Absent where no collective was so timed.
inline constexpr const char* kStepCollectiveWaitNs = "sched.step_collective_wait_ns";

}  // namespace runfile::provenance
