#pragma once
// Gathers per-rank data onto rank 0 (collective over the communicator).

#include <mpi.h>

#include <string>
#include <vector>

#include "stepclock/runfile.hpp"

namespace stepclock {

// On rank 0: element r is rank r's list. Elsewhere: empty.
std::vector<std::vector<std::string>> gather_strings(MPI_Comm comm,
                                                     const std::vector<std::string>& mine);

// On rank 0: every rank's events, in rank order. Elsewhere: empty.
std::vector<EventRecord> gather_events(MPI_Comm comm, const EventRecord* events, std::size_t n);

}  // namespace stepclock
