#pragma once
// Every MPI call the interposer knows, by index: the collectives first, then the point-to-point
// waits, then the markers (stepmodel/pmpi_calls.hpp holds the names, in this order).

#include <cstddef>
#include <string_view>

#include "stepmodel/pmpi_calls.hpp"

namespace culprit::pmpi {

inline constexpr std::size_t kCollectiveCount = stepmodel::kPmpiCollectives.size();
inline constexpr std::size_t kWaitCount = stepmodel::kPmpiWaits.size();
inline constexpr std::size_t kCallCount =
    kCollectiveCount + kWaitCount + stepmodel::kPmpiMarkers.size();

inline constexpr std::string_view call_name(std::size_t call) {
  if (call < kCollectiveCount) return stepmodel::kPmpiCollectives[call];
  if (call < kCollectiveCount + kWaitCount) return stepmodel::kPmpiWaits[call - kCollectiveCount];
  return stepmodel::kPmpiMarkers[call - kCollectiveCount - kWaitCount];
}

// The index of `name`, or kCallCount when it is not a call the interposer knows.
inline constexpr std::size_t call_index(std::string_view name) {
  for (std::size_t c = 0; c < kCallCount; ++c) {
    if (call_name(c) == name) return c;
  }
  return kCallCount;
}

inline constexpr bool is_collective(std::size_t call) {
  return call < kCollectiveCount;
}

// Named indices (a typo fails to compile: the static_asserts below).
inline constexpr std::size_t kBarrier = call_index("MPI_Barrier");
inline constexpr std::size_t kBcast = call_index("MPI_Bcast");
inline constexpr std::size_t kReduce = call_index("MPI_Reduce");
inline constexpr std::size_t kAllreduce = call_index("MPI_Allreduce");
inline constexpr std::size_t kGather = call_index("MPI_Gather");
inline constexpr std::size_t kGatherv = call_index("MPI_Gatherv");
inline constexpr std::size_t kScatter = call_index("MPI_Scatter");
inline constexpr std::size_t kScatterv = call_index("MPI_Scatterv");
inline constexpr std::size_t kAllgather = call_index("MPI_Allgather");
inline constexpr std::size_t kAllgatherv = call_index("MPI_Allgatherv");
inline constexpr std::size_t kAlltoall = call_index("MPI_Alltoall");
inline constexpr std::size_t kAlltoallv = call_index("MPI_Alltoallv");
inline constexpr std::size_t kAlltoallw = call_index("MPI_Alltoallw");
inline constexpr std::size_t kReduceScatter = call_index("MPI_Reduce_scatter");
inline constexpr std::size_t kReduceScatterBlock = call_index("MPI_Reduce_scatter_block");
inline constexpr std::size_t kScan = call_index("MPI_Scan");
inline constexpr std::size_t kExscan = call_index("MPI_Exscan");
inline constexpr std::size_t kWait = call_index("MPI_Wait");
inline constexpr std::size_t kWaitall = call_index("MPI_Waitall");
inline constexpr std::size_t kWaitany = call_index("MPI_Waitany");
inline constexpr std::size_t kWaitsome = call_index("MPI_Waitsome");
inline constexpr std::size_t kSendrecv = call_index("MPI_Sendrecv");
inline constexpr std::size_t kSendrecvReplace = call_index("MPI_Sendrecv_replace");
inline constexpr std::size_t kRecv = call_index("MPI_Recv");
inline constexpr std::size_t kPcontrol = call_index("MPI_Pcontrol");
inline constexpr std::size_t kFinalize = call_index("MPI_Finalize");
static_assert(kExscan < kCallCount && kRecv < kCallCount && kFinalize < kCallCount);

}  // namespace culprit::pmpi
