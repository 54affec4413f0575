#include "comms.hpp"

#include <string>

#include "stepclock/stepclock.h"

namespace culprit::pmpi {

void CommTable::init(std::int64_t name_budget) {
  for (std::size_t c = 0; c < kCollectiveCount; ++c) {
    world_.names[c] = stepclock_name(std::string(call_name(c)).c_str());
  }
  world_.world = true;
  names_left_ = name_budget;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &CommTable::release, &keyval_, this);
}

int CommTable::release(MPI_Comm, int, void* state, void* table) {
  static_cast<CommTable*>(table)->free_.push_back(static_cast<CommState*>(state));
  return MPI_SUCCESS;
}

std::uint16_t CommTable::intern(CommState& state, std::size_t call) {
  if (names_left_ <= 0) {
    ++unrecorded_;
    return kUnnamed;
  }
  --names_left_;
  state.names[call] = stepclock_name((std::string(call_name(call)) + state.suffix).c_str());
  return state.names[call];
}

void CommTable::register_created(MPI_Comm created) {
  if (created == MPI_COMM_NULL || keyval_ == MPI_KEYVAL_INVALID) return;
  int inter = 0;
  PMPI_Comm_test_inter(created, &inter);
  if (inter) return;  // intercommunicators: collectives there are not recorded
  // Members may have made different numbers of communicators (others of their own): they agree
  // on the largest next serial, which none of them has named a communicator with yet.
  int serial = next_serial_;
  PMPI_Allreduce(MPI_IN_PLACE, &serial, 1, MPI_INT, MPI_MAX, created);
  next_serial_ = serial + 1;
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Group world_group = MPI_GROUP_NULL;
  PMPI_Comm_group(created, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int zero = 0;
  int leader = 0;
  PMPI_Group_translate_ranks(group, 1, &zero, world_group, &leader);
  PMPI_Group_free(&group);
  PMPI_Group_free(&world_group);
  CommState* state = nullptr;
  if (free_.empty()) {
    state = states_.emplace_back(std::make_unique<CommState>()).get();
  } else {
    state = free_.back();
    free_.pop_back();
  }
  *state = CommState{};
  state->names.fill(kUnnamed);
  state->suffix = "@c" + std::to_string(serial) + ".r" + std::to_string(leader);
  int compare = MPI_UNEQUAL;
  PMPI_Comm_compare(created, MPI_COMM_WORLD, &compare);
  state->world = compare == MPI_CONGRUENT;
  PMPI_Comm_set_attr(created, keyval_, state);
}

}  // namespace culprit::pmpi
