#pragma once
// Communicators the interposer records collectives on. MPI_COMM_WORLD is slot 0; a communicator
// created by an intercepted call (MPI_Comm_dup, _split, _split_type, _create, MPI_Cart_create,
// MPI_Cart_sub) gets a slot that all its members agree on, kept as an MPI attribute. Event names
// carry the slot and the world rank of the communicator's rank 0 ("MPI_Allreduce@c2.r4"), so
// instances on different communicators never match; the sequence number counts the
// communicator's collectives within the step, the same on every member.

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "calls.hpp"

namespace culprit::pmpi {

struct CommState {
  std::array<std::uint16_t, kCollectiveCount> names{};  // event name per collective
  std::int32_t seq_step = -2;                           // the step `seq` counts in
  std::int32_t seq = 0;  // collectives on this communicator so far in that step
  // MPI_COMM_WORLD, or congruent to it (the same ranks in the same order, e.g. a duplicate,
  // which is what many applications use as their "world"): the step rule counts calls here.
  bool world = false;
};

class CommTable {
 public:
  static constexpr std::size_t kSlots = 64;

  // Called after MPI_Init, under the interposer's guard (its own MPI calls are not recorded).
  void init(MPI_Comm world);
  // Collective over `created` (every member calls it right after creating it).
  void register_created(MPI_Comm created);

  // The state of `comm`; nullptr when the interposer does not know it (not recorded).
  CommState* find(MPI_Comm comm) {
    if (comm == MPI_COMM_WORLD) return &slots_[0];
    if (keyval_ == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL) return nullptr;
    void* value = nullptr;
    int found = 0;
    PMPI_Comm_get_attr(comm, keyval_, &value, &found);
    return found ? static_cast<CommState*>(value) : nullptr;
  }

  // The next sequence number on `state` in `step`.
  static std::int32_t next_seq(CommState& state, std::int32_t step) {
    if (state.seq_step != step) {
      state.seq_step = step;
      state.seq = 0;
    }
    return state.seq++;
  }

 private:
  std::array<CommState, kSlots> slots_{};
  int next_free_ = 1;
  int keyval_ = MPI_KEYVAL_INVALID;
};

}  // namespace culprit::pmpi
