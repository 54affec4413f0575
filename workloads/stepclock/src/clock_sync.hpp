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

// The same, adaptively: with each peer, at least `min_exchanges`, then more until the minimum
// round trip is at most `target_rtt_ns`, `max_exchanges` were made or `budget_ns` passed on
// rank 0 (a loaded host: the first round trips after start-up can all be long). Rank 0 tells
// the peer when it stops early.
std::vector<OffsetEstimate> exchange_clocks(MPI_Comm comm, const RawClock& clock, int min_exchanges,
                                            int max_exchanges, std::int64_t target_rtt_ns,
                                            std::int64_t budget_ns);

}  // namespace stepclock
