#include "clock_sync.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>

namespace stepclock {
namespace {

constexpr int kPingTag = 7301;
constexpr int kPongTag = 7302;

}  // namespace

std::vector<OffsetEstimate> exchange_clocks(MPI_Comm comm, const RawClock& clock, int exchanges) {
  return exchange_clocks(comm, clock, exchanges, exchanges, 0, 0);
}

std::vector<OffsetEstimate> exchange_clocks(MPI_Comm comm, const RawClock& clock, int min_exchanges,
                                            int max_exchanges, std::int64_t target_rtt_ns,
                                            std::int64_t budget_ns) {
  const int exchanges = std::max(min_exchanges, max_exchanges);
  constexpr char kPing = 0;
  constexpr char kStop = 1;  // only sent when rank 0 stops before max_exchanges
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (rank != 0) {
    for (int k = 0; k < exchanges; ++k) {
      char ping = kPing;
      MPI_Recv(&ping, 1, MPI_CHAR, 0, kPingTag, comm, MPI_STATUS_IGNORE);
      if (ping == kStop) break;
      const std::int64_t peer_ns = clock.now();
      MPI_Send(&peer_ns, 1, MPI_INT64_T, 0, kPongTag, comm);
    }
    return {};
  }
  std::vector<OffsetEstimate> estimates(static_cast<std::size_t>(size));
  estimates[0] = OffsetEstimate{clock.now(), 0.0, 0.0, true};
  std::vector<PingPong> samples(static_cast<std::size_t>(exchanges));
  for (int peer = 1; peer < size; ++peer) {
    const std::int64_t start_ns = monotonic_ns();
    std::int64_t best_rtt = INT64_MAX;
    int k = 0;
    for (; k < exchanges; ++k) {
      if (k >= min_exchanges &&
          (best_rtt <= target_rtt_ns || monotonic_ns() - start_ns >= budget_ns)) {
        MPI_Send(&kStop, 1, MPI_CHAR, peer, kPingTag, comm);
        break;
      }
      PingPong& x = samples[static_cast<std::size_t>(k)];
      x.send_ns = clock.now();
      MPI_Send(&kPing, 1, MPI_CHAR, peer, kPingTag, comm);
      MPI_Recv(&x.peer_ns, 1, MPI_INT64_T, peer, kPongTag, comm, MPI_STATUS_IGNORE);
      x.recv_ns = clock.now();
      best_rtt = std::min(best_rtt, x.recv_ns - x.send_ns);
    }
    estimates[static_cast<std::size_t>(peer)] =
        best_offset(std::vector<PingPong>(samples.begin(), samples.begin() + k));
  }
  return estimates;
}

}  // namespace stepclock
