#pragma once
// Ping-pong clock exchanges between rank 0 and every other rank over MPI.

#include <mpi.h>

#include <vector>

#include "stepclock/clock.hpp"
#include "stepclock/clock_model.hpp"

namespace stepclock {

// Collective over `comm`. On rank 0 returns one estimate per rank (rank 0's is exact: offset 0,
// round trip 0); other ranks get an empty vector. Peers are served one at a time so that no
// exchange waits behind another rank's.
std::vector<OffsetEstimate> exchange_clocks(MPI_Comm comm, const RawClock& clock, int exchanges);

}  // namespace stepclock
