#pragma once
// C++ wrapper over the stepclock C API: scoped regions and typed names.

#include <stdexcept>
#include <string>

#include "stepclock/stepclock.h"

namespace stepclock {

inline stepclock_ids ids(std::int32_t step, std::int32_t microbatch = -1, std::int32_t layer = -1,
                         std::int32_t seq = -1, std::int64_t bytes = 0) {
  return stepclock_ids{step, microbatch, layer, seq, bytes};
}

// Throws std::runtime_error with stepclock's message when a C API call failed.
inline void check(int status, const char* what) {
  if (status != 0) throw std::runtime_error(std::string(what) + ": " + stepclock_last_error());
}

// This process's place among the ranks of `comm` on its own host (MPI_COMM_TYPE_SHARED): a
// workload picks its GPU by `rank`; stepclock's provenance weighs `size` against the host's cores.
// Collective over `comm`.
struct HostRanks {
  int rank = 0;
  int size = 1;
};
inline HostRanks host_ranks(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm local = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  HostRanks out;
  MPI_Comm_rank(local, &out.rank);
  MPI_Comm_size(local, &out.size);
  MPI_Comm_free(&local);
  return out;
}

// Records [construction, destruction) as one event.
class ScopedRegion {
 public:
  ScopedRegion(stepclock_kind kind, std::uint16_t name, stepclock_ids region_ids)
      : region_(stepclock_begin(kind, name, region_ids)) {}
  ScopedRegion(const ScopedRegion&) = delete;
  ScopedRegion& operator=(const ScopedRegion&) = delete;
  ~ScopedRegion() { stepclock_end(region_); }

 private:
  stepclock_region region_;
};

class ScopedStep {
 public:
  explicit ScopedStep(std::int32_t step) : region_(stepclock_step_begin(step)) {}
  ScopedStep(const ScopedStep&) = delete;
  ScopedStep& operator=(const ScopedStep&) = delete;
  ~ScopedStep() { stepclock_step_end(region_); }

 private:
  stepclock_region region_;
};

}  // namespace stepclock
