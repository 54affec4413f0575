#pragma once
// The shape every wrapper shares: pass straight through when not recording (before MPI_Init,
// after MPI_Finalize, inside the interposer's own MPI traffic, on other threads, unknown
// communicators); otherwise enter, call PMPI, leave.

#include <mpi.h>

#include <cstdint>

#include "recorder.hpp"

namespace culprit::pmpi {

inline std::int64_t type_bytes(int count, MPI_Datatype type) {
  int size = 0;
  if (type != MPI_DATATYPE_NULL) PMPI_Type_size(type, &size);
  return static_cast<std::int64_t>(count) * size;
}

template <typename Call, typename Bytes>
int collective(std::size_t call, MPI_Comm comm, Bytes bytes, Call pmpi) {
  Recorder& r = recorder();
  if (!r.active()) return pmpi();
  CommState* state = r.comms().find(comm);
  if (state == nullptr) return pmpi();
  if (r.comms().name(*state, call) == kUnnamed) return pmpi();  // counted: names spent
  const std::int64_t entry = r.enter(call);
  const int rc = pmpi();
  r.leave_collective(call, *state, entry, bytes());
  return rc;
}

template <typename Call>
int wait(std::size_t call, Call pmpi) {
  Recorder& r = recorder();
  if (!r.active()) return pmpi();
  const std::int64_t entry = r.enter(call);
  const int rc = pmpi();
  r.leave_wait(call, entry);
  return rc;
}

}  // namespace culprit::pmpi
