#pragma once
// The MPI calls the PMPI interposer (workloads/pmpi, docs/pmpi.md) records, in one place: the
// interposer names its events after them, the manifest accepts step rules and delay phases
// ("compute>MPI_Allreduce") only for them, and the resolved configuration checks the same list.

#include <algorithm>
#include <array>
#include <string_view>

namespace stepmodel {

// Blocking collectives: arrival = call entry, completion = return, matched across ranks.
inline constexpr std::array<std::string_view, 17> kPmpiCollectives = {
    "MPI_Barrier",    "MPI_Bcast",          "MPI_Reduce",
    "MPI_Allreduce",  "MPI_Gather",         "MPI_Gatherv",
    "MPI_Scatter",    "MPI_Scatterv",       "MPI_Allgather",
    "MPI_Allgatherv", "MPI_Alltoall",       "MPI_Alltoallv",
    "MPI_Alltoallw",  "MPI_Reduce_scatter", "MPI_Reduce_scatter_block",
    "MPI_Scan",       "MPI_Exscan"};

// Waits of point-to-point exchanges: recorded per rank, never matched as collectives.
inline constexpr std::array<std::string_view, 7> kPmpiWaits = {
    "MPI_Wait",     "MPI_Waitall",          "MPI_Waitany", "MPI_Waitsome",
    "MPI_Sendrecv", "MPI_Sendrecv_replace", "MPI_Recv"};

// Calls that end a compute phase without being recorded themselves.
inline constexpr std::array<std::string_view, 2> kPmpiMarkers = {"MPI_Pcontrol", "MPI_Finalize"};

// The compute phase that a recorded call ends: "compute>MPI_Allreduce".
inline constexpr std::string_view kPmpiComputePrefix = "compute>";

inline bool is_pmpi_collective(std::string_view call) {
  return std::find(kPmpiCollectives.begin(), kPmpiCollectives.end(), call) !=
         kPmpiCollectives.end();
}

inline bool is_pmpi_call(std::string_view call) {
  return is_pmpi_collective(call) ||
         std::find(kPmpiWaits.begin(), kPmpiWaits.end(), call) != kPmpiWaits.end() ||
         std::find(kPmpiMarkers.begin(), kPmpiMarkers.end(), call) != kPmpiMarkers.end();
}

// "compute>MPI_Allreduce" for every call of is_pmpi_call.
inline bool is_pmpi_phase(std::string_view phase) {
  return phase.starts_with(kPmpiComputePrefix) &&
         is_pmpi_call(phase.substr(kPmpiComputePrefix.size()));
}

}  // namespace stepmodel
