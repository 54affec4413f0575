#pragma once
// Communicators the interposer records collectives on. MPI_COMM_WORLD is known from the start; a
// communicator created by an intercepted call (MPI_Comm_dup, _split, _split_type, _create,
// MPI_Cart_create, MPI_Cart_sub) gets a serial number that all its members agree on and a state
// kept as an MPI attribute. Event names carry the serial and the world rank of the
// communicator's rank 0 ("MPI_Allreduce@c2.r4"), so instances on different communicators never
// match; the sequence number counts the communicator's collectives within the step, the same on
// every member. MPI_Comm_free hands the state back for the next communicator (the attribute's
// delete callback), so a program may create and free communicators without end; only the event
// names are bounded (stepclock interns at most 65,535): past the budget a collective is not
// recorded, and counted.

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "calls.hpp"

namespace culprit::pmpi {

inline constexpr std::uint16_t kUnnamed = 0xffff;

struct CommState {
  // Event name per collective, interned at its first call on the communicator (kUnnamed before).
  std::array<std::uint16_t, kCollectiveCount> names{};
  std::string suffix;          // "@c<serial>.r<leader>"; empty for MPI_COMM_WORLD
  std::int32_t seq_step = -2;  // the step `seq` counts in
  std::int32_t seq = 0;        // collectives on this communicator so far in that step
  // MPI_COMM_WORLD, or congruent to it (the same ranks in the same order, e.g. a duplicate,
  // which is what many applications use as their "world"): the step rule counts calls here.
  bool world = false;
};

class CommTable {
 public:
  // Event names a run may intern for communicators other than the world, by default.
  static constexpr std::int64_t kDefaultNameBudget = 60000;

  // Called after MPI_Init, under the interposer's guard (its own MPI calls are not recorded).
  void init(std::int64_t name_budget);
  // Collective over `created` (every member calls it right after creating it).
  void register_created(MPI_Comm created);

  // The state of `comm`; nullptr when the interposer does not know it (not recorded).
  CommState* find(MPI_Comm comm) {
    if (comm == MPI_COMM_WORLD) return &world_;
    if (keyval_ == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL) return nullptr;
    void* value = nullptr;
    int found = 0;
    PMPI_Comm_get_attr(comm, keyval_, &value, &found);
    return found ? static_cast<CommState*>(value) : nullptr;
  }

  // The event name of collective `call` on `state`; kUnnamed (and counted in unrecorded())
  // once the name budget is spent: that call is then not recorded.
  std::uint16_t name(CommState& state, std::size_t call) {
    const std::uint16_t id = state.names[call];
    return id != kUnnamed ? id : intern(state, call);
  }

  // Collectives not recorded because the name budget was spent.
  std::int64_t unrecorded() const { return unrecorded_; }

  // The next sequence number on `state` in `step`.
  static std::int32_t next_seq(CommState& state, std::int32_t step) {
    if (state.seq_step != step) {
      state.seq_step = step;
      state.seq = 0;
    }
    return state.seq++;
  }

 private:
  std::uint16_t intern(CommState& state, std::size_t call);
  // The attribute's delete callback (MPI_Comm_free, or MPI_Finalize): the state is reused.
  static int release(MPI_Comm comm, int keyval, void* state, void* table);

  CommState world_;
  std::vector<std::unique_ptr<CommState>> states_;  // every state ever made
  std::vector<CommState*> free_;                    // those of freed communicators
  int next_serial_ = 1;
  std::int64_t names_left_ = kDefaultNameBudget;
  std::int64_t unrecorded_ = 0;
  int keyval_ = MPI_KEYVAL_INVALID;
};

}  // namespace culprit::pmpi
