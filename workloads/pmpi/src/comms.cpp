#include "comms.hpp"

#include <string>

#include "stepclock/stepclock.h"

namespace culprit::pmpi {

void CommTable::init(MPI_Comm world) {
  (void)world;
  for (std::size_t c = 0; c < kCollectiveCount; ++c) {
    slots_[0].names[c] = stepclock_name(std::string(call_name(c)).c_str());
  }
  slots_[0].world = true;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval_, nullptr);
}

void CommTable::register_created(MPI_Comm created) {
  if (created == MPI_COMM_NULL || keyval_ == MPI_KEYVAL_INVALID) return;
  int inter = 0;
  PMPI_Comm_test_inter(created, &inter);
  if (inter) return;  // intercommunicators: collectives there are not recorded
  // Members may have used different numbers of slots (other communicators of their own): they
  // agree on the largest next free slot.
  int slot = next_free_;
  PMPI_Allreduce(MPI_IN_PLACE, &slot, 1, MPI_INT, MPI_MAX, created);
  if (slot >= static_cast<int>(kSlots)) return;  // out of slots: not recorded
  next_free_ = slot + 1;
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Group world_group = MPI_GROUP_NULL;
  PMPI_Comm_group(created, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int zero = 0;
  int leader = 0;
  PMPI_Group_translate_ranks(group, 1, &zero, world_group, &leader);
  PMPI_Group_free(&group);
  PMPI_Group_free(&world_group);
  CommState& state = slots_[static_cast<std::size_t>(slot)];
  const std::string suffix = "@c" + std::to_string(slot) + ".r" + std::to_string(leader);
  for (std::size_t c = 0; c < kCollectiveCount; ++c) {
    state.names[c] = stepclock_name((std::string(call_name(c)) + suffix).c_str());
  }
  state.seq_step = -2;
  int compare = MPI_UNEQUAL;
  PMPI_Comm_compare(created, MPI_COMM_WORLD, &compare);
  state.world = compare == MPI_CONGRUENT;
  PMPI_Comm_set_attr(created, keyval_, &state);
}

}  // namespace culprit::pmpi
