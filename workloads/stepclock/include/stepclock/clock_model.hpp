#pragma once
// Estimates how a rank's raw clock maps onto rank 0's from ping-pong exchanges.
// One exchange: rank 0 reads t_send, the peer reads t_peer on receipt and replies, rank 0 reads
// t_recv. The peer's reading happened somewhere inside [t_send, t_recv] on rank 0's clock, so
// offset = (t_send + t_recv) / 2 - t_peer with |error| <= (t_recv - t_send) / 2. The exchange
// with the smallest round trip gives the tightest bound; a start and an end estimate give the
// drift (linear in between).

#include <cstdint>
#include <vector>

#include "stepclock/runfile.hpp"

namespace stepclock {

// Ping-pongs per clock estimate in culprit's own sources: culprit-step, the PMPI interposer's
// first round (its default), the clock models the simulator states (as culprit-step's), and the
// Python module's CLOCK_EXCHANGES.
inline constexpr int kDefaultClockExchanges = 20;

struct PingPong {
  std::int64_t send_ns = 0;  // rank 0's clock
  std::int64_t peer_ns = 0;  // the peer's raw clock
  std::int64_t recv_ns = 0;  // rank 0's clock
};

struct OffsetEstimate {
  std::int64_t peer_ns = 0;  // peer clock reading of the kept exchange
  double offset_ns = 0.0;    // add to the peer's clock to get rank 0's
  double rtt_ns = 0.0;       // round trip of the kept exchange
  bool valid = false;
};

// Keeps the exchange with the minimum round trip.
OffsetEstimate best_offset(const std::vector<PingPong>& exchanges);

// Combines start and end estimates into the rank's clock model (docs/schema.md): offset at
// ref_ns = start.peer_ns, drift from the change in offset; uncertainty is the larger half round
// trip. Without a valid end estimate the drift is 0.
ClockModel clock_model(std::int32_t rank, const OffsetEstimate& start, const OffsetEstimate& end,
                       std::int32_t exchanges);

}  // namespace stepclock
